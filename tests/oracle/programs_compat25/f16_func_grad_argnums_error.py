import torch
from torch.func import grad
def f(x, y):
    return (x * y).sum()
x, y = torch.tensor([1., 2.]), torch.tensor([3., 4.])
print(grad(f, argnums=1)(x, y))
print(grad(f, argnums=(1, 0))(x, y))
grad(f, argnums=2)(x, y)
