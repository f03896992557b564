import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3))
x = torch.rand(2, 4)
target = torch.tensor([0, 2])
x_adv = x.clone().requires_grad_(True)
loss = F.cross_entropy(model(x_adv), target)
loss.backward()
eps = 0.1
perturbed = x_adv + eps * x_adv.grad.sign()
perturbed = torch.clamp(perturbed, 0, 1)
print(x_adv.grad.sign())
with torch.no_grad():
    print(F.cross_entropy(model(perturbed), target) > loss)
print(perturbed.requires_grad, perturbed.grad_fn)
