import torch
from torch.autograd.functional import hessian
def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()
inputs = (torch.tensor([1., 2.]), torch.tensor([3., 4.]))
h = hessian(pow_adder_reducer, inputs)
print(type(h).__name__, len(h), len(h[0]))
print(h[0][0])
print(h[1][1])
print(h[0][1])
def rosen(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
print(hessian(rosen, torch.tensor([1., 1.])))
