import torch
x = torch.tensor([1.0], requires_grad=True)
y = x.detach()
z = y * 2
print(z.requires_grad, z.grad_fn)
z.backward()
