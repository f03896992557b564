import torch
a = torch.tensor([1., 2., 3., 4.], requires_grad=True)
b = a * 1
v = b[1:3]
v.mul_(10)
print(b, b.grad_fn)
b.sum().backward()
print(a.grad)
