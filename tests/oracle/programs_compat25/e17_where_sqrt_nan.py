import torch
x = torch.tensor([-1., 0., 4.], requires_grad=True)
y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
y.sum().backward()
print(y, x.grad)
x.grad = None
safe = torch.where(x > 0, x, torch.ones_like(x))
y = torch.where(x > 0, torch.sqrt(safe), torch.zeros_like(x))
y.sum().backward()
print(x.grad)
