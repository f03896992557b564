import torch
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x * 2
n = 0
while y.data.norm() < 1000:
    y = y * 2
    n += 1
print(n)
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)
