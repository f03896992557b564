import torch
from torch.autograd.functional import jacobian
t = torch.linspace(0, 2, 8, dtype=torch.float64)
y = 2.0 * torch.exp(-1.3 * t)
def residual(theta):
    return theta[0] * torch.exp(theta[1] * t) - y
theta = torch.tensor([1.0, -0.5], dtype=torch.float64)
for it in range(6):
    r = residual(theta)
    J = jacobian(residual, theta)
    delta = torch.linalg.solve(J.T @ J, J.T @ r)
    theta = theta - delta
    print(it, f"{(r ** 2).sum().item():.3e}", [round(v, 6) for v in theta.tolist()])
