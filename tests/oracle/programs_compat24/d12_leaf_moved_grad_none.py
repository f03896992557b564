import torch
w = torch.randn(2, 2, requires_grad=True) * 0.01
print(w.is_leaf)
loss = (w ** 2).sum()
loss.backward()
print(w.grad)
w2 = (torch.randn(2, 2) * 0.01).requires_grad_()
print(w2.is_leaf)
