import torch
from torch.func import vmap, grad
class MyCube(torch.autograd.Function):
    generate_vmap_rule = True
    @staticmethod
    def forward(x):
        return x ** 3, 3 * x ** 2
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output[1])
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_output * dx + grad_dx * 6 * x
def cube(x):
    return MyCube.apply(x)[0]
x = torch.tensor([1., 2., 3.])
print(vmap(cube)(x))
print(grad(lambda t: cube(t).sum())(x))
print(vmap(grad(lambda t: cube(t)))(x))
