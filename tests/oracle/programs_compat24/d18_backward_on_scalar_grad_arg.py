import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
y.backward(torch.tensor(2.))
print(x.grad)
y2 = x * 3
y2.backward(torch.ones(3))
