import torch
x = torch.tensor(2., requires_grad=True)
y = x * x
z1 = y * 3
z2 = y * 4
z1.backward()
print(x.grad)
z2.backward()
print(x.grad)
