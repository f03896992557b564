import torch
import torch.nn as nn
torch.manual_seed(0)
m = nn.Linear(3, 2)
(m(torch.randn(5, 3)) * 10).sum().backward()
total = torch.nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0)
print(total)
print(m.weight.grad.norm(), m.bias.grad)
