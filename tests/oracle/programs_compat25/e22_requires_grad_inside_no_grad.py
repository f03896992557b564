import torch
with torch.no_grad():
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    with torch.enable_grad():
        c = a * 3
print(a.requires_grad, b.requires_grad, c.requires_grad)
print(c.grad_fn)
c.sum().backward()
print(a.grad)
