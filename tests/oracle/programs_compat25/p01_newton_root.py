import torch
def f(x):
    return x ** 3 - 2 * x - 5
x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
for i in range(6):
    y = f(x)
    dy, = torch.autograd.grad(y, x)
    with torch.no_grad():
        x -= y / dy
    print(i, f"{x.item():.12f}", f"{f(x).item():.3e}")
