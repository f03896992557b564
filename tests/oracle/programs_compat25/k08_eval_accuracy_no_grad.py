import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
X = torch.randn(16, 3)
y = (X[:, 0] > 0).long()
opt = torch.optim.SGD(model.parameters(), lr=0.3)
for epoch in range(20):
    model.train()
    opt.zero_grad()
    out = model(X)
    loss = nn.functional.cross_entropy(out, y)
    loss.backward()
    opt.step()
model.eval()
with torch.no_grad():
    preds = model(X).argmax(dim=1)
    acc = (preds == y).sum().item() / len(y)
print(f"loss={loss.item():.4f} acc={acc:.3f}")
print(preds.requires_grad)
