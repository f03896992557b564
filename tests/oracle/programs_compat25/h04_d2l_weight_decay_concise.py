import torch
from torch import nn
torch.manual_seed(0)
X = torch.randn(20, 5)
y = X.sum(dim=1, keepdim=True) * 0.01 + 0.05
net = nn.Sequential(nn.Linear(5, 1))
for param in net.parameters():
    param.data.normal_()
loss = nn.MSELoss(reduction='none')
trainer = torch.optim.SGD([
    {"params": net[0].weight, 'weight_decay': 3},
    {"params": net[0].bias}], lr=0.01)
for epoch in range(5):
    trainer.zero_grad()
    l = loss(net(X), y)
    l.mean().backward()
    trainer.step()
print('w L2 norm:', net[0].weight.norm().item())
print(len(trainer.param_groups), trainer.param_groups[0]['weight_decay'], trainer.param_groups[1]['weight_decay'])
