import torch
from torch.func import grad
grad(lambda x: x * 2)(torch.ones(3))
