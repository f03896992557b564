import torch
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
opt = torch.optim.SGD([a, b], lr=0.5)
loss = (a * 2).sum()
loss.backward()
print(a.grad, b.grad)
opt.step()
print(a, b)
