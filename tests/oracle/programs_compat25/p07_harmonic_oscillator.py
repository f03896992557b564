import torch
k, m, dt = 4.0, 1.0, 0.1
q = torch.tensor(1.0, requires_grad=True)
p = torch.tensor(0.0, requires_grad=True)
def hamiltonian(q, p):
    return p ** 2 / (2 * m) + 0.5 * k * q ** 2
for step in range(5):
    H = hamiltonian(q, p)
    dHdq, dHdp = torch.autograd.grad(H, (q, p))
    with torch.no_grad():
        p = p - dt * dHdq
        q = q + dt * p / m
    q.requires_grad_(True)
    p.requires_grad_(True)
    print(step, f"{q.item():.5f}", f"{p.item():.5f}", f"{H.item():.5f}")
