import torch
class TooMany(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x + 1
    @staticmethod
    def backward(ctx, g):
        return g, g
x = torch.ones(2, requires_grad=True)
TooMany.apply(x).sum().backward()
