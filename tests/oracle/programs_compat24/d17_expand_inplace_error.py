import torch
a = torch.zeros(1, 3)
b = a.expand(2, 3)
b.add_(1)
