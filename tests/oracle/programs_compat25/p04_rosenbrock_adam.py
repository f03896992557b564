import torch
x = torch.tensor([0.0, 0.0], requires_grad=True)
opt = torch.optim.Adam([x], lr=0.05)
def f(v):
    return (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2
for i in range(200):
    opt.zero_grad()
    loss = f(x)
    loss.backward()
    opt.step()
print(f"{f(x).item():.4f}", x.detach().round(decimals=2))
print(opt.state[x]['step'], opt.state[x]['exp_avg'].shape)
