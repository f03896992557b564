import torch
import torch.nn as nn
torch.manual_seed(0)
X = torch.randn(30, 4)
y = torch.randint(0, 3, (30,))
model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
for epoch in range(50):
    logits = model(X)
    loss = loss_fn(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        acc = (logits.argmax(dim=1) == y).float().mean()
        print(f"epoch {epoch+1:3d} loss {loss.item():.4f} acc {acc.item():.3f}")
model.eval()
with torch.no_grad():
    print(model(X[:2]))
print(model.training, model[0].training)
