import torch
from torch.autograd.function import once_differentiable
class Relu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * (x > 0).float()
x = torch.tensor([-1., 2.], requires_grad=True)
y = Relu.apply(x).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
print(g, g.requires_grad)
g.sum().backward()
