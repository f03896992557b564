"""Semantics of gradcli/engine/torch_classes.py (the classes PyTorch's objects show (type(grad_fn),
Node, Function, FunctionCtx)), pinned by small programs and what real PyTorch 2.x printed for
them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("class_reprs", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * 3).sum()
print(type(y.grad_fn), y.grad_fn.__class__, type(y.grad_fn.next_functions[0][0]))
print(type(y.grad_fn.next_functions[0][0].next_functions[0][0]))
print(torch.autograd.Function, torch.autograd.graph.Node)
print(isinstance(y.grad_fn, torch.autograd.graph.Node))

class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2

z = Twice.apply(x)
print(type(z.grad_fn), z.grad_fn, f"{type(z.grad_fn)}")
print(type(x), type(x.shape), type(x.dtype), type(x.device))
print(type(x.register_hook(lambda g: None)))
print(torch.autograd.function.FunctionCtx, torch.autograd.function.BackwardCFunction)
""")


EXPECTED = {
    'class_reprs': (
        "<class 'SumBackward0'> <class 'SumBackward0'> <class 'MulBackward0'>\n"
        "<class 'AccumulateGrad'>\n"
        "<class 'torch.autograd.function.Function'> <class 'torch.autograd.graph.Node'>\n"
        'True\n'
        "<class 'torch.autograd.function.TwiceBackward'> <torch.autograd.function.TwiceBackward object at 0x> <class 'torch.autograd.function.TwiceBackward'>\n"
        "<class 'torch.Tensor'> <class 'torch.Size'> <class 'torch.dtype'> <class 'torch.device'>\n"
        "<class 'torch.utils.hooks.RemovableHandle'>\n"
        "<class 'torch.autograd.function.FunctionCtx'> <class 'torch.autograd.function.BackwardCFunction'>"
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
