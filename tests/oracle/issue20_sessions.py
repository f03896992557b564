"""Sessions of real PyTorch code (issue 20): the Python that snippets use, torch.nn and
torch.optim training loops, torch.func.  `python tests/oracle/issue20_sessions.py` (with torch
installed) writes tests/transcripts/oracle/<name>.txt from what PyTorch prints; the transcripts are
committed, so tests/lang/test_transcripts.py checks gradcli against them without torch, and
test_issue20_transcripts.py checks that they are still what PyTorch prints."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gradcli.lang.console import is_compound  # noqa: E402
from gradcli.lang.console import statements as console_statements  # noqa: E402
from gradcli.lang.parser import is_complete  # noqa: E402

# (beside, not among, the copies of the shared transcripts: tests/engine/test_printing.py holds
# a format test for every repr those print)
TRANSCRIPTS = Path(__file__).resolve().parents[1] / "transcripts" / "oracle"

# file stem -> {session title: snippet}
SESSIONS = {
    "pytorch_code_python": {
        "an engine error is caught as PyTorch's RuntimeError, with its message": """\
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x ** 2).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("caught:", str(e)[:48])
try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print(type(e).__name__, "|", e)
else:
    print("no error")
finally:
    print("done")
""",
        "raise, raise from, bare raise and the program's own exception classes": """\
import torch
class ShapeError(ValueError):
    def __init__(self, message, dims):
        super().__init__(message)
        self.dims = dims

def check(t):
    if t.dim() != 2:
        raise ShapeError(f"expected a matrix, got {t.dim()} dims", t.dim())
    return t

try:
    check(torch.ones(3))
except ShapeError as e:
    print(repr(e), e.dims, e.args)

def wrapped():
    try:
        {}["missing"]
    except KeyError as e:
        raise RuntimeError("lookup failed") from e

try:
    wrapped()
except RuntimeError as e:
    print(type(e).__name__, e)

try:
    try:
        1 / 0
    except ZeroDivisionError:
        raise
except ArithmeticError as e:
    print("reraised:", type(e).__name__, e)
assert torch.ones(2).sum() == 2, "sum"
try:
    assert x.sum() > 100, f"sum is {x.sum().item()}"
except NameError as e:
    print(e)
try:
    assert torch.zeros(1).item() == 1, "not one"
except AssertionError as e:
    print("AssertionError:", e)
""",
        "names with one leading underscore, global, nonlocal, del, starred unpacking": """\
import torch
_grad_out_exp = torch.tensor([1., 2.])
_scale = 3
def _scaled(_g, factor=_scale):
    return _g * factor

_scaled(_grad_out_exp)
count = 0
def bump():
    global count
    count += 1

bump(); bump()
count
def counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
    inc(); inc(); inc()
    return n

counter()
first, *rest = torch.tensor([1., 2., 3.]).tolist()
first, rest
*init, last = range(4)
init, last
d = {"w": 1, "b": 2}
del d["w"]
d
x = 5
del x
try:
    x
except NameError as e:
    print(e)
""",
        "type, isinstance, __name__, _version, print options, comprehensions": """\
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
type(x)
type(y.grad_fn).__name__
type(y.grad_fn)
isinstance(x, torch.Tensor), isinstance(y.grad_fn, type(y.grad_fn))
type(3).__name__, type(2.5).__name__, type([]).__name__, type(None).__name__
v = torch.zeros(3)
v._version
v.add_(1)
v.mul_(2)
v._version
print(1, 2, 3, sep=", ", end=" <-\\n")
print(*[1, 2], sep="")
[i * i for i in range(4) if i % 2]
{i: i * i for i in range(3)}
sorted({c for c in "abca"})
sum(t.item() for t in torch.tensor([1., 2., 3.]))
sq = lambda t, p=2: t ** p
sq(torch.tensor(3.)), sq(torch.tensor(3.), p=3)
s = {1, 2}
s.add(3); s.discard(1); s |= {7}
sorted(s)
d = {"a": 1}
d.setdefault("b", 2); d.update(c=3)
list(d.items()), d.get("z", 0), d.pop("a"), d
""",
        "a loop that catches what each step raises": """\
import torch
results = []
for shape in [(2, 2), (2, 3), (3, 3)]:
    a = torch.ones(shape)
    try:
        results.append(torch.linalg.det(a).item())
    except RuntimeError as e:
        results.append(type(e).__name__)

results
def safe_div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        return float("inf")
    finally:
        print("divided", a, "by", b)

safe_div(1, 0)
safe_div(torch.tensor(1.), 0)
""",
    },
    "pytorch_code_nn": {
        "a module subclass: registration, printing, parameters": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 1, bias=False)
    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))

net = Net()
net
[(name, tuple(p.shape)) for name, p in net.named_parameters()]
sum(p.numel() for p in net.parameters())
net.fc1.weight
net.fc1.bias
net.fc2.bias is None
out = net(torch.ones(2, 3))
out
out.grad_fn
net.training, net.eval().training, net.fc1.training, net.train().training
list(net.state_dict().keys())
out.sum().backward()
net.fc2.weight.grad
net.zero_grad()
net.fc2.weight.grad is None
""",
        "Linear, Sequential, activations and losses print as PyTorch prints them": """\
import torch
import torch.nn as nn
torch.manual_seed(1)
model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 3), nn.Softplus(), nn.Sigmoid())
model
model[0]
len(model)
nn.ReLU(), nn.MSELoss(), nn.CrossEntropyLoss()
nn.Linear(4, 2, bias=False)
p = nn.Parameter(torch.tensor([1., 2.]))
p
p.requires_grad, p.is_leaf, type(p)
nn.Parameter(torch.zeros(2), requires_grad=False)
(p * 2).sum()
nn.MSELoss()(torch.tensor([1., 2.]), torch.tensor([0., 4.]))
nn.MSELoss(reduction="sum")(torch.tensor([1., 2.]), torch.tensor([0., 4.]))
nn.CrossEntropyLoss()(torch.tensor([[2., 1., 0.1], [0.5, 2., 0.3]]), torch.tensor([0, 1]))
torch.cuda.is_available()
""",
        "an engine error inside a module is PyTorch's": """\
import torch
import torch.nn as nn
lin = nn.Linear(3, 2)
try:
    lin(torch.ones(4, 5))
except RuntimeError as e:
    print(e)

class NoForward(nn.Module):
    pass

try:
    NoForward()(1)
except NotImplementedError as e:
    print(e)

class Early(nn.Module):
    def __init__(self):
        self.fc = nn.Linear(1, 1)

try:
    Early()
except AttributeError as e:
    print(e)
""",
        "linear regression with SGD, step by step": """\
import torch
torch.manual_seed(0)
X = torch.linspace(-1, 1, 20).unsqueeze(1)
y = 3 * X + 0.5 + 0.1 * torch.randn(20, 1)
w = torch.zeros(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1)
for step in range(8):
    opt.zero_grad()
    loss = ((X @ w + b - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))

w, b
""",
        "a two-layer MLP trained with SGD and momentum": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
x = torch.randn(32, 2)
target = (x[:, :1] * x[:, 1:]).tanh()
loss_fn = nn.MSELoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
for epoch in range(10):
    opt.zero_grad()
    loss = loss_fn(model(x), target)
    loss.backward()
    opt.step()
    print(epoch, f"{loss.item():.5f}")

opt
""",
        "a classifier trained with Adam and CrossEntropyLoss": """\
import torch
import torch.nn as nn
torch.manual_seed(3)
net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
x = torch.randn(24, 4)
labels = torch.randint(0, 3, (24,))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
for epoch in range(12):
    opt.zero_grad()
    loss = criterion(net(x), labels)
    loss.backward()
    opt.step()
    print(epoch, f"{loss.item():.4f}")

(net(x).argmax(dim=1) == labels).float().mean()
""",
        "a polynomial fit in float64 with explicit weights": """\
import torch
torch.set_default_dtype(torch.float64)
x = torch.linspace(-2, 2, 30)
y = 0.5 * x ** 3 - x + 2
coeffs = torch.nn.Parameter(torch.tensor([0.1, -0.2, 0.3, 0.0]))
opt = torch.optim.SGD([coeffs], lr=0.01, momentum=0.5, nesterov=True)
for step in range(6):
    opt.zero_grad()
    pred = sum(c * x ** i for i, c in enumerate(coeffs))
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item())

coeffs
""",
        "torch names snippets use: in-place functions, finfo, result_type, tensor_split": """\
import torch
a = torch.tensor([0.5, 1.0])
torch.sin_(a)
a
torch.exp_(a), torch.relu_(torch.tensor([-1., 2.])), torch.clamp_(torch.tensor([-3., 3.]), -1, 1)
torch.finfo(torch.float32)
torch.finfo(torch.float64).eps, torch.finfo(torch.float16).max, torch.finfo().tiny
torch.iinfo(torch.int32).max, torch.iinfo(torch.uint8)
torch.result_type(torch.tensor([1], dtype=torch.int32), 1.0)
torch.result_type(torch.tensor([1], dtype=torch.int32), torch.tensor(1., dtype=torch.float64))
torch.result_type(torch.tensor([1]), 2), torch.result_type(2, 3.0)
torch.tensor_split(torch.arange(7., requires_grad=True), 3)
torch.tensor_split(torch.arange(7.), [1, 5])
torch.tensor_split(torch.arange(12).reshape(3, 4), 3, dim=1)
@torch.inference_mode
def predict(x):
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    return x * 2

predict(torch.ones(1, requires_grad=True)).requires_grad
torch.is_inference_mode_enabled()
torch.manual_seed(0)
w = torch.empty(3, 4).uniform_(-1, 1)
w, w._version
torch.zeros(20).normal_(2, 0.5)
torch.empty(2, dtype=torch.float64).uniform_()
v = torch.zeros(2, requires_grad=True)
v.uniform_()
with torch.no_grad():
    v.normal_()

v
""",
    },
    "pytorch_code_func": {
        "grad, grad_and_value, argnums, has_aux and nesting": """\
import torch
from torch.func import grad, grad_and_value
x = torch.tensor([0.5, 1.0, 2.0])
f = lambda x: (x.sin() * x).sum()
grad(f)(x)
grad_and_value(f)(x)
grad(lambda x, y: (x * y ** 2).sum(), argnums=(0, 1))(x, x + 1)
grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(x)
d2 = grad(grad(torch.sin))
d2(torch.tensor(1.0)), -torch.sin(torch.tensor(1.0))
grad(lambda p: (p["w"] * p["b"]).sum())({"w": x, "b": torch.ones(3)})
w = torch.tensor([1., 2.], requires_grad=True)
g = grad(lambda v: (v ** 3).sum())(w)
g
g.sum().backward()
w.grad
""",
        "vjp, jvp, linearize, jacrev, jacfwd, hessian": """\
import torch
from torch.func import vjp, jvp, jacrev, jacfwd, hessian, linearize
x = torch.tensor([0.5, 1.0, 2.0])
out, vjp_fn = vjp(lambda x: x ** 2, x)
out, vjp_fn(torch.ones(3))
jvp(lambda x: x.exp(), (x,), (torch.ones(3),))
jvp(lambda a, b: (a * b, a + b), (x, x), (torch.ones(3), torch.zeros(3)))
value, jvp_fn = linearize(torch.cos, x)
jvp_fn(torch.tensor([1., 0., 0.]))
jacrev(torch.sin)(x)
jacfwd(lambda a, b: a * b, argnums=(0, 1))(x, x)
jacrev(lambda x: (x.sum(), x ** 2))(x)
hessian(lambda x: (x ** 3).sum())(x)
jacfwd(jacrev(lambda x: x.sin().sum()))(x)
""",
        "vmap with in_dims, out_dims, nesting and transforms inside": """\
import torch
from torch.func import vmap, grad, jacrev
A = torch.arange(6.).reshape(2, 3)
vmap(torch.sum)(A)
vmap(torch.dot)(torch.ones(2, 3), A)
vmap(lambda a, v: a * v, in_dims=(0, None))(A, torch.tensor([1., 10., 100.]))
vmap(lambda c: c * 2, in_dims=1, out_dims=1)(A)
vmap(vmap(lambda a, b: a * b), in_dims=(0, None))(torch.ones(2, 3), torch.tensor([1., 2., 3.]))
vmap(grad(lambda r: (r ** 2).sum()))(A)
vmap(jacrev(torch.sin))(torch.zeros(2, 2))
vmap(lambda a: (a.sum(), a.max()))(A)
""",
        "functional_call: a module's forward with other parameters": """\
import torch
from torch.func import functional_call, grad
model = torch.nn.Linear(3, 1)
x = torch.tensor([1., 2., 3.])
params = {"weight": torch.ones(1, 3), "bias": torch.zeros(1)}
functional_call(model, params, (x,))
grads = grad(lambda p: functional_call(model, p, (x,)).sum())(params)
grads["weight"], grads["bias"]
[name for name, _ in model.named_parameters()]
""",
        "torch.func with a model: per-sample gradients by vmap over grad": """\
import torch
from torch.func import functional_call, grad, vmap
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
params = {k: v.detach() for k, v in model.named_parameters()}
x = torch.randn(4, 3)
y = torch.randn(4, 1)
def loss(p, xi, yi):
    out = functional_call(model, p, (xi.unsqueeze(0),))
    return ((out - yi) ** 2).mean()

per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
per_sample["weight"].shape, per_sample["bias"].shape
per_sample["bias"]
""",
        "torch.func errors are PyTorch's": """\
import torch
from torch.func import grad, vjp, jvp, vmap
x = torch.tensor([1., 2., 3.])
grad(lambda x: x)(x)
grad(lambda x: 3.0)(x)
grad(lambda x: x.sum(), argnums=2)(x)
grad(lambda x: x.sum(), argnums=1.5)(x)
grad(lambda x: x.sum(), has_aux=True)(x)
grad(lambda x: x.sum())(3.0)
grad(lambda x: x.sum())(torch.tensor([1, 2]))
jvp(torch.sin, x, x)
vjp(torch.sin, x)[1](torch.ones(2))
vmap(lambda a, b: a + b)(torch.ones(2, 3), torch.ones(3, 3))
vmap(lambda a: a, in_dims=2)(torch.ones(2, 3))
vmap(lambda a: a)(3.0)
vmap(lambda a, b: a * b, in_dims=(None, None))(x, x)
vmap(lambda a: a, in_dims=[0])(x)
""",
    },
}


def statements(snippet):
    """The snippet cut into statements as the piped REPL reads them (a compound statement ends
    with the blank line that closes it)."""
    return [source.split("\n") + ([""] if is_compound(source) else [])
            for source in console_statements(snippet.splitlines(), is_complete)]


# Warnings PyTorch's own machinery gives the first time torch.func compiles its helpers (not
# about the program: they depend on what ran before in the process)
INTERNAL_WARNINGS = ("DeprecationWarning: `torch.jit.script` is deprecated",
                     "UserWarning: Attempted to insert a get_attr Node")


def transcript_text(sessions):
    """The transcript file of {title: snippet}, with what PyTorch prints."""
    import torch
    from sessions import torch_transcript
    texts = []
    for title, snippet in sessions.items():
        try:
            session = torch_transcript(statements(snippet), title)
        finally:  # (a session may set it: the next starts as a fresh interpreter would)
            torch.set_default_dtype(torch.float32)
        for statement in session.statements:
            statement.expected = [line for line in statement.expected
                                  if not line.startswith(INTERNAL_WARNINGS)]
        texts.append("\n".join(session.text_lines()))
    return "\n\n".join(texts) + "\n"


def write_all():
    for stem, sessions in SESSIONS.items():
        (TRANSCRIPTS / f"{stem}.txt").write_text(transcript_text(sessions), encoding="utf-8")


if __name__ == "__main__":
    write_all()
