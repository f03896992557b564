import torch
class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return grad_out * result
x = torch.tensor(1., requires_grad=True, dtype=torch.double)
y = MyExp.apply(x)
gx, = torch.autograd.grad(y, x, create_graph=True)
print(gx)
ggx, = torch.autograd.grad(gx, x)
print(ggx)
print(torch.autograd.gradcheck(MyExp.apply, x))
print(torch.autograd.gradgradcheck(MyExp.apply, x))
