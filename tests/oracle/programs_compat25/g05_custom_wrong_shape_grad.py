import torch
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return torch.ones(3)
x = torch.ones(2, requires_grad=True)
Bad.apply(x).sum().backward()
