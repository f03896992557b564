import torch
x = torch.tensor([1., -2., 3.], requires_grad=True)
y = torch.exp(x)
z = y.clone()
z[0] = 0.
loss = (z * y).sum()
loss.backward()
print(x.grad)
print(z.grad_fn, z._version, y._version)
