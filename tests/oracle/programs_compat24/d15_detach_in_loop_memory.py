import torch
h = torch.zeros(2)
w = torch.tensor([[0.5, -0.2], [0.1, 0.3]], requires_grad=True)
for t in range(3):
    h = torch.tanh(w @ h + 1)
    loss = h.sum()
    loss.backward()
    h = h.detach()
    print(t, w.grad)
