import torch
from torch.func import jacrev, grad
def f(p):
    return p['a'] * p['b'].sum()
p = {'a': torch.tensor([1., 2.]), 'b': torch.tensor([3., 4., 5.])}
j = jacrev(f)(p)
print(sorted(j.keys()))
print(j['a'])
print(j['b'])
print(grad(lambda p: f(p).sum())(p))
