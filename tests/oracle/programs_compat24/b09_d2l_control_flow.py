import torch
def g(a):
    b = a * 3
    steps = 0
    while b.abs().max() < 500:
        b = b * 3
        steps += 1
    c = b if b.sum() > 0 else -50 * b
    return c, steps
torch.manual_seed(7)
a = torch.randn(size=(), requires_grad=True)
d, steps = g(a)
d.backward()
print(steps, a.grad == d / a, a.grad)
a = torch.randn(size=(2, 2), requires_grad=True)
d, steps = g(a)
d.sum().backward()
print(steps, a.grad)
