import random
import torch
torch.manual_seed(0)
random.seed(0)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
X = torch.normal(0, 1, (200, 2))
labels = (X @ true_w + true_b + torch.normal(0, 0.01, (200,))).reshape(-1, 1)
w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
indices = list(range(200))
for epoch in range(3):
    random.shuffle(indices)
    for i in range(0, 200, 20):
        idx = torch.tensor(indices[i:i + 20])
        l = ((X[idx] @ w + b - labels[idx]) ** 2 / 2).sum()
        l.backward()
        with torch.no_grad():
            for p in (w, b):
                p -= 0.03 * p.grad / 20
                p.grad.zero_()
    with torch.no_grad():
        print(f'epoch {epoch + 1}, loss {float(((X @ w + b - labels) ** 2 / 2).mean()):f}')
print(w.flatten(), b)
