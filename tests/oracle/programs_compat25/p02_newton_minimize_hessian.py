import torch
from torch.autograd.functional import hessian
def rosen(v):
    return (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2
x = torch.tensor([-1.2, 1.0], dtype=torch.float64)
for it in range(8):
    xr = x.clone().requires_grad_(True)
    f = rosen(xr)
    g, = torch.autograd.grad(f, xr)
    H = hessian(rosen, x)
    step = torch.linalg.solve(H, g)
    x = x - step
    print(it, f"{f.item():.6e}", x.tolist())
