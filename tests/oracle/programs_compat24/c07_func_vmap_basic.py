import torch
from torch.func import vmap
batch = torch.arange(12.).reshape(3, 4)
print(vmap(torch.dot)(batch, batch))
print(vmap(lambda r: r.sum(), in_dims=1)(batch))
print(vmap(lambda a, b: a * b, in_dims=(0, None))(batch, torch.tensor([1., 0., 1., 0.])))
print(vmap(torch.outer, out_dims=1)(batch[:, :2], batch[:, 2:]).shape)
