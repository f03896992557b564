import torch
w = torch.zeros(4, requires_grad=True)
s = w[1:3]
s.requires_grad_(False)
