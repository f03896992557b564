import torch
import torch.nn as nn
torch.manual_seed(0)
m = nn.Linear(2, 1)
m(torch.ones(1, 2)).sum().backward()
print(m.weight.grad)
m.zero_grad()
print(m.weight.grad)
m(torch.ones(1, 2)).sum().backward()
m.zero_grad(set_to_none=False)
print(m.weight.grad)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
opt.zero_grad()
print(m.bias.grad)
