import torch
x = torch.tensor([-1., 0.5, 2.], requires_grad=True)
y = x * 2
torch.relu_(y)
y.sum().backward()
print(x.grad, y.grad_fn)
