import torch
from torch import nn
torch.manual_seed(0)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
X = torch.normal(0, 1, (40, 2))
y = (X @ true_w + true_b).reshape(-1, 1)
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(3):
    for i in range(0, 40, 10):
        l = loss(net(X[i:i + 10]), y[i:i + 10])
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(X), y)
    print(f'epoch {epoch + 1}, loss {l:f}')
w = net[0].weight.data
print('error in estimating w:', true_w - w.reshape(true_w.shape))
b = net[0].bias.data
print('error in estimating b:', true_b - b)
