"""What the compat25 corpus (test_programs_compat25) found, one program each, checked against
PyTorch 2.13 (golden/test_regressions_compat25.json without torch)."""

import io
import warnings
from contextlib import redirect_stdout

import pytest

from test_programs_compat24 import gradcli_prints, pytorch_prints
from gradcli.lang.session import Session
from gradcli.lang.transcript import fresh_interpreter

PROGRAMS = {
    # NumPy's keyword names, which PyTorch's argument parser takes for its own (d2l's softmax
    # chapter: `X_exp.sum(1, keepdims=True)`)
    "numpy_names": """
import torch
x = torch.tensor([[1., 5.], [3., 2.]], requires_grad=True)
print(x.sum(1, keepdims=True), torch.sum(x, axis=0), x.mean(axis=0, keepdims=True))
print(torch.max(x, axis=1), x.argmax(axis=1), torch.amax(x, axis=1), x.std(axis=0))
print(torch.softmax(x, axis=1), x.cumsum(axis=0), torch.cat([x, x], axis=0).shape)
print(torch.add(x1=x, x2=x), torch.sum(a=x), x.unsqueeze(axis=0).shape, x.logsumexp(axis=1))
x.sum(axis=1, keepdims=True).sum().backward()
print(x.grad)
x.sum(axis=1, dim=0)
""",
    # has_aux: every transform hands back an aux of tensors only
    "aux_not_tensors": """
import torch
from torch.func import grad, vjp, jvp, jacrev, jacfwd
x = torch.tensor([0., 1.])
for aux in (3, None, 'a', [x], {'k': (x, x)}):
    for name, call in [("grad", lambda: grad(lambda x: (x.sum(), aux), has_aux=True)(x)[1]),
                       ("vjp", lambda: vjp(lambda x: (x.sin(), aux), x, has_aux=True)[2]),
                       ("jvp", lambda: jvp(lambda x: (x.sin(), aux), (x,), (x,), has_aux=True)[2]),
                       ("jacrev", lambda: jacrev(lambda x: (x.sin(), aux), has_aux=True)(x)[1]),
                       ("jacfwd", lambda: jacfwd(lambda x: (x.sin(), aux), has_aux=True)(x)[1])]:
        try:
            print(name, call())
        except RuntimeError as e:
            print(name, e)
""",
    # a custom Function's jvp runs with forward AD off: a dual input the ctx kept is its primal
    "custom_jvp_forward_ad_off": """
import torch
import torch.autograd.forward_ad as fwAD
class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x ** 2
    @staticmethod
    def backward(ctx, g):
        return 2 * ctx.x * g
    @staticmethod
    def jvp(ctx, t):
        r = 2 * ctx.x * t
        print(fwAD.unpack_dual(ctx.x).tangent, fwAD.unpack_dual(r).tangent)
        return r
with fwAD.dual_level():
    out = Sq.apply(fwAD.make_dual(torch.tensor([1., 3.]), torch.tensor([1., 0.5])))
    print(fwAD.unpack_dual(out).tangent)
""",
    "data_ptr": """
import torch
a = torch.arange(6.).reshape(2, 3)
print(a.data_ptr() == a.detach().data_ptr(), a.data_ptr() == a.view(3, 2).data_ptr())
print(a.data_ptr() == a.clone().data_ptr(), a[1].data_ptr() - a.data_ptr())
print(a[:, 1].data_ptr() - a.data_ptr(), torch.zeros(0).data_ptr(), type(a.data_ptr()).__name__)
""",
    # torch.optim.LBFGS, a fixed step and the strong Wolfe line search: float32 steps are
    # PyTorch's bit for bit on this problem (its fused add_), float64 ones within last bits
    "lbfgs": """
import torch
A = torch.tensor([[3., 1.], [1., 2.]])
b = torch.tensor([1., 1.])
for ls in (None, "strong_wolfe"):
    x = torch.tensor([3.0, -2.0], requires_grad=True)
    opt = torch.optim.LBFGS([x], lr=1, history_size=3, line_search_fn=ls)
    def closure():
        opt.zero_grad()
        loss = 0.5 * x @ A @ x - b @ x
        loss.backward()
        return loss
    for k in range(2):
        print(opt.step(closure), x.tolist())
    st = opt.state[x]
    print(st['func_evals'], st['n_iter'], len(st['old_dirs']), st['H_diag'], st['t'])
for ls in (None, "strong_wolfe"):
    p = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([p], lr=0.5 if ls is None else 1, history_size=5, max_iter=50,
                            line_search_fn=ls)
    def closure():
        opt.zero_grad()
        l = (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2
        l.backward()
        return l
    for k in range(3):
        l = opt.step(closure)
        print(k, f"{l.item():.2e}", [round(v, 5) for v in p.tolist()])
    print(opt.state[p]['func_evals'], opt.state[p]['n_iter'])
try:
    torch.optim.LBFGS([x], line_search_fn="armijo").step(closure)
except RuntimeError as e:
    print(e)
torch.optim.LBFGS([{'params': [x]}, {'params': [p]}])
""",
    "checkpoint": """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
x = torch.tensor([0.5, 1.0, -2.0], requires_grad=True)
def block(t):
    return torch.tanh(t * 2).exp() * t
for reentrant in (True, False):
    y = checkpoint(block, x, use_reentrant=reentrant)
    print(y)
    y.sum().backward()
    print(x.grad)
    x.grad = None
print(checkpoint(block, torch.ones(2), use_reentrant=True))
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Tanh(), nn.Linear(4, 2), nn.ReLU())
inp = torch.randn(2, 3, requires_grad=True)
out = checkpoint_sequential(net, 2, inp, use_reentrant=True)
print(out)
out.sum().backward()
print(inp.grad, net[0].weight.grad)
print(checkpoint(lambda a, b: a * b, x, torch.ones(3), use_reentrant=False))
checkpoint(lambda a, k: a * k, x, k=2, use_reentrant=True)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_pytorch_prints(name, oracle):
    source = PROGRAMS[name]
    expected = oracle(lambda torch: pytorch_prints(torch, source, f"{name}.py"))
    got = gradcli_prints(source, f"{name}.py")
    assert got["error"] == expected["error"]
    assert got["stdout"] == expected["stdout"]


CHECKPOINT_WARNINGS = """
import torch
from torch.utils.checkpoint import checkpoint
x = torch.tensor([0.5, 1.0], requires_grad=True)
y = checkpoint(lambda t: t.sin() * t, x)
print(y)
z = checkpoint(lambda t: t * 2, torch.ones(2), use_reentrant=True)
"""


def test_checkpoint_warns_as_pytorch_warns(oracle):
    """checkpoint without use_reentrant warns (and runs the reentrant form, PyTorch 2.13's
    default); the reentrant form warns when no input requires grad."""
    def torch_warnings(torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pytorch_prints(torch, CHECKPOINT_WARNINGS.replace("import torch\n", "import torch\n"
                                                              "import warnings\nwarnings."
                                                              "simplefilter('always')\n", 1),
                           "w.py")
        return [str(w.message) for w in caught]
    expected = oracle(torch_warnings)
    out, warned = io.StringIO(), io.StringIO()
    with fresh_interpreter():
        Session(out=out, warnings_to=warned).run(CHECKPOINT_WARNINGS, filename="w.py")
    assert "grad_fn=<CheckpointFunctionBackward>" in out.getvalue()
    for message in expected:
        assert message in warned.getvalue()
    assert len(expected) == 2


UINT8_INDEX = """
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
m = torch.tensor([1, 0, 1], dtype=torch.uint8)
y = x[m]
print(y, torch.tensor([[1., 2.], [3., 4.]])[m[:2]])
"""


def test_a_uint8_index_warns_as_pytorch_warns(oracle):
    """Indexing with a uint8 mask works as with a bool one and gives PyTorch's deprecation
    UserWarning (on standard error in `gradcli run`)."""
    def torch_run(torch):
        printed = io.StringIO()
        with warnings.catch_warnings(record=True) as caught, redirect_stdout(printed):
            warnings.simplefilter("always")
            exec(compile(UINT8_INDEX, "u.py", "exec"), {})
        return printed.getvalue(), [(w.category.__name__, str(w.message)) for w in caught]
    printed, expected = oracle(torch_run)
    out, warned = io.StringIO(), io.StringIO()
    with fresh_interpreter():
        Session(out=out, warnings_to=warned).run(UINT8_INDEX, filename="u.py")
    assert out.getvalue() == printed
    assert len(expected) == 2 and len({m for _, m in expected}) == 1
    category, message = expected[0]
    assert warned.getvalue().count(f"{category}: {message}") == 2
