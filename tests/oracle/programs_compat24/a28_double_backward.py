import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
grad_x, = torch.autograd.grad(y, x, create_graph=True)
print(grad_x)
z = grad_x.sum()
z.backward()
print(x.grad)
