import torch
from torch.func import hessian, jacfwd, jacrev
def f(x, y):
    return (x ** 2 * y).sum() + (y ** 3).sum()
x = torch.tensor([1., 2.])
y = torch.tensor([3., -1.])
print(hessian(f, argnums=1)(x, y))
print(jacfwd(jacrev(f, argnums=0), argnums=0)(x, y))
hxy = jacfwd(jacrev(f, argnums=0), argnums=1)(x, y)
print(hxy)
print(hessian(f, argnums=(0, 1))(x, y)[0][1])
