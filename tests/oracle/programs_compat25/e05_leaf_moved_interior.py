import torch
x = torch.zeros(3, requires_grad=True)
y = torch.tensor([1., 2., 3.], requires_grad=True)
with torch.no_grad():
    x.copy_(y)
print(x, x.is_leaf)
x.copy_(y)
