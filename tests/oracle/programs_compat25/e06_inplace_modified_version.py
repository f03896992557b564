import torch
w = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
x = torch.tensor([[1., 0.], [0., 1.]], requires_grad=True)
y = w @ x
z = y.relu()
x.data[0, 0] = 5.
y2 = torch.sigmoid(y)
y2 *= 2
print(z.sum(), y2)
y2.sum().backward()
