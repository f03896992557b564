import torch
class AddOneInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 2
c = AddOneInplace.apply(b)
print(c, c is b, b.grad_fn)
(c * c).sum().backward()
print(a.grad)
AddOneInplace.apply(a)
