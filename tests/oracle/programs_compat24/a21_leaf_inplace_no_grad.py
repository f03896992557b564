import torch
w = torch.tensor([1., 2., 3.], requires_grad=True)
with torch.no_grad():
    w += 1
    w.mul_(2)
print(w)
print(w.is_leaf, w.grad_fn)
