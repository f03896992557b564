import torch
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2
    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * 2 * x
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Square.apply, x))
print(torch.autograd.gradgradcheck(Square.apply, x))
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = result * 3 / x
        return result, dx
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result
def my_cube(x):
    result, dx = Cube.apply(x)
    return result
x = torch.tensor([1.5, 2.0], dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(my_cube, x))
print(torch.autograd.gradgradcheck(my_cube, x))
