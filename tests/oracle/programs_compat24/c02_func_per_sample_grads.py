import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, vmap, grad
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return F.cross_entropy(predictions, targets)
ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
data = torch.randn(5, 4)
targets = torch.randint(0, 2, (5,))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
for name, g in ft_per_sample_grads.items():
    print(name, g.shape)
def manual(i):
    model.zero_grad()
    F.cross_entropy(model(data[i:i+1]), targets[i:i+1]).backward()
    return [p.grad.clone() for p in model.parameters()]
for i in range(5):
    for (name, g), m in zip(ft_per_sample_grads.items(), manual(i)):
        assert torch.allclose(g[i], m, atol=1e-6), name
print("per-sample grads match")
