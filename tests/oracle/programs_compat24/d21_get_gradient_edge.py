import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * x
z = y.sum()
g = torch.autograd.grad(z, y)
print(g)
print(z.grad_fn.next_functions)
print(x.grad_fn, x.grad_fn is None)
