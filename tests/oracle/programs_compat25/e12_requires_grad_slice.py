import torch
w = torch.zeros(4, requires_grad=True)
s = w[1:3]
print(s.requires_grad, s.is_leaf, s.grad_fn)
(s * torch.tensor([2., 3.])).sum().backward()
print(w.grad)
mask = torch.tensor([True, False, True, False])
w.grad = None
(w[mask] ** 2 + 1).sum().backward()
print(w.grad)
