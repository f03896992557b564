import torch
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x, k)
        return x * k
    @staticmethod
    def backward(ctx, g):
        x, k = ctx.saved_tensors
        return g * k, None
Scale.apply(torch.ones(2, requires_grad=True), 3)
