import torch
x = torch.tensor([0.1, 0.1], requires_grad=True)
v = torch.tensor([1., 1.])
f = 3 * x[0] ** 2 + 4 * x[0] * x[1] + x[1] ** 2
grad_f, = torch.autograd.grad(f, x, create_graph=True)
z = grad_f @ v
z.backward()
print(grad_f)
print(x.grad)
