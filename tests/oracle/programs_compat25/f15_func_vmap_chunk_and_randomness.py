import torch
from torch.func import vmap
x = torch.arange(12.).reshape(4, 3)
print(vmap(lambda r: r.max(), chunk_size=2)(x))
print(vmap(torch.trace)(torch.arange(8.).reshape(2, 2, 2)))
print(vmap(vmap(torch.dot))(x.reshape(2, 2, 3), x.reshape(2, 2, 3)))
vmap(lambda r: r + torch.rand(3))(x)
