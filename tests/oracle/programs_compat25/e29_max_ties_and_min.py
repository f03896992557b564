import torch
x = torch.tensor([[1., 5., 5.], [2., 2., 0.]], requires_grad=True)
m, i = x.max(dim=1)
print(m, i)
m.sum().backward()
print(x.grad)
x.grad = None
torch.amax(x, dim=1).sum().backward()
print(x.grad)
x.grad = None
x.min().backward()
print(x.grad)
