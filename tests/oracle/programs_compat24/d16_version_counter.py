import torch
x = torch.ones(3, requires_grad=True)
y = x * 2
print(y._version)
y.add_(1)
y[0] = 5
print(y._version)
print(y)
