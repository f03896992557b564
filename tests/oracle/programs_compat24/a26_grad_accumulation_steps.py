import torch
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
data = torch.randn(8, 3)
target = torch.randn(8)
accum = 4
for i in range(8):
    pred = (data[i] * w).sum()
    loss = (pred - target[i]) ** 2 / accum
    loss.backward()
    if (i + 1) % accum == 0:
        with torch.no_grad():
            w -= 0.1 * w.grad
        print(i, w.grad)
        w.grad.zero_()
print(w)
