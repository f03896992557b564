import torch
from torch.func import vmap
def f(pair, scale):
    a, b = pair
    return (a * b).sum() * scale
a = torch.arange(6.).reshape(2, 3)
b = torch.arange(6.).reshape(3, 2)
print(vmap(f, in_dims=((0, 1), None))((a, b), 2.0))
def g(d):
    return d['x'] + d['y']
print(vmap(g, in_dims=({'x': 0, 'y': None},))({'x': torch.ones(3, 2), 'y': torch.tensor([10., 20.])}))
r = vmap(lambda t: (t.sum(), t * 2), out_dims=(0, 1))(torch.arange(4.).reshape(2, 2))
print(r)
