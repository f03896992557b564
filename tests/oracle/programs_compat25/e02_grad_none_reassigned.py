import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
x = x * 2
y = (x ** 2).sum()
y.backward()
print(x.grad)
print(x.is_leaf, x.requires_grad)
