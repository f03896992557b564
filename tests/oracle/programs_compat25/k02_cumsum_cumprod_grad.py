import torch
x = torch.tensor([1., 2., 0., 4.], requires_grad=True)
torch.cumsum(x, dim=0).sum().backward()
print(x.grad)
x.grad = None
torch.cumprod(x, dim=0).sum().backward()
print(x.grad)
x.grad = None
torch.logcumsumexp(x, dim=0)[-1].backward()
print(x.grad)
