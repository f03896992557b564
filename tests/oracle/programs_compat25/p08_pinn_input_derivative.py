import torch
import torch.nn as nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.linspace(0, 1, 5).reshape(-1, 1).requires_grad_(True)
u = net(x)
du = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
d2u = torch.autograd.grad(du, x, grad_outputs=torch.ones_like(du), create_graph=True)[0]
residual = d2u + u
loss = (residual ** 2).mean()
loss.backward()
print(du.shape, d2u.shape)
print(f"{loss.item():.6f}")
print(net[0].weight.grad.shape, net[2].bias.grad)
