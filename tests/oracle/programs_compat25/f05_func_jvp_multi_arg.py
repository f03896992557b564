import torch
from torch.func import jvp, linearize
def f(x, y):
    return x * y.sin(), (x + y).sum()
x = torch.tensor([1., 2.])
y = torch.tensor([0.5, 0.25])
(o1, o2), (t1, t2) = jvp(f, (x, y), (torch.ones(2), torch.zeros(2)))
print(o1, o2)
print(t1, t2)
out, jvp_fn = linearize(lambda a: (a ** 3).sum(dim=0), torch.tensor([[1., 2.], [3., 4.]]))
print(out)
print(jvp_fn(torch.ones(2, 2)))
print(jvp_fn(torch.tensor([[1., 0.], [0., 0.]])))
