import torch
import torch.nn as nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, mean=0, std=0.01)
        nn.init.zeros_(m.bias)
net.apply(init_weights)
print(net[0].weight.data[0], net[0].bias.data[0])
net[2].weight.data.fill_(1)
print(net[2].weight)
print(net[0].state_dict().keys())
