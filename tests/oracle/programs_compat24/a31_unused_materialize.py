import torch
x = torch.tensor([1.0], requires_grad=True)
y = torch.tensor([2.0], requires_grad=True)
z = (x * 3).sum()
print(torch.autograd.grad(z, [x, y], allow_unused=True, materialize_grads=True))
