import torch
import math
g = 9.81
v0 = 10.
theta = torch.tensor(0.3, requires_grad=True)
opt = torch.optim.SGD([theta], lr=0.01)
for step in range(50):
    opt.zero_grad()
    dist = v0 ** 2 * torch.sin(2 * theta) / g
    (-dist).backward()
    opt.step()
print(f"{theta.item():.4f}", f"{math.pi / 4:.4f}", f"{dist.item():.4f}")
