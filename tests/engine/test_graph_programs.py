"""Engine semantics (SPEC section 1), pinned by small programs and what real PyTorch 2.x printed
for them: values, gradients, grad_fn names, reprs, and every error and warning text.

Each program runs with `torch` bound to gradcli; `attempt(fn)` prints the error fn raises.  The
expected outputs were produced by running the same programs against torch 2.13;
test_oracle_semantics.py re-runs them against an installed torch.
"""

import re
import sys
import warnings

import numpy as np
import pytest

import gradcli

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def run_program(torch_module, source):
    """Run a program against a torch-like module; return what it printed, the warnings it
    raised and the error it ended with, one line each, object addresses removed."""
    lines = []

    def emit(*args, sep=" ", end="\n"):
        lines.append(sep.join(str(a) for a in args))

    def attempt(fn):
        try:
            fn()
        except Exception as e:  # the program pins the error text
            lines.append(f"{type(e).__name__}: {e}")

    def show(message, category, filename, lineno, file=None, line=None):
        lines.append(f"{category.__name__}: {message}".split("\n")[0])

    env = {"torch": torch_module, "np": np, "print": emit, "attempt": attempt}
    saved = {name: sys.modules.get(name) for name in _submodule_names()}
    _alias_modules(torch_module)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.showwarning = show
        try:
            exec(compile(source, "<program>", "exec"), env)
        except Exception as e:
            lines.append(f"{type(e).__name__}: {e}")
        finally:
            for name, module in saved.items():
                if module is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
    return _ADDRESS.sub(" at 0x", "\n".join(lines))


def _submodule_names():
    return ["torch", "torch.autograd", "torch.autograd.forward_ad", "torch.autograd.functional"]


def _alias_modules(torch_module):
    """`import torch...` inside a program imports the module under test."""
    sys.modules["torch"] = torch_module
    sys.modules["torch.autograd"] = torch_module.autograd
    sys.modules["torch.autograd.forward_ad"] = torch_module.autograd.forward_ad
    sys.modules["torch.autograd.functional"] = torch_module.autograd.functional


PROGRAMS = {}


REQUIRES = {}  # program -> Tensor attributes it needs beyond the engine core


def program(name, source, requires=()):
    PROGRAMS[name] = source
    if requires:
        REQUIRES[name] = requires


program("leaf_members", """
x = torch.tensor(np.array([1.0, 2.0]), requires_grad=True)
print(repr(x))
a = torch.tensor(1.0)
print((a.requires_grad, a.grad, a.grad_fn, a.is_leaf))
a.requires_grad = True
print(repr(a))
print(a.requires_grad_(False) is a, a.requires_grad)
""")

program("grad_fn_and_next_functions", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
z = x * y + x
print(z.grad_fn.name(), z.grad_fn)
(m, i), (acc, j) = z.grad_fn.next_functions
print(m.name(), i, acc.name(), j, acc.variable is x)
print(m.next_functions)
print(m.next_functions[0][0] is acc)
c = torch.tensor([1.0, 2.0])
w = x * c
print(w.grad_fn.next_functions)
print(x.grad_fn, x.is_leaf, z.is_leaf, z.requires_grad)
""")

program("retain_grad", """
x = torch.tensor([2.0], requires_grad=True)
y = x ** 2
print(y.retains_grad, x.retains_grad)
y.retain_grad()
z = y * 3
z.backward()
print(y.grad, y.retains_grad, x.grad)
c = torch.tensor([1.0])
attempt(lambda: c.retain_grad())
x.retain_grad()
print(x.retains_grad)
""")

program("nonleaf_grad_warning", """
x = torch.tensor([2.0], requires_grad=True)
y = x ** 2
z = y + 1
z.backward()
print(x.grad)
print(y.grad)
""")

program("requires_grad_errors", """
attempt(lambda: torch.tensor([1, 2]).requires_grad_())
i = torch.tensor([1, 2])
attempt(lambda: setattr(i, "requires_grad", True))
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
attempt(lambda: y.requires_grad_(False))
print(y.requires_grad_(True) is y)
b = torch.tensor([True]).requires_grad_(False)
print(b.requires_grad)
""")

program("detach_and_data", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
d = y.detach()
print(repr(d), d.requires_grad, d.grad_fn, d.is_leaf)
d.mul_(10)
print(y)
y2 = x * 3
y2.detach_()
print(repr(y2), y2.is_leaf, y2.grad_fn)
print(repr(x.data), x.data.requires_grad)
x.data.mul_(2)
print(x)
x.data = torch.tensor([5.0, 6.0])
print(x)
""")

program("conversions_to_python", """
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
print(x.sum().item(), type(x.sum().item()).__name__)
print(x.tolist())
attempt(lambda: x.item())
attempt(lambda: x.numpy())
attempt(lambda: np.asarray(x))
print(repr(x.detach().numpy()))
print(repr(np.asarray(x.detach())))
print(repr(torch.tensor([1, 2]).numpy()))
print(float(torch.tensor(2.5)), int(torch.tensor(3.7)))
""")

program("metadata", """
x = torch.zeros(2, 3)
print(x.size(), x.shape, x.dim(), x.numel(), x.dtype, x.size(1), x.size(-1), x.ndim)
print(x.shape[0], len(x), x.T.shape)
print(x.float().dtype, x.double().dtype, torch.tensor([1, 2]).float())
attempt(lambda: x.size(2))
""", requires=("T",))

program("default_dtype", """
print(torch.get_default_dtype(), torch.tensor([1.0, 2.0]).dtype, torch.tensor([1, 2]).dtype)
print(torch.tensor([True]).dtype, torch.ones(2).dtype, torch.tensor(np.array([1.0])).dtype)
torch.set_default_dtype(torch.float64)
try:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    print(repr(x), torch.get_default_dtype())
    print(repr(x * 2))
    print(repr(torch.tensor([1.0], dtype=torch.float32)))
finally:
    torch.set_default_dtype(torch.float32)
print(torch.get_default_dtype())
""")

program("type_promotion", """
i = torch.tensor([1, 2])
f = torch.tensor([1.0, 2.0])
d = torch.tensor([1.0, 2.0], dtype=torch.float64)
print((i + 1).dtype, (i + 1.5).dtype, (i / 2).dtype, (i * f).dtype, (f * d).dtype)
print((f + torch.tensor(3.0, dtype=torch.float64)).dtype, (i + torch.tensor(3.0)).dtype)
print((torch.tensor([True, False]) + 1).dtype, (f + np.float64(2.0)).dtype)
print(repr(i + 1.5), repr(f * d))
print((torch.tensor(2) * 2.5).dtype, (2.5 * i).dtype, (f + True).dtype)
""")

program("backward_gradient_vectors", """
x = torch.tensor([1.0, 2.0, 8.0], requires_grad=True)
y = torch.tensor([5.0, 1.0, 7.0], requires_grad=True)
z = x * y
attempt(lambda: z.backward())
z.backward(torch.tensor([1.0, 0.0, 0.5]))
print(x.grad, y.grad)
z = x * y
attempt(lambda: z.backward(torch.tensor([1.0, 1.0])))
attempt(lambda: torch.tensor([1.0]).backward())
s = (x * 2).sum()
s.backward(torch.tensor(2.0))
print(x.grad)
""")

program("retain_graph_and_backward_twice", """
x = torch.tensor([2.0], requires_grad=True)
y = x ** 2
y.backward(retain_graph=True)
y.backward()
print(x.grad)
attempt(lambda: y.backward())
for make in [lambda: x * x, lambda: x.exp(), lambda: x ** 3, lambda: x.sin(), lambda: x / x]:
    out = make()
    out.backward()
    attempt(lambda: out.backward())
for make in [lambda: x + x, lambda: x * 2, lambda: x - 1, lambda: -x, lambda: x + 1, lambda: x * x.detach()]:
    out = make().sum()
    out.backward()
    attempt(lambda: out.backward())
    print(out.grad_fn.next_functions[0][0].name(), "second backward done")
print(x.grad)
""")

program("create_graph_higher_order", """
x = torch.tensor([2.0], requires_grad=True)
y = x ** 3
g, = torch.autograd.grad(y, x, create_graph=True)
print(g)
g2, = torch.autograd.grad(g, x, create_graph=True)
print(g2)
g3, = torch.autograd.grad(g2, x)
print(g3)
x.grad = None
y = x ** 4
y.backward(create_graph=True)
print(x.grad)
x.grad.backward()
print(x.grad)
""")

program("backward_inputs", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = (x * w).sum()
y.backward(inputs=[x])
print(x.grad, w.grad)
h = x * 2
z = (h * w).sum()
z.backward(inputs=[h])
print(h.grad, w.grad)
attempt(lambda: (x * 2).sum().backward(inputs=[]))
""")

program("autograd_grad", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
out = (x ** 2).sum()
print(torch.autograd.grad(out, x, retain_graph=True))
attempt(lambda: torch.autograd.grad(out, [x, y], retain_graph=True))
print(torch.autograd.grad(out, [x, y], allow_unused=True, retain_graph=True))
print(torch.autograd.grad(out, [x, y], allow_unused=True, materialize_grads=True))
print(x.grad)
v = x * 3
print(torch.autograd.grad(v, x, grad_outputs=torch.tensor([1.0, 0.5])))
attempt(lambda: torch.autograd.grad((x * 2).sum(), torch.tensor([1.0])))
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
torch.autograd.backward([a * b, a + b], [torch.tensor(1.0), torch.tensor(2.0)])
print(a.grad, b.grad)
attempt(lambda: torch.autograd.backward(torch.tensor(1.0)))
""")

program("accumulation_and_reset", """
x = torch.tensor([2.0], requires_grad=True)
(x ** 2).backward()
(x ** 2).backward()
print(x.grad)
print(x.grad.zero_())
(x * 3).backward()
print(x.grad)
x.grad.data.zero_()
print(x.grad)
x.grad = None
(x * 5).backward()
print(x.grad)
g = x.grad
(x * 1).backward()
print(g is x.grad, g)
attempt(lambda: setattr(x, "grad", torch.tensor([1.0, 2.0])))
attempt(lambda: setattr(x, "grad", torch.tensor([1.0], dtype=torch.float64)))
""", requires=("fill_",))

program("grad_modes", """
x = torch.tensor([2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
    print(y.requires_grad, torch.is_grad_enabled())
    with torch.enable_grad():
        z = x * 3
print(z.requires_grad, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((x * 2).requires_grad)
torch.set_grad_enabled(True)
with torch.inference_mode():
    print((x * 2).requires_grad)
with torch.inference_mode(False):
    print((x * 2).requires_grad)

@torch.no_grad()
def doubled(t):
    return t * 2

@torch.enable_grad()
def tripled(t):
    return t * 3

print(doubled(x).requires_grad)
with torch.no_grad():
    print(tripled(x).requires_grad)
print(torch.is_grad_enabled())
""")

program("hooks", """
def double_grad(grad):
    print(f"hook saw {grad}")
    return grad * 2

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x.register_hook(double_grad)
(x ** 2).sum().backward()
print(x.grad)
h.remove()
x.grad = None
(x ** 2).sum().backward()
print(x.grad)
x.grad = None
y = x * 2
y.register_hook(lambda g: print("non-leaf hook", g))
y.register_hook(lambda g: g * 10)
y.sum().backward()
print(x.grad)
attempt(lambda: torch.tensor([1.0]).register_hook(lambda g: g))
""")

program("hook_return_checks", """
def backward_with_hook(leaf, ret):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = x * 1
    (x if leaf else w).register_hook(ret)
    attempt(lambda: w.sum().backward())
    return x.grad

for leaf in (False, True):
    backward_with_hook(leaf, lambda g: 5)
    backward_with_hook(leaf, lambda g: 2.0)
    backward_with_hook(leaf, lambda g: [g])
    backward_with_hook(leaf, lambda g: np.ones(2))
    backward_with_hook(leaf, lambda g: torch.ones(3))
    backward_with_hook(leaf, lambda g: torch.ones(2, 1))
    backward_with_hook(leaf, lambda g: torch.ones(2, dtype=torch.float64))
    backward_with_hook(leaf, lambda g: torch.ones(2, dtype=torch.int64))
    backward_with_hook(leaf, lambda g: torch.ones(2, dtype=torch.bool))
    backward_with_hook(leaf, lambda g: torch.ones(2, dtype=torch.complex64))
    print(backward_with_hook(leaf, lambda g: g * 3))

def grow(g):
    return torch.ones(3)

class Hook:
    def __call__(self, g):
        return torch.ones(3)

backward_with_hook(False, grow)
backward_with_hook(True, Hook())
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = x * 1
w.register_hook(lambda g: None)
w.register_hook(lambda g: 5)
attempt(lambda: torch.autograd.grad(w.sum(), x))
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.register_hook(lambda g: torch.ones(3))
attempt(lambda: torch.autograd.grad((x * 1).sum(), x))

def node_hook(pre, ret):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    w = x * y
    if pre:
        w.grad_fn.register_prehook(ret)
    else:
        w.grad_fn.register_hook(ret)
    attempt(lambda: w.sum().backward())
    return x.grad

for pre in (True, False):
    node_hook(pre, lambda *a: 5)
    node_hook(pre, lambda *a: [torch.ones(2)])
    node_hook(pre, lambda *a: (torch.ones(2),) * 3)
    node_hook(pre, lambda *a: (5, None))
    node_hook(pre, lambda *a: (torch.ones(3), None))
    node_hook(pre, lambda *a: (torch.ones(2, dtype=torch.float64), None))
    print(node_hook(pre, lambda *a: (None, None)[:1 if pre else 2]))
    print(node_hook(pre, lambda *a: (a[0][0] * 2, None)[:1 if pre else 2]))
print(node_hook(True, lambda *a: (5,)))
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = x * torch.ones(2)
w.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0], torch.ones(2)))
attempt(lambda: w.sum().backward())
""")

program("hook_handle_and_mode_reprs", """
import torch.autograd.forward_ad as fwAD
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
print(x.register_hook(lambda g: g))
print(y.register_hook(lambda g: g))
print(y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: None))
print(y.grad_fn.register_prehook(lambda grad_outputs: None))
print(torch.autograd.set_detect_anomaly(True))
print(torch.autograd.set_detect_anomaly(False))
print(torch.autograd.detect_anomaly())
print(fwAD.dual_level())
print(torch.no_grad(), torch.enable_grad(), torch.inference_mode())
print(repr(torch.set_grad_enabled(True)))
""")

program("inplace_version_errors", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: x.add_(1))
with torch.no_grad():
    x.add_(1)
print(x)
y = x * 1
y.add_(1)
print(y, y.is_leaf)
z = y.exp()
y.mul_(2)
attempt(lambda: z.sum().backward())
a = x * 1
b = a * a
a.add_(1)
attempt(lambda: b.sum().backward())
c = torch.tensor([1.0, 2.0])
p = x * c
c.add_(1)
attempt(lambda: p.sum().backward())
q = x.sin()
q += 1
print(q)
q *= 2
print(q)
q.sum().backward()
print(x.grad)
""")

program("inplace_methods", """
t = torch.tensor([1.0, -2.0, 3.0])
print(t.zero_(), t.fill_(2.0), t.add_(1), t.sub_(0.5), t.mul_(2), t.div_(5))
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
y.fill_(3.0)
print(y)
y.sum().backward()
print(x.grad)
""", requires=("fill_",))

program("broadcast_gradients", """
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)
s = torch.tensor(2.0, requires_grad=True)
c = torch.tensor([[1.0], [2.0]], requires_grad=True)
((a * b + c) * s).sum().backward()
print(a.grad)
print(b.grad)
print(c.grad)
print(s.grad)
""")

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

program("anomaly_nan", """
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.set_detect_anomaly(True):
    y = (x / x).sum()
    attempt(lambda: y.backward())
y = (x / x).sum()
y.backward()
print(x.grad)
""")

program("forward_ad_basics", """
import torch.autograd.forward_ad as fwAD
x = torch.tensor([1.0, 2.0])
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.tensor([1.0, 0.0]))
    print(d)
    y = d.sin() * d
    print(y)
    p, t = fwAD.unpack_dual(y)
    print(p, t)
    print(fwAD.unpack_dual(x))
    print((d * 3).sum())
    attempt(lambda: fwAD.make_dual(x, torch.tensor([1.0])))
    attempt(lambda: fwAD.make_dual(torch.tensor([1, 2]), torch.tensor([1.0, 1.0])))
    attempt(lambda: fwAD.make_dual(d, torch.tensor([1.0, 0.0])))
    attempt(lambda: fwAD.dual_level().__enter__())
print(y, fwAD.unpack_dual(y).tangent)
attempt(lambda: fwAD.make_dual(x, x))
""")

program("functional_jacobian", """
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp
x = torch.tensor([1.0, 2.0])
f = lambda t: torch.stack([t[0] * t[1], t[0] ** 2, torch.sin(t[1])])
print(jacobian(f, x))
print(jacobian(f, x, vectorize=True, strategy="forward-mode"))
a = torch.tensor([1.0, 2.0]); b = torch.tensor([3.0, 4.0])
print(jacobian(lambda a, b: (a * b, a.exp().sum()), (a, b)))
print(jacobian(lambda a: a * 2, torch.tensor(3.0)))
h = lambda t: (t ** 3).sum() + t[0] * t[1]
print(hessian(h, a))
print(vjp(f, x, torch.tensor([1.0, 0.5, 2.0])))
print(jvp(lambda t: t ** 2, x, torch.tensor([1.0, 1.0])))
print(hvp(h, a, torch.tensor([1.0, 0.0])))
print(vhp(h, a, torch.tensor([1.0, 0.0])))
attempt(lambda: vjp(f, x))
""")

program("gradcheck_report", """
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x

x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
attempt(lambda: torch.autograd.gradcheck(Bad.apply, (x,)))
print(torch.autograd.gradcheck(Bad.apply, (x,), raise_exception=False))
print(torch.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,)))
print(torch.autograd.gradgradcheck(lambda t: t.sin() * t, (x,)))
print(torch.autograd.gradcheck(lambda t: t.exp(), (x,), check_forward_ad=True))
attempt(lambda: torch.autograd.gradcheck(lambda t: t * 2, (x.detach(),)))
xf = torch.tensor([1.0, 2.0], requires_grad=True)
print(torch.autograd.gradcheck(lambda t: t * 2, (xf,), eps=1e-3, atol=1e-2))
""")

program("factory_requires_grad_error", """
attempt(lambda: torch.tensor([1, 2], requires_grad=True))
""")

program("item_assignment", """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
d = y.detach()
d[0] = 10.0
print(y)
y[1] = 0.0
print(y)
y.sum().backward()
print(x.grad)
""", requires=("__setitem__",))


program("create_graph_warning_follows_the_pass", """
x = torch.tensor(2.0, requires_grad=True)
x.register_hook(lambda g: print("hook", g))
(x ** 3).backward(create_graph=True)
print(x.grad)
""")

program("tensor_hooks_see_none_gradients", """
def show(tag):
    def hook(g):
        print(tag, g)
    return hook

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x.register_hook(show("x"))
a, b, c = x.unbind()
a.register_hook(show("a"))
b.register_hook(show("b"))
c.register_hook(show("c"))
b.retain_grad()
(c * 2).backward()
print(b.grad, x.grad)
p, q = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True).split(2)
p.register_hook(show("p"))
p.register_hook(lambda g: None)
q.register_hook(show("q"))
q.sum().backward()
a, b, c = x.unbind()
a.register_hook(lambda g: torch.tensor(1.0))
attempt(lambda: c.backward())

class DropSecond(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u, v):
        return u * v

    @staticmethod
    def backward(ctx, g):
        return g, None

u = torch.tensor(2.0, requires_grad=True)
v = torch.tensor(3.0, requires_grad=True)
u.register_hook(show("u"))
v.register_hook(show("v"))
v1 = v * 1
v1.register_hook(show("v1"))
v1.grad_fn.register_prehook(show("v1 prehook"))
v1.grad_fn.register_hook(lambda grad_inputs, grad_outputs: print("v1 post", grad_inputs, grad_outputs))
DropSecond.apply(u, v1).backward()
print(u.grad, v.grad)
""")

program("hook_order", """
def show(tag):
    def hook(*args):
        print(tag, *args)
    return hook

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a, b, c = x.unbind()
c.register_hook(show("c1"))
a.register_hook(show("a1"))
c.register_hook(show("c2"))
a.retain_grad()
c.retain_grad()
c.register_hook(lambda g: g * 10)
c.grad_fn.register_prehook(show("prehook"))
c.grad_fn.register_hook(show("post"))
(a + c * 2).backward()
print(a.grad, c.grad, x.grad)
y = x * 2
handles = []

def first(g):
    print("first")
    handles[1].remove()

handles.append(y.register_hook(first))
handles.append(y.register_hook(show("second")))
y.sum().backward(retain_graph=True)
y.sum().backward()
""")

program("accumulate_grad_node_hooks", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
acc = y.grad_fn.next_functions[0][0]
print(acc.name(), acc.variable is x)

def post(grad_inputs, grad_outputs):
    print("post", grad_inputs, grad_outputs, x.grad)

def pre(grad_outputs):
    print("pre", grad_outputs, x.grad)

hp = acc.register_hook(post)
hq = acc.register_prehook(pre)
x.register_hook(lambda g: print("tensor hook", g))
x.register_post_accumulate_grad_hook(lambda t: print("post accumulate", t is x, t.grad))
y.sum().backward(retain_graph=True)
acc.register_hook(lambda gi, go: ())
y.sum().backward(retain_graph=True)
acc.register_hook(lambda gi, go: (torch.ones(2),))
attempt(lambda: y.sum().backward(retain_graph=True))
print(x.grad)
acc.register_hook(lambda gi, go: 5)
attempt(lambda: y.sum().backward(retain_graph=True))
hp.remove()
hq.remove()
x2 = torch.tensor([1.0, 2.0], requires_grad=True)
y2 = x2 * 3
acc2 = y2.grad_fn.next_functions[0][0]
acc2.register_prehook(lambda go: (go[0] * 10,))
y2.sum().backward(retain_graph=True)
print(x2.grad)
acc2.register_prehook(lambda go: (None,))
acc2.register_hook(lambda gi, go: print("post", gi, go))
x2.register_post_accumulate_grad_hook(lambda t: print("post accumulate", t.grad))
x2.grad = None
y2.sum().backward()
print(x2.grad)
""")

program("post_accumulate_grad_hooks", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
handles = []

def first(t):
    print("first", t.grad)
    handles[1].remove()

handles.append(x.register_post_accumulate_grad_hook(first))
handles.append(x.register_post_accumulate_grad_hook(lambda t: print("second", t.grad)))
print(type(handles[0]).__name__)
(x * 2).sum().backward()
(x * 2).sum().backward()
handles[0].remove()
h = x.register_post_accumulate_grad_hook(lambda t: torch.ones(2))
attempt(lambda: (x * 2).sum().backward())
print(x.grad)
h.remove()
h = x.register_post_accumulate_grad_hook(lambda t: t)
(x * 2).sum().backward()
h.remove()
x.register_post_accumulate_grad_hook(lambda t: 5)
x.register_post_accumulate_grad_hook(lambda t: print("not reached"))
attempt(lambda: (x * 2).sum().backward())
x.register_post_accumulate_grad_hook(lambda t: torch.ones(3))
attempt(lambda: (x * 2).sum().backward())
attempt(lambda: (x * 2).register_post_accumulate_grad_hook(lambda t: None))
attempt(lambda: torch.tensor([1.0]).register_post_accumulate_grad_hook(lambda t: None))

w = torch.tensor(2.0, requires_grad=True)
y = w * 3
w.register_post_accumulate_grad_hook(lambda t: print("after", t.grad))
print(torch.autograd.grad(y, w, retain_graph=True))
y.backward(inputs=[w], retain_graph=True)
y.backward(create_graph=True)
v = torch.tensor(2.0, requires_grad=True)
v.register_post_accumulate_grad_hook(lambda t: print("unused input", t.grad))
y.backward(inputs=[v], retain_graph=True)
""")

program("hooks_with_inputs", """
def show(tag, ret=None):
    def hook(*args):
        print(tag, *args)
        return ret(*args) if ret else None
    return hook

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = (y * 3).sum()
y.register_hook(show("y hook", lambda g: g * 100))
print(torch.autograd.grad(z, [y, x], retain_graph=True))
print(torch.autograd.grad(z, [y], retain_graph=True))
y.grad_fn.register_prehook(show("y prehook"))
y.grad_fn.register_hook(show("y post"))
print(torch.autograd.grad(z, [y], retain_graph=True))
print(torch.autograd.grad(z, [y, x], retain_graph=True))
acc = y.grad_fn.next_functions[0][0]
acc.register_prehook(show("acc prehook", lambda go: (go[0] * 7,)))
print(torch.autograd.grad(z, [x], retain_graph=True))
print(y.retains_grad)
z.backward(inputs=[y], retain_graph=True)
print(y.retains_grad, y.grad, x.grad)
z.backward(retain_graph=True)
print(y.grad, x.grad)
attempt(lambda: z.backward(inputs=[torch.tensor(1.0)], retain_graph=True))
y2 = x * 5
z.backward(inputs=[y2], retain_graph=True)
print(y2.retains_grad, y2.grad)
y3 = x * 2
z3 = (y3 * 3).sum()
y3.register_hook(lambda g: g * 10)
y3.grad_fn.register_prehook(lambda go: (go[0] + 1,))
x.grad = None
z3.backward(inputs=[y3, x])
print(y3.grad, x.grad)
""")


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


program("multi_grad_hooks", """
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = torch.tensor(5.0)
h = torch.autograd.graph.register_multi_grad_hook((a, b), lambda grads: print("all", grads))
h2 = torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: print("any", g), mode="any")
print(type(h).__name__)
(a * b).sum().backward()
(a * 2).sum().backward()
attempt(lambda: torch.autograd.grad((a * b).sum(), [b]))
h.remove()
h2.remove()
(a * b).sum().backward()
x = a * 1
z = b * 1
torch.autograd.graph.register_multi_grad_hook((x, z), lambda grads: print("non-leaf", grads))
(x * z).sum().backward()
attempt(lambda: torch.autograd.graph.register_multi_grad_hook((a,), print, mode="some"))
attempt(lambda: torch.autograd.graph.register_multi_grad_hook((a, c), print))
print(a.grad, b.grad)
""")

program("saved_tensors", """
x = torch.tensor([0.5, 1.5], requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self), x is y.grad_fn._saved_self, y.grad_fn._saved_exponent)
e = x.exp()
print(e.equal(e.grad_fn._saved_result), e is e.grad_fn._saved_result, e.grad_fn._saved_result)
m = x * 2
print(m.grad_fn._saved_other, m.grad_fn._saved_self)
s = x.sum(0, keepdim=True)
print(s.grad_fn._saved_dim, s.grad_fn._saved_keepdim, s.grad_fn._saved_self_sym_sizes)

def pack(t):
    print("pack", t)
    return t

def unpack(t):
    print("unpack", t)
    return t

b = torch.tensor([3.0, 4.0], requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    p = x * b
    q = p.sin()
q.sum().backward()
print(x.grad)
w = x.cos()
w.grad_fn._raw_saved_self.register_hooks(lambda t: t * 1, lambda t: t * 10)
w.sum().backward()
print(x.grad)
attempt(lambda: w.grad_fn._saved_self)
with torch.autograd.graph.disable_saved_tensors_hooks("not here"):
    attempt(lambda: torch.autograd.graph.saved_tensors_hooks(pack, unpack).__enter__())
""")


program("leaf_order", """
ls = [torch.tensor(float(i), requires_grad=True) for i in range(6)]
order = []
for i, l in enumerate(ls):
    l.register_hook(lambda g, i=i: order.append(i))

def run(y):
    order.clear()
    y.backward()
    print(order)

run(ls[0] * ls[1] * ls[2])
run(ls[0] + ls[1] + ls[2] + ls[3] + ls[4] + ls[5])
run(torch.stack(ls).sum())
run((ls[3] * ls[1]) + (ls[0] * ls[5]) + ls[2] * ls[4])
run(sum(l * l for l in ls))
""")


program("gradient_edges", """
x = torch.tensor([0.3, 1.2], requires_grad=True)
y = x * 2
e = torch.autograd.graph.get_gradient_edge(y)
print(e.node is y.grad_fn, e.output_nr, e.ownership_token, type(e).__name__)
print(torch.autograd.graph.get_gradient_edge(x).node.name())
z = y.exp()
print(torch.autograd.grad(z.sum(), e, retain_graph=True))
print(torch.autograd.grad(z.sum(), [e, x], retain_graph=True))
print(torch.autograd.grad(z.sum(), {"y": e, "x": x}, retain_graph=True))
attempt(lambda: torch.autograd.graph.get_gradient_edge(torch.ones(2)))
attempt(lambda: torch.autograd.grad(z.sum(), torch.autograd.graph.GradientEdge(5, 0)))
z.sum().backward(inputs=[e], retain_graph=True)
print(x.grad)
w = y * y
y.mul_(3)
attempt(lambda: torch.autograd.grad(w.sum(), e))
v = x * 1
s = v.sin()
torch.autograd.graph.increment_version(v)
torch.autograd.graph.increment_version([v, v])
attempt(lambda: s.sum().backward())
""")


program("version_numbers", """
x = torch.ones(3)
print(x._version, type(x._version).__name__)
x.add_(1)
v = x[0:2]
v.mul_(2)
x[2] = 5.
print(x._version, v._version, (x * 2)._version)
torch.autograd.graph.increment_version(v)
print(x._version)
""")


EXPECTED = {
    'leaf_members': (
        'tensor([1., 2.], dtype=torch.float64, requires_grad=True)\n'
        '(False, None, None, True)\n'
        'tensor(1., requires_grad=True)\n'
        'True False'
    ),
    'grad_fn_and_next_functions': (
        'AddBackward0 <AddBackward0 object at 0x>\n'
        'MulBackward0 0 torch::autograd::AccumulateGrad 0 True\n'
        '((<AccumulateGrad object at 0x>, 0), (<AccumulateGrad object at 0x>, 0))\n'
        'True\n'
        '((<AccumulateGrad object at 0x>, 0), (None, 0))\n'
        'None True False True'
    ),
    'retain_grad': (
        'False False\n'
        'tensor([3.]) True tensor([12.])\n'
        "RuntimeError: can't retain_grad on Tensor that has requires_grad=False\n"
        'False'
    ),
    'nonleaf_grad_warning': (
        'tensor([4.])\n'
        "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)\n"
        'None'
    ),
    'requires_grad_errors': (
        'RuntimeError: only Tensors of floating point dtype can require gradients\n'
        'RuntimeError: only Tensors of floating point and complex dtype can require gradients\n'
        "RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().\n"
        'True\n'
        'False'
    ),
    'detach_and_data': (
        'tensor([2., 4.]) False None True\n'
        'tensor([20., 40.], grad_fn=<MulBackward0>)\n'
        'tensor([3., 6.]) True None\n'
        'tensor([1., 2.]) False\n'
        'tensor([2., 4.], requires_grad=True)\n'
        'tensor([5., 6.], requires_grad=True)'
    ),
    'conversions_to_python': (
        '10.0 float\n'
        '[[1.0, 2.0], [3.0, 4.0]]\n'
        'RuntimeError: a Tensor with 4 elements cannot be converted to Scalar\n'
        "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.\n"
        "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.\n"
        'array([[1., 2.],\n'
        '       [3., 4.]], dtype=float32)\n'
        'array([[1., 2.],\n'
        '       [3., 4.]], dtype=float32)\n'
        'array([1, 2])\n'
        '2.5 3'
    ),
    'metadata': (
        'torch.Size([2, 3]) torch.Size([2, 3]) 2 6 torch.float32 3 3 2\n'
        '2 2 torch.Size([3, 2])\n'
        'torch.float32 torch.float64 tensor([1., 2.])\n'
        'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)'
    ),
    'default_dtype': (
        'torch.float32 torch.float32 torch.int64\n'
        'torch.bool torch.float32 torch.float64\n'
        'tensor([1., 2.], requires_grad=True) torch.float64\n'
        'tensor([2., 4.], grad_fn=<MulBackward0>)\n'
        'tensor([1.], dtype=torch.float32)\n'
        'torch.float32'
    ),
    'type_promotion': (
        'torch.int64 torch.float32 torch.float32 torch.float32 torch.float64\n'
        'torch.float32 torch.float32\n'
        'torch.int64 torch.float32\n'
        'tensor([2.5000, 3.5000]) tensor([1., 4.], dtype=torch.float64)\n'
        'torch.float32 torch.float32 torch.float32'
    ),
    'backward_gradient_vectors': (
        'RuntimeError: grad can be implicitly created only for scalar outputs\n'
        'tensor([5.0000, 0.0000, 3.5000]) tensor([1., 0., 4.])\n'
        'RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of torch.Size([3]).\n'
        'RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n'
        'tensor([9.0000, 4.0000, 7.5000])'
    ),
    'retain_graph_and_backward_twice': (
        'tensor([8.])\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'AddBackward0 second backward done\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'MulBackward0 second backward done\n'
        'SubBackward0 second backward done\n'
        'NegBackward0 second backward done\n'
        'AddBackward0 second backward done\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'MulBackward0 second backward done\n'
        'tensor([40.9729])'
    ),
    'create_graph_higher_order': (
        'tensor([12.], grad_fn=<MulBackward0>)\n'
        'tensor([12.], grad_fn=<MulBackward0>)\n'
        'tensor([6.])\n'
        'UserWarning: Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)\n'
        'tensor([32.], grad_fn=<CopyBackwards>)\n'
        'tensor([80.], grad_fn=<CopyBackwards>)'
    ),
    'backward_inputs': (
        'tensor([3., 4.]) None\n'
        'tensor([3., 4.]) None\n'
        'RuntimeError: `inputs` argument to `backward()` cannot be empty.'
    ),
    'autograd_grad': (
        '(tensor([2., 4.]),)\n'
        'RuntimeError: The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.\n'
        '(tensor([2., 4.]), None)\n'
        '(tensor([2., 4.]), tensor([0.]))\n'
        'None\n'
        '(tensor([3.0000, 1.5000]),)\n'
        'RuntimeError: One of the differentiated Tensors does not require grad\n'
        'tensor(4.) tensor(3.)\n'
        'RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn'
    ),
    'accumulation_and_reset': (
        'tensor([8.])\n'
        'tensor([0.])\n'
        'tensor([3.])\n'
        'tensor([0.])\n'
        'tensor([5.])\n'
        'True tensor([6.])\n'
        "RuntimeError: attempting to assign a gradient of size '[2]' to a tensor of size '[1]'. Please ensure that the gradient and the tensor are the same size\n"
        "RuntimeError: attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that assume they match."
    ),
    'grad_modes': (
        'False False\n'
        'True True\n'
        'False\n'
        'True\n'
        'False\n'
        'False\n'
        'True\n'
        'False\n'
        'True\n'
        'True'
    ),
    'hooks': (
        'hook saw tensor([2., 4., 6.])\n'
        'tensor([ 4.,  8., 12.])\n'
        'tensor([2., 4., 6.])\n'
        'non-leaf hook tensor([1., 1., 1.])\n'
        'tensor([20., 20., 20.])\n'
        "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"
    ),
    'hook_return_checks': (
        "TypeError: expected Variable, but hook returned 'int'\n"
        "TypeError: expected Variable, but hook returned 'float'\n"
        "TypeError: expected Variable, but hook returned 'list'\n"
        "TypeError: expected Variable, but hook returned 'numpy.ndarray'\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.LongTensor)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUBoolType)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUComplexFloatType)\n"
        'tensor([3., 3.])\n'
        "TypeError: expected Variable, but hook returned 'int'\n"
        "TypeError: expected Variable, but hook returned 'float'\n"
        "TypeError: expected Variable, but hook returned 'list'\n"
        "TypeError: expected Variable, but hook returned 'numpy.ndarray'\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.LongTensor)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUBoolType)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUComplexFloatType)\n"
        'tensor([3., 3.])\n'
        "RuntimeError: hook 'grow' has changed the size of value\n"
        "RuntimeError: hook '<unknown>' has changed the size of value\n"
        "TypeError: expected Variable, but hook returned 'int'\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "TypeError: expected tuple, but hook returned 'int'\n"
        "TypeError: expected tuple, but hook returned 'list'\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 3, but expected 1)\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)\n"
        'None\n'
        'tensor([2., 4.])\n'
        "TypeError: expected tuple, but hook returned 'int'\n"
        "TypeError: expected tuple, but hook returned 'list'\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 3, but expected 2)\n"
        "TypeError: expected Variable, but hook returned 'int'\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)\n"
        'None\n'
        'tensor([2., 4.])\n'
        "TypeError: expected Variable, but hook returned 'int'\n"
        'None\n'
        "RuntimeError: can't replace a None gradient with a non-None value"
    ),
    'hook_handle_and_mode_reprs': (
        '<torch.utils.hooks.RemovableHandle object at 0x>\n'
        '<torch.utils.hooks.RemovableHandle object at 0x>\n'
        '<torch.utils.hooks.RemovableHandle object at 0x>\n'
        '<torch.utils.hooks.RemovableHandle object at 0x>\n'
        '<torch.autograd.anomaly_mode.set_detect_anomaly object at 0x>\n'
        '<torch.autograd.anomaly_mode.set_detect_anomaly object at 0x>\n'
        'UserWarning: Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging.\n'
        '<torch.autograd.anomaly_mode.detect_anomaly object at 0x>\n'
        '<torch.autograd.forward_ad.dual_level object at 0x>\n'
        '<torch.autograd.grad_mode.no_grad object at 0x> <torch.autograd.grad_mode.enable_grad object at 0x> <torch.autograd.grad_mode.inference_mode object at 0x>\n'
        'torch.autograd.grad_mode.set_grad_enabled(mode=True)'
    ),
    'inplace_version_errors': (
        'RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.\n'
        'tensor([2., 3.], requires_grad=True)\n'
        'tensor([3., 4.], grad_fn=<AddBackward0>) False\n'
        'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of Add, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).\n'
        'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]] is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).\n'
        'tensor([1.9093, 1.1411], grad_fn=<AddBackward0>)\n'
        'tensor([3.8186, 2.2822], grad_fn=<MulBackward0>)\n'
        'tensor([19.2532, 52.6182])'
    ),
    'inplace_methods': (
        'tensor([1., 1., 1.]) tensor([1., 1., 1.]) tensor([1., 1., 1.]) tensor([1., 1., 1.]) tensor([1., 1., 1.]) tensor([1., 1., 1.])\n'
        'tensor([3., 3.], grad_fn=<FillBackward2>)\n'
        'tensor([0., 0.])'
    ),
    'broadcast_gradients': (
        'tensor([[20., 40., 60.],\n'
        '        [20., 40., 60.]])\n'
        'tensor([10., 14., 18.])\n'
        'tensor([[6.],\n'
        '        [6.]])\n'
        'tensor(469.)'
    ),
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
    'anomaly_nan': (
        'UserWarning: Error detected in DivBackward0. Traceback of forward call that caused the error:\n'
        "RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.\n"
        'tensor([nan, 0.])'
    ),
    'forward_ad_basics': (
        'tensor([1., 2.], tangent=tensor([1., 0.]))\n'
        'tensor([0.8415, 1.8186], tangent=tensor([1.3818, 0.0000]))\n'
        'tensor([0.8415, 1.8186]) tensor([1.3818, 0.0000])\n'
        'UnpackedDualTensor(primal=tensor([1., 2.]), tangent=None)\n'
        'tensor(9., tangent=3.0)\n'
        'RuntimeError: Trying to set a forward gradient that has a different size than that of the original Tensor, this is not supported. Tensor is of size [2] while the given forward gradient is of size [1].\n'
        'ValueError: Expected primal to be floating point or complex, but got: torch.int64\n'
        'RuntimeError: Making a dual Tensor based on a Tensor that already has a forward gradient at the same level 0 is not supported.\n'
        'RuntimeError: Nested forward mode AD is not supported at the moment\n'
        'tensor([0.8415, 1.8186]) None\n'
        'RuntimeError: Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first.'
    ),
    'functional_jacobian': (
        'tensor([[ 2.0000,  1.0000],\n'
        '        [ 2.0000,  0.0000],\n'
        '        [ 0.0000, -0.4161]])\n'
        'tensor([[ 2.0000,  1.0000],\n'
        '        [ 2.0000,  0.0000],\n'
        '        [-0.0000, -0.4161]])\n'
        '((tensor([[3., 0.],\n'
        '        [0., 4.]]), tensor([[1., 0.],\n'
        '        [0., 2.]])), (tensor([2.7183, 7.3891]), tensor([0., 0.])))\n'
        'tensor(2.)\n'
        'tensor([[ 6.,  1.],\n'
        '        [ 1., 12.]])\n'
        '(tensor([2.0000, 1.0000, 0.9093]), tensor([3.0000, 0.1677]))\n'
        '(tensor([1., 4.]), tensor([2., 4.]))\n'
        '(tensor(11.), tensor([6., 1.]))\n'
        '(tensor(11.), tensor([6., 1.]))\n'
        'RuntimeError: The vector v can only be None if the user-provided function returns a single Tensor with a single element.'
    ),
    'gradcheck_report': (
        'GradcheckError: Jacobian mismatch for output 0 with respect to input 0,\n'
        'numerical:tensor([[2.0000, 0.0000],\n'
        '        [0.0000, 4.0000]], dtype=torch.float64)\n'
        'analytical:tensor([[3., 0.],\n'
        '        [0., 6.]], dtype=torch.float64)\n'
        '\n'
        'False\n'
        'True\n'
        'True\n'
        'True\n'
        'ValueError: gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True.\n'
        'UserWarning: Input #0 requires gradient and is not a double precision floating point or complex. This check will likely fail if all the inputs are not of double precision floating point or complex. \n'
        'True'
    ),
    'factory_requires_grad_error': (
        'RuntimeError: Only Tensors of floating point and complex dtype can require gradients'
    ),
    'item_assignment': (
        'tensor([10.,  4.,  6.], grad_fn=<MulBackward0>)\n'
        'tensor([10.,  0.,  6.], grad_fn=<CopySlices>)\n'
        'tensor([2., 0., 2.])'
    ),
    'create_graph_warning_follows_the_pass': (
        'hook tensor(12., grad_fn=<MulBackward0>)\n'
        'UserWarning: Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)\n'
        'tensor(12., grad_fn=<CopyBackwards>)'
    ),
    'tensor_hooks_see_none_gradients': (
        'a None\n'
        'b None\n'
        'c tensor(2.)\n'
        'x tensor([0., 0., 2.])\n'
        'None tensor([0., 0., 2.])\n'
        'p None\n'
        'q tensor([1., 1.])\n'
        "RuntimeError: can't replace a None gradient with a non-None value\n"
        'u tensor(1.)\n'
        'v1 None\n'
        'v1 prehook (None,)\n'
        'v1 post (None, None) (None,)\n'
        'v None\n'
        'tensor(1.) None'
    ),
    'hook_order': (
        'c1 tensor(2.)\n'
        'c2 tensor(2.)\n'
        'a1 tensor(1.)\n'
        'prehook (tensor(1.), None, tensor(20.))\n'
        'post (tensor([ 1.,  0., 20.]),) (tensor(1.), None, tensor(20.))\n'
        'tensor(1.) tensor(20.) tensor([ 1.,  0., 20.])\n'
        'first\n'
        'second tensor([1., 1., 1.])\n'
        'first'
    ),
    'accumulate_grad_node_hooks': (
        'torch::autograd::AccumulateGrad True\n'
        'tensor hook tensor([3., 3.])\n'
        'pre (tensor([3., 3.]),) None\n'
        'post accumulate True tensor([3., 3.])\n'
        'post () (tensor([3., 3.]),) tensor([3., 3.])\n'
        'tensor hook tensor([3., 3.])\n'
        'pre (tensor([3., 3.]),) tensor([3., 3.])\n'
        'post accumulate True tensor([6., 6.])\n'
        'post () (tensor([3., 3.]),) tensor([6., 6.])\n'
        'tensor hook tensor([3., 3.])\n'
        'pre (tensor([3., 3.]),) tensor([6., 6.])\n'
        'post accumulate True tensor([9., 9.])\n'
        'post () (tensor([3., 3.]),) tensor([9., 9.])\n'
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 1, but expected 0)\n"
        'tensor([9., 9.])\n'
        'tensor hook tensor([3., 3.])\n'
        'pre (tensor([3., 3.]),) tensor([9., 9.])\n'
        'post accumulate True tensor([12., 12.])\n'
        'post () (tensor([3., 3.]),) tensor([12., 12.])\n'
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 1, but expected 0)\n"
        'tensor([30., 30.])\n'
        'post accumulate None\n'
        'post () (None,)\n'
        'None'
    ),
    'post_accumulate_grad_hooks': (
        'RemovableHandle\n'
        'first tensor([2., 2.])\n'
        'second tensor([2., 2.])\n'
        'first tensor([4., 4.])\n'
        'RuntimeError: Tensor post accumulate grad hooks should return None.\n'
        'tensor([6., 6.])\n'
        "TypeError: expected Variable, but hook returned 'int'\n"
        "TypeError: expected Variable, but hook returned 'int'\n"
        'RuntimeError: post accumulate grad hooks cannot be registered on non-leaf tensors\n'
        "RuntimeError: cannot register a hook on a tensor that doesn't require gradient\n"
        '(tensor(3.),)\n'
        'after tensor(3.)\n'
        'after tensor(6.)\n'
        'UserWarning: Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)'
    ),
    'hooks_with_inputs': (
        'y hook tensor([3., 3.])\n'
        '(tensor([3., 3.]), tensor([600., 600.]))\n'
        'y hook tensor([3., 3.])\n'
        '(tensor([300., 300.]),)\n'
        'y hook tensor([3., 3.])\n'
        '(tensor([300., 300.]),)\n'
        'y hook tensor([3., 3.])\n'
        'y prehook (tensor([300., 300.]),)\n'
        'y post (tensor([600., 600.]), None) (tensor([300., 300.]),)\n'
        '(tensor([3., 3.]), tensor([600., 600.]))\n'
        'y hook tensor([3., 3.])\n'
        'y prehook (tensor([300., 300.]),)\n'
        'y post (tensor([600., 600.]), None) (tensor([300., 300.]),)\n'
        '(tensor([600., 600.]),)\n'
        'False\n'
        'y hook tensor([3., 3.])\n'
        'y prehook (tensor([300., 300.]),)\n'
        'y post (None, None) (tensor([300., 300.]),)\n'
        'True tensor([300., 300.]) None\n'
        'y hook tensor([3., 3.])\n'
        'y prehook (tensor([300., 300.]),)\n'
        'y post (tensor([600., 600.]), None) (tensor([300., 300.]),)\n'
        'acc prehook (tensor([600., 600.]),)\n'
        'tensor([600., 600.]) tensor([4200., 4200.])\n'
        "RuntimeError: can't retain_grad on Tensor that has requires_grad=False\n"
        'True None\n'
        'acc prehook (tensor([62., 62.]),)\n'
        'tensor([30., 30.]) tensor([434., 434.])'
    ),
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
    'multi_grad_hooks': (
        '_MultiHandle\n'
        'any tensor([3., 4.])\n'
        'all [tensor([3., 4.]), tensor([1., 2.])]\n'
        'all [tensor([2., 2.]), None]\n'
        'any tensor([2., 2.])\n'
        'RuntimeError: A leaf node was passed to _will_engine_execute_node but we are currently running autograd.grad(). This is currently not supported.\n'
        'non-leaf [tensor([3., 4.]), tensor([1., 2.])]\n'
        "ValueError: Expects mode to be one of ('all', 'any') but got some\n"
        'AssertionError: Expected gradient function to be set\n'
        'tensor([11., 14.]) tensor([3., 6.])'
    ),
    'saved_tensors': (
        'True True 2\n'
        'True False tensor([1.6487, 4.4817], grad_fn=<ExpBackward0>)\n'
        'tensor(2) None\n'
        '(0,) True (2,)\n'
        'pack tensor([6., 8.], grad_fn=<MulBackward0>)\n'
        'pack tensor([0.5000, 1.5000], requires_grad=True)\n'
        'pack tensor([ 3., 12.], grad_fn=<MulBackward0>)\n'
        'unpack tensor([ 3., 12.], grad_fn=<MulBackward0>)\n'
        'unpack tensor([6., 8.], grad_fn=<MulBackward0>)\n'
        'unpack tensor([0.5000, 1.5000], requires_grad=True)\n'
        'tensor([-5.9400,  6.7508])\n'
        'tensor([-4.9810,  6.1005])\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: not here'
    ),
    'leaf_order': (
        '[2, 0, 1]\n'
        '[5, 4, 3, 2, 0, 1]\n'
        '[0, 2, 5, 4, 1, 3]\n'
        '[2, 4, 0, 5, 3, 1]\n'
        '[5, 4, 3, 2, 1, 0]'
    ),
    'gradient_edges': (
        'True 0 None GradientEdge\n'
        'torch::autograd::AccumulateGrad\n'
        '(tensor([ 1.8221, 11.0232]),)\n'
        '(tensor([ 1.8221, 11.0232]), tensor([ 3.6442, 22.0464]))\n'
        "{'y': tensor([ 1.8221, 11.0232]), 'x': tensor([ 3.6442, 22.0464])}\n"
        'RuntimeError: It is not possible to get the gradient edge for a Tensor that does not require gradients\n'
        "RuntimeError: GradientEdge's first object must be an autograd.graph.Node but got int\n"
        'None\n'
        'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of Mul, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).\n'
        'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of Mul, is at version 3; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).'
    ),
    'version_numbers': (
        '0 int\n'
        '3 3 0\n'
        '4'
    ),
}

def normalize(text):
    """Drop what only PyTorch's C++ core adds to warnings."""
    text = re.sub(r" \(Triggered internally at [^)]*\)", "", text)
    return text.replace(" See github.com/pytorch/pytorch/pull/30531 for more information.", "")


def skip_if_unavailable(name):
    missing = [attr for attr in REQUIRES.get(name, ()) if not hasattr(gradcli.Tensor, attr)]
    if missing:
        pytest.skip(f"needs Tensor.{', '.join(missing)} from the op table")


@pytest.fixture(autouse=True)
def fresh_warn_once_state(monkeypatch):
    """PyTorch warns once per process about backward(create_graph=True): start each program
    as a fresh process would."""
    from gradcli.engine import autograd
    monkeypatch.setattr(autograd, "_warned_create_graph", False)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    skip_if_unavailable(name)
    assert normalize(run_program(gradcli, PROGRAMS[name])) == normalize(EXPECTED[name])
