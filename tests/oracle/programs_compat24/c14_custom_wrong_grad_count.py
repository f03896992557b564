import torch
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.ones(2, requires_grad=True)
Bad.apply(x, torch.ones(2)).sum().backward()
