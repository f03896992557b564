import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
for p in model[0].parameters():
    p.requires_grad = False
out = model(torch.randn(4, 3)).sum()
out.backward()
print(model[0].weight.grad, model[2].weight.grad is None)
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
print(trainable)
