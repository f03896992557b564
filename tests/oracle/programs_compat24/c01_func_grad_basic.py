import torch
from torch.func import grad
x = torch.randn([])
cos_x = grad(lambda x: torch.sin(x))(x)
print(torch.allclose(cos_x, x.cos()))
neg_sin_x = grad(grad(lambda x: torch.sin(x)))(x)
print(torch.allclose(neg_sin_x, -x.sin()))
def f(x, y):
    return (x * y ** 2).sum()
print(grad(f, argnums=(0, 1))(torch.tensor([1., 2.]), torch.tensor([3., 4.])))
