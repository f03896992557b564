import torch
x = torch.tensor([1., 2.], requires_grad=True)
h = x * 4
out = (h ** 2).mean()
out.backward()
print(h.grad)
x.grad = None
h = x * 4
h.retain_grad()
(h ** 2).mean().backward()
print(h.grad, x.grad)
