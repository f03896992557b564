import torch
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone(), x.clone()
    @staticmethod
    def backward(ctx, g1, g2):
        print("g1", g1, "g2", g2)
        out = torch.zeros(2)
        if g1 is not None:
            out = out + g1
        if g2 is not None:
            out = out + 2 * g2
        return out
x = torch.tensor([1., 2.], requires_grad=True)
a, b = Split.apply(x)
a.sum().backward()
print(x.grad)
class Split2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone(), x.clone()
    @staticmethod
    def backward(ctx, g1, g2):
        print("g2 materialized", g2)
        return g1 + g2
x.grad = None
a, b = Split2.apply(x)
a.sum().backward()
print(x.grad)
