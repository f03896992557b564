import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp
def f(x, y):
    return x ** 2 * y
x = torch.tensor([1., 2.])
y = torch.tensor([3., 4.])
print(jacobian(f, (x, y)))
print(hessian(lambda x: (x ** 3).sum(), x))
print(vjp(lambda x: x.exp(), x, torch.ones(2)))
print(hvp(lambda x: (x ** 3).sum(), x, torch.ones(2)))
