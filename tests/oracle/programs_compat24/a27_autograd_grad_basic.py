import torch
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3 + 2 * x
g, = torch.autograd.grad(y, x)
print(g)
g2 = torch.autograd.grad(x ** 2, [x], create_graph=True)
print(g2)
