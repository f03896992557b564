import torch
a = torch.tensor([1., 2., 3.], requires_grad=True)
b = a[:2]
b.mul_(2)
