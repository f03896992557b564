import torch
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * 2
b.retain_grad()
c = (b ** 2).sum()
c.backward()
print(a.grad, b.grad)
print(b.retains_grad, a.retains_grad)
