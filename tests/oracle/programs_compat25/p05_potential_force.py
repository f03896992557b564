import torch
def lennard_jones(r, eps=1.0, sigma=1.0):
    return 4 * eps * ((sigma / r) ** 12 - (sigma / r) ** 6)
pos = torch.tensor([[0., 0., 0.], [1.2, 0., 0.], [0., 1.1, 0.]], requires_grad=True)
energy = 0.
for i in range(3):
    for j in range(i + 1, 3):
        r = (pos[i] - pos[j]).norm()
        energy = energy + lennard_jones(r)
force = -torch.autograd.grad(energy, pos)[0]
print(energy)
print(force)
print(force.sum(dim=0).abs().max() < 1e-5)
