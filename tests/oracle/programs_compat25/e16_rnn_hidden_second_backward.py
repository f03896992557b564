import torch
torch.manual_seed(0)
W = torch.randn(3, 3, requires_grad=True)
h = torch.zeros(3)
for step in range(3):
    h = torch.tanh(W @ h + 1.0)
    loss = h.pow(2).sum()
    print(step, loss.item())
    loss.backward()
