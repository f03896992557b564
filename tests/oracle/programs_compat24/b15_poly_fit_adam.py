import torch
torch.manual_seed(0)
x = torch.linspace(-1, 1, 50)
y = 1 - 2 * x + 0.5 * x ** 3
coeffs = torch.zeros(4, requires_grad=True)
opt = torch.optim.Adam([coeffs], lr=0.1)
powers = torch.stack([x ** i for i in range(4)], dim=1)
for step in range(1, 301):
    opt.zero_grad()
    pred = powers @ coeffs
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    opt.step()
    if step % 60 == 0:
        print(step, f"{loss.item():.6f}", coeffs.detach().numpy().round(3))
print(coeffs)
