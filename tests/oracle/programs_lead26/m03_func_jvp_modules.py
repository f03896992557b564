import torch
torch.manual_seed(0)
import torch.func as ft
primal0 = torch.randn(10, 10)
tangent0 = torch.randn(10, 10)
primal1 = torch.randn(10, 10)
tangent1 = torch.randn(10, 10)
def fn(x, y):
    return x ** 2 + y ** 2
primal_out, tangent_out = ft.jvp(fn, (primal0, primal1), (tangent0, tangent1))
print(primal_out.shape, tangent_out.sum())
model = torch.nn.Linear(5, 5)
input = torch.randn(16, 5)
params = dict(model.named_parameters())
tangents = {name: torch.rand_like(p) for name, p in params.items()}
def func(params, input):
    return torch.func.functional_call(model, params, input)
_, jvp_out = ft.jvp(func, (params, input), (tangents, torch.zeros_like(input)))
print(jvp_out.shape)
