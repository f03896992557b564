import torch
from torch.func import vmap
print(vmap(torch.mul)(torch.ones(3), torch.arange(3.)))
vmap(torch.mul)(torch.ones(3), torch.ones(4))
