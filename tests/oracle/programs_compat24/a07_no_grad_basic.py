import torch
x = torch.tensor([1., 2.], requires_grad=True)
print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    y = x ** 2
    print(y.requires_grad)
    print(y.grad_fn)
print(torch.is_grad_enabled())
