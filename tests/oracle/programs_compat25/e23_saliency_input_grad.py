import torch
import torch.nn as nn
torch.manual_seed(2)
model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
img = torch.rand(1, 4, requires_grad=True)
scores = model(img)
idx = scores.argmax(dim=1).item()
scores[0, idx].backward()
saliency = img.grad.abs()
print(idx, scores.shape)
print(saliency)
print(model[0].weight.grad.shape)
