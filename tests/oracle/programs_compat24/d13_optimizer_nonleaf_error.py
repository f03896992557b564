import torch
w = torch.ones(2, requires_grad=True) * 2
opt = torch.optim.SGD([w], lr=0.1)
