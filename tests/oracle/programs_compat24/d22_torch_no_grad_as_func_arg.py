import torch
model = torch.nn.Linear(2, 2)
with torch.no_grad():
    for p in model.parameters():
        p.fill_(0.5)
print(model(torch.tensor([[1., 2.]])))
print(model.weight.requires_grad)
