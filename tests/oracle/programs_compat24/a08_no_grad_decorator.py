import torch
@torch.no_grad()
def doubler(x):
    return x * 2
x = torch.ones(3, requires_grad=True)
z = doubler(x)
print(z.requires_grad)
@torch.enable_grad()
def tripler(x):
    return x * 3
with torch.no_grad():
    w = tripler(x)
print(w.requires_grad, w.grad_fn)
