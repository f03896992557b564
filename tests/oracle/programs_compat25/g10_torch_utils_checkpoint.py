import torch
from torch.utils.checkpoint import checkpoint
def block(t):
    return torch.sin(t) * t
x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
y = checkpoint(block, x, use_reentrant=False)
y.sum().backward()
print(y)
print(x.grad)
