import torch
class MulConst(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant
    @staticmethod
    def backward(ctx, grad_output):
        print("needs", ctx.needs_input_grad)
        return grad_output * ctx.constant, None
x = torch.tensor([1., 2.], requires_grad=True)
y = MulConst.apply(x, 5.0)
print(y)
y.sum().backward()
print(x.grad)
