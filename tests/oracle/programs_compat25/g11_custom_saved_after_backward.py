import torch
class Keep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 3
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3
x = torch.ones(2, requires_grad=True)
y = Keep.apply(x)
y.sum().backward(retain_graph=True)
y.sum().backward()
print(x.grad)
y.sum().backward()
