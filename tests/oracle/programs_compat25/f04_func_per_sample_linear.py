import torch
from torch.func import grad, vmap, functional_call
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
params = {k: v.detach() for k, v in model.named_parameters()}
def loss_fn(p, x, y):
    pred = functional_call(model, p, (x,))
    return ((pred - y) ** 2).mean()
xs = torch.randn(4, 3)
ys = torch.randn(4, 1)
per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, xs, ys)
print(per_sample['weight'].shape, per_sample['bias'].shape)
full = grad(loss_fn)(params, xs, ys)
print(torch.allclose(per_sample['weight'].mean(0), full['weight'], atol=1e-6))
print(torch.allclose(per_sample['bias'].mean(0), full['bias'], atol=1e-6))
