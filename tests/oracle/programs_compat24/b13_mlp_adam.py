import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
class MLP(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)
    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))
net = MLP(2, 8, 1)
print(net)
X = torch.randn(64, 2)
y = (X[:, :1] * X[:, 1:]).sin()
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for step in range(200):
    opt.zero_grad()
    loss = F.mse_loss(net(X), y)
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(step, round(loss.item(), 6))
print(sum(p.numel() for p in net.parameters()))
for name, p in net.named_parameters():
    print(name, tuple(p.shape), p.grad is not None)
