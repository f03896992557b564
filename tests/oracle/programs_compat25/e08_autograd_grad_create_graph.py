import torch
x = torch.tensor(1.5, requires_grad=True)
y = x ** 4 - 3 * x
d1, = torch.autograd.grad(y, x, create_graph=True)
d2, = torch.autograd.grad(d1, x, create_graph=True)
d3, = torch.autograd.grad(d2, x)
print(d1, d2, d3, sep="\n")
print(d1.requires_grad, d3.requires_grad)
