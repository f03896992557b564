import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
activations = {}
def save(name):
    def hook(module, inp, out):
        activations[name] = out.detach()
    return hook
model[0].register_forward_hook(save("fc1"))
model[2].register_forward_hook(save("fc2"))
out = model(torch.ones(2, 3))
for k, v in activations.items():
    print(k, v.shape)
print(activations["fc2"])
