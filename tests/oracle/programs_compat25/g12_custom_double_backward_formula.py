import torch
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y
    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * (1 - y * y)
x = torch.tensor([0.3, -0.7], dtype=torch.double, requires_grad=True)
y = Tanh.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
gg, = torch.autograd.grad(g.sum(), x)
print(g)
print(gg)
print(torch.allclose(gg, -2 * torch.tanh(x) * (1 - torch.tanh(x) ** 2)))
print(torch.autograd.gradgradcheck(Tanh.apply, (x,)))
