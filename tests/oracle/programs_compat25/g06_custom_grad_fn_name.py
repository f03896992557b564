import torch
class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input
x = torch.tensor([-1., 0.5, 2.], requires_grad=True)
y = MyReLU.apply(x)
print(y)
print(type(y.grad_fn).__name__, y.grad_fn.name())
print(y.grad_fn.next_functions)
(y * 3).sum().backward()
print(x.grad)
