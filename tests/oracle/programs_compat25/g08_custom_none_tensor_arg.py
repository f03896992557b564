import torch
class Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias
torch.manual_seed(0)
inp = (torch.randn(3, 4, dtype=torch.double, requires_grad=True),
       torch.randn(2, 4, dtype=torch.double, requires_grad=True))
print(torch.autograd.gradcheck(Linear.apply, inp, eps=1e-6, atol=1e-4))
x = torch.randn(3, 4, requires_grad=True)
w = torch.randn(2, 4, requires_grad=True)
b = torch.randn(2, requires_grad=True)
Linear.apply(x, w, b).sum().backward()
print(b.grad, w.grad.shape)
Linear.apply(x, w).sum().backward()
print(x.grad)
