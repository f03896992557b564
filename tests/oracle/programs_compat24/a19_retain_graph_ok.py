import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
x.grad.zero_()
print(x.grad)
