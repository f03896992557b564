import torch
x = torch.tensor([0.5, 1.5], requires_grad=True)
y = x.exp()
y.add_(1)
y.sum().backward()
