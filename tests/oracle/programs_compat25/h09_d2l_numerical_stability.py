import torch
x = torch.arange(-8.0, 8.0, 1.0, requires_grad=True)
y = torch.sigmoid(x)
y.backward(torch.ones_like(x))
print(x.grad)
torch.manual_seed(0)
M = torch.normal(0, 1, size=(4, 4))
print('a single matrix \n', M)
for i in range(100):
    M = M @ torch.normal(0, 1, size=(4, 4))
print('after multiplying 100 matrices\n', M)
