import torch
import torch.autograd.forward_ad as fwAD
class MySquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.x = x
        return x ** 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
    @staticmethod
    def jvp(ctx, x_t):
        return 2 * ctx.x * x_t
x = torch.tensor([1., 2., 3.], dtype=torch.double)
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.ones(3, dtype=torch.double))
    out = MySquare.apply(d)
    print(fwAD.unpack_dual(out).tangent)
xr = x.clone().requires_grad_()
print(torch.autograd.gradcheck(MySquare.apply, xr, check_forward_ad=True))
