"""Semantics of gradcli/autograd/function.py (custom autograd.Function classes (ctx,
save_for_backward, needs_input_grad, mark_dirty, non-differentiable outputs, setup_context)),
pinned by small programs and what real PyTorch 2.x printed for them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("custom_function_square", """
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * 2 * x

x = torch.tensor([3.0], requires_grad=True)
y = Square.apply(x)
print(repr(y))
print(y.grad_fn.name(), y.grad_fn.next_functions)
y.backward()
print(x.grad)
attempt(lambda: y.backward())
attempt(lambda: y.grad_fn.saved_tensors)
""")

program("custom_function_details", """
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        print("needs", ctx.needs_input_grad, torch.is_grad_enabled())
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k

class Both(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * 2, x + y

    @staticmethod
    def backward(ctx, g1, g2):
        print("grads", g1, g2)
        return g1 * 2 + g2, g2

class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 5

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Scale.apply(x, 3.0)
attempt(lambda: y.sum().backward())
u, v = Both.apply(x, torch.tensor([1.0, 1.0]))
print(u, v, u.grad_fn is v.grad_fn, u.output_nr, v.output_nr)
u.sum().backward()
print(x.grad)
i = Id.apply(x)
print(i is x, i, i.is_leaf)
with torch.no_grad():
    print(Scale.apply(x, 2.0))
print(Scale.apply(torch.tensor([1.0]), 2.0).requires_grad)
""")

program("custom_function_ctx_flags", """
class Dirty(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2

class NonDiff(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = x.sum()
        ctx.mark_non_differentiable(s)
        return x * 2, s

    @staticmethod
    def backward(ctx, g, gs):
        print("got", g, gs)
        return g * 2

class NoMaterialize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("got", g1, g2)
        return g1 * 2

a = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: Dirty.apply(a))
b = a * 1
c = Dirty.apply(b)
print(c is b, c)
c.sum().backward()
print(a.grad)
p, s = NonDiff.apply(a)
print(p, s, s.requires_grad)
p.sum().backward()
m, n = NoMaterialize.apply(a)
m.sum().backward()
""")

program("custom_function_setup_context", """
class Mul(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.k = k
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None

class WrongCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * 2, g

class NoBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

a = torch.tensor([1.0, 2.0], requires_grad=True)
y = Mul.apply(a, 3.0)
print(y)
y.sum().backward()
print(a.grad)
attempt(lambda: WrongCount.apply(a, 2).sum().backward())
attempt(lambda: NoBackward.apply(a).sum().backward())
""")


EXPECTED = {
    'custom_function_square': (
        'tensor([9.], grad_fn=<SquareBackward>)\n'
        'SquareBackward ((<AccumulateGrad object at 0x>, 0),)\n'
        'tensor([6.])\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.'
    ),
    'custom_function_details': (
        'needs (True, False) False\n'
        'RuntimeError: function ScaleBackward returned an incorrect number of gradients (expected 2, got 1)\n'
        'tensor([2., 4.], grad_fn=<BothBackward>) tensor([2., 3.], grad_fn=<BothBackward>) True 0 1\n'
        'grads tensor([1., 1.]) tensor([0., 0.])\n'
        'tensor([2., 2.])\n'
        'False tensor([1., 2.], grad_fn=<IdBackward>) False\n'
        'needs (True, False) False\n'
        'tensor([2., 4.])\n'
        'needs (False, False) False\n'
        'False'
    ),
    'custom_function_ctx_flags': (
        'RuntimeError: a leaf Variable that requires grad has been used in an in-place operation.\n'
        'True tensor([4., 8.], grad_fn=<DirtyBackward>)\n'
        'tensor([2., 2.])\n'
        'tensor([4., 8.], grad_fn=<NonDiffBackward>) tensor(6.) False\n'
        'got tensor([1., 1.]) tensor(0.)\n'
        'got tensor([1., 1.]) None'
    ),
    'custom_function_setup_context': (
        'tensor([3., 6.], grad_fn=<MulBackward>)\n'
        'tensor([3., 3.])\n'
        'RuntimeError: function WrongCountBackward returned a gradient different than None at position 2, but the corresponding forward input was not a Variable\n'
        'NotImplementedError: You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
