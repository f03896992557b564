import torch
from torch.autograd.functional import vhp, hvp, vjp, jvp
def pow_reducer(x):
    return x.pow(3).sum()
x = torch.tensor([[1., 2.], [0.5, -1.]])
v = torch.ones(2, 2)
print(vhp(pow_reducer, x, v))
print(hvp(pow_reducer, x, v))
out, jv = jvp(lambda a: a.exp().sum(dim=1), x, v)
print(out, jv)
out, vj = vjp(lambda a: a.exp().sum(dim=1), x, torch.tensor([1., 0.]))
print(vj)
print(hvp(pow_reducer, x, v, create_graph=True)[1].requires_grad)
