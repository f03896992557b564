import torch
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * 2
c = b.sum()
c.backward()
print(a.grad)
print(b.grad)
print(b.is_leaf)
