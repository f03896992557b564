import torch
class SortWithIdx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return out, idx
    @staticmethod
    def backward(ctx, g, _):
        idx, = ctx.saved_tensors
        gx = torch.zeros_like(g)
        gx.index_add_(0, idx, g)
        return gx
x = torch.tensor([3., 1., 2.], requires_grad=True)
out, idx = SortWithIdx.apply(x)
print(out, idx, idx.requires_grad)
(out * torch.tensor([1., 2., 3.])).sum().backward()
print(x.grad)
