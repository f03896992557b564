import torch
from torch.func import vjp, grad
def f(x):
    y = x.sin()
    return y, {"cos": x.cos()}
x = torch.tensor([0., 1.])
out, vjp_fn, aux = vjp(f, x, has_aux=True)
print(out, aux)
print(vjp_fn(torch.ones(2)))
def bad(x):
    return x.sum(), 3
print(grad(bad, has_aux=True)(x))
grad(lambda x: x.sum(), has_aux=True)(x)
