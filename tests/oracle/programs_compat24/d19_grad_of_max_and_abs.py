import torch
x = torch.tensor([1., 3., 3., -2.], requires_grad=True)
x.max().backward()
print(x.grad)
x.grad = None
x.abs().sum().backward()
print(x.grad)
x.grad = None
torch.tensor([0., 1.], requires_grad=True).relu().sum().backward()
y = torch.tensor([0.], requires_grad=True)
y.abs().backward()
print(y.grad)
