import torch
import torch.nn as nn
torch.manual_seed(0)
G = nn.Linear(2, 3)
D = nn.Sequential(nn.Linear(3, 1), nn.Sigmoid())
z = torch.randn(4, 2)
fake = G(z)
d_loss = -torch.log(1 - D(fake.detach())).mean()
d_loss.backward()
print(G.weight.grad, D[0].weight.grad is not None)
D.zero_grad()
g_loss = -torch.log(D(fake)).mean()
g_loss.backward()
print(G.weight.grad.shape, D[0].bias.grad)
