import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for i in range(3):
    y = (x * (i + 1)).sum()
    y.backward()
    print(i, x.grad)
x.grad.zero_()
(x ** 2).sum().backward()
print(x.grad)
x.grad = None
print(x.grad)
