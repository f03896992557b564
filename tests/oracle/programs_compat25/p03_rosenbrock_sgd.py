import torch
def rosenbrock(x, y, a=1., b=100.):
    return (a - x) ** 2 + b * (y - x ** 2) ** 2
p = torch.tensor([-1.5, 2.0], requires_grad=True)
opt = torch.optim.SGD([p], lr=1e-4, momentum=0.9)
for step in range(300):
    opt.zero_grad()
    loss = rosenbrock(p[0], p[1])
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(step, f"{loss.item():.5f}", p.detach())
print(p)
