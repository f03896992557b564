import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(3, 2)
print(lin)
print(lin.weight)
print(lin.bias)
p = nn.Parameter(torch.zeros(2))
print(p, p.requires_grad, isinstance(p, torch.Tensor))
print(type(p).__name__)
