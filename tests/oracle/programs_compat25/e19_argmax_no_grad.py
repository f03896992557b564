import torch
x = torch.tensor([0.2, 1.5, -0.3], requires_grad=True)
i = x.argmax()
print(i, i.requires_grad, i.dtype)
v, idx = x.max(dim=0)
print(v, idx)
v.backward()
print(x.grad)
i.float().backward()
