import torch
x = torch.tensor([1.0], requires_grad=True)
y = torch.sin(x)
z = y.item()
print(type(z).__name__)
z.backward()
