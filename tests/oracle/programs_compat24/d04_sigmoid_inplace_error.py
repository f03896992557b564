import torch
x = torch.tensor([-1., 0.5, 2.], requires_grad=True)
y = torch.sigmoid(x)
y += 1
y.sum().backward()
