import torch
from torch.func import stack_module_state, functional_call, vmap, grad
import copy
torch.manual_seed(0)
models = [torch.nn.Linear(2, 1) for _ in range(3)]
params, buffers = stack_module_state(models)
base = copy.deepcopy(models[0]).to('meta')
def loss(p, b, x, y):
    return ((functional_call(base, (p, b), (x,)) - y) ** 2).mean()
x = torch.tensor([[1., 2.], [3., 4.]])
y = torch.tensor([[1.], [0.]])
g = vmap(grad(loss), in_dims=(0, 0, None, None))(params, buffers, x, y)
print(g['weight'].shape, g['bias'].shape)
m = models[1]
m.zero_grad()
((m(x) - y) ** 2).mean().backward()
print(torch.allclose(g['weight'][1], m.weight.grad), torch.allclose(g['bias'][1], m.bias.grad))
