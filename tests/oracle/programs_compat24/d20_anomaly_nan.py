import torch
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = torch.sqrt(x) * 0
    print(y)
    z = y.sum()
    z.backward()
    print(x.grad)
