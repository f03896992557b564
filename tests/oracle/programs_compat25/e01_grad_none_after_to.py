import torch
# "grad is None after": the leaf is the tensor before .double(), not after
w = torch.tensor([1., 2.], requires_grad=True).double()
print(w.is_leaf, w.grad_fn)
(w * w).sum().backward()
print(w.grad)
v = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
(v * v).sum().backward()
print(v.grad)
