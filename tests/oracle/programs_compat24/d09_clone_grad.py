import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x.clone()
print(y.grad_fn, y.is_leaf)
(y * y).sum().backward()
print(x.grad)
