import torch
a = torch.tensor([1., 2.], requires_grad=True)
b = a.exp()
c = b.sum()
c.backward()
print(a.grad)
d = (b * 2).sum()
d.backward()
