import torch
x = torch.tensor([1., 2.], requires_grad=True)
y1 = x * 3
y2 = x ** 2
torch.autograd.backward([y1, y2], [torch.tensor([1., 1.]), torch.tensor([0.5, 2.])])
print(x.grad)
gs = torch.autograd.grad([y1.sum(), y2.sum()], [x])
print(gs)
out = torch.autograd.grad(x * x, x, grad_outputs=torch.ones(2))
print(out)
