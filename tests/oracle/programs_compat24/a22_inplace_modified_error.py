import torch
a = torch.tensor([1., 2., 3.], requires_grad=True)
b = a.sigmoid()
c = b ** 2
b.mul_(2)
c.sum().backward()
