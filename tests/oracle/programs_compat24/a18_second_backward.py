import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.exp(x).sum()
y.backward()
print(x.grad)
y.backward()
