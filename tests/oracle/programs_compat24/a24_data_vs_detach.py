import torch
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
h = w.exp()
alias = h.data
alias.mul_(0)
print(h, h.requires_grad, alias.requires_grad)
h.sum().backward()
print(w.grad)
w.data = torch.tensor([1.0, 1.0, 1.0])
print(w, w.is_leaf, w.grad)
w2 = torch.tensor([0.5, -1.0], requires_grad=True)
h2 = w2.exp()
h2.detach().add_(5)
h2.sum().backward()
