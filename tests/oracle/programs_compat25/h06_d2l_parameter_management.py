import torch
from torch import nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
X = torch.rand(size=(2, 4))
print(net(X).shape)
print(net[2].state_dict().keys())
print(type(net[2].bias), net[2].bias.data)
print(net[2].weight.grad == None)
print([(name, param.shape) for name, param in net.named_parameters()])
shared = nn.Linear(8, 8)
net2 = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.Linear(8, 1))
net2(X)
print(net2[2].weight[0] == net2[4].weight[0])
net2[2].weight.data[0, 0] = 100
print(net2[2].weight.data[0] == net2[4].weight.data[0])
print(len(list(net2.parameters())))
