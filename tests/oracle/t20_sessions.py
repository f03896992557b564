"""Sessions of the rest of issue 20 (float sums in PyTorch's order, inference tensors, messages,
the names added since): `python tests/oracle/t20_sessions.py` (with torch installed) writes
tests/transcripts/oracle/<name>.txt from what PyTorch prints; the transcripts are committed, so
tests/lang/test_transcripts.py checks gradcli against them without torch, and
test_t20_transcripts.py checks that they are still what PyTorch prints."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from issue20_sessions import TRANSCRIPTS, transcript_text  # noqa: E402

# file stem -> {session title: snippet}
SESSIONS = {
    "pytorch_code_sums": {
        "float32 sums, means and norms print PyTorch's 17 digits": """\
import torch
x = torch.arange(2000.) / 100
y = 0.37 * x + 0.01
print(y.sum().item(), y.mean().item())
print(y.norm().item(), torch.linalg.vector_norm(y, 1).item(), y.norm(dim=0).item())
w = torch.arange(60000.).reshape(300, 200) / 7 - 1000
print(w.sum().item(), w.mean().item())
print(w.sum(0)[:3].tolist(), w.t().sum(1)[-3:].tolist())
print(w.mean(1, keepdim=True)[:2].tolist(), w.norm(dim=1)[:2].tolist())
print(w[:, ::3].sum().item(), w.t().norm().item())
""",
        "a long sum is split between threads, as PyTorch splits it": """\
import torch
threads = torch.get_num_threads()
v = torch.arange(100000.) / 3 - 10000
for n in [1, 2, 3, 4]:
    torch.set_num_threads(n)
    print(n, v.sum().item(), v.norm().item(), v.reshape(1000, 100).sum(0)[7].item())

torch.set_num_threads(threads)
torch.set_num_threads(0)
""",
        "a training loop prints the losses PyTorch prints": """\
import torch
torch.manual_seed(0)
X = torch.linspace(-1, 1, 2000).unsqueeze(1)
Y = 0.37 * X + 0.01
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.5)
for step in range(6):
    opt.zero_grad()
    loss = ((X * w + b - Y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item(), w.item(), b.item())

""",
    },
    "pytorch_code_inference": {
        "tensors made in inference mode are inference tensors": """\
import torch
print(torch.is_inference_mode_enabled())
x = torch.ones(3, requires_grad=True)
with torch.inference_mode():
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    a = torch.ones(3)
    b = x * 2
    a.add_(1)
    with torch.inference_mode(False):
        c = torch.ones(1)

print(a.is_inference(), b.is_inference(), b.requires_grad, c.is_inference())
print(torch.is_inference(a), a.view(3).is_inference(), a.detach().is_inference())
print(a.clone().is_inference(), (a * 2).is_inference(), a.data.is_inference())
print(a, x.is_inference())
@torch.inference_mode()
def infer(t):
    return t * 3

print(infer(x).is_inference(), infer(x).requires_grad)
""",
        "in-place changes, requires_grad and saving for backward outside the mode fail": """\
import torch
x = torch.ones(3, requires_grad=True)
with torch.inference_mode():
    a = torch.ones(3)
    m = torch.ones(2, 2)

a.add_(1)
a
a.mul_(2)
a[0] = 5.
a.zero_()
a.copy_(torch.zeros(3))
a._version
a.requires_grad_()
a.requires_grad = True
a.requires_grad_(False)
torch.nn.Parameter(a)
x * a
torch.dot(x, a)
(x + a).sum()
(torch.exp(a) * x).sum()
try:
    m.exp_()
except RuntimeError as e:
    print(type(e).__name__, str(e)[:60])

class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, p, q):
        ctx.save_for_backward(q)
        return p * 2
    @staticmethod
    def backward(ctx, g):
        q, = ctx.saved_tensors
        return g * q, None

Scale.apply(x, a)
Scale.apply(x, a.clone())
""",
        "inside the mode, inference tensors change in place; normal ones keep their version": """\
import torch
n = torch.ones(3)
with torch.inference_mode():
    a = torch.ones(3)
    a.add_(1)
    a.requires_grad_()
    n.add_(1)
    v = n[:2]
    print(a, n._version, v.is_inference())

print(a.requires_grad, n._version)
v.add_(1)
print(n, n._version)
""",
    },
    "pytorch_code_messages": {
        "the version-counter error names the node that saved the output": """\
import torch
x = torch.tensor([1., 2.], requires_grad=True)
for make in [lambda: torch.pow(2, x), lambda: 2 ** x, lambda: torch.pow(x, x),
             lambda: x.prod(), lambda: x.exp()]:
    y = make()
    z = y.exp()
    y.add_(1)
    try:
        z.sum().backward()
    except RuntimeError as e:
        print(type(y.grad_fn).__name__, "|", str(e).split(", is at")[0].split("output 0 of ")[1])

""",
        "writing into an expanded tensor": """\
import torch
a = torch.zeros(3)
e = a.expand(2, 3)
e.add_(1)
e.mul_(2)
e.copy_(torch.ones(2, 3))
e += 1
torch.ones(3, 1).expand(3, 4).sin_()
e.fill_(2)
print(a, a._version)
e.zero_()
e[0] = torch.tensor([1., 2., 3.])
print(a, e, a._version)
e[:, 0] = 5.
b = torch.zeros(3, 1)
f = b.expand(3, 4)
f[:, 1] = torch.tensor([7., 8., 9.])
print(b.t())
f[0] = 1.
c = torch.ones(3)
c.expand(3).add_(1)
print(c, c._version)
""",
        "autograd.grad with is_grads_batched": """\
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
torch.autograd.grad(x ** 2, x, torch.eye(3), is_grads_batched=True)
w = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
z = w @ w
torch.autograd.grad(z, w, torch.ones(4, 2, 2), retain_graph=True, is_grads_batched=True)
torch.autograd.grad(z, w, torch.ones(2, 3, 2), retain_graph=True, is_grads_batched=True)
torch.autograd.grad(z, w, torch.ones(2, 2), retain_graph=True, is_grads_batched=True)
torch.autograd.grad(z.sum(), w, None, retain_graph=True, is_grads_batched=True)
s = (x * 2).sum()
torch.autograd.grad(s, x, torch.tensor([1., 2., 3.]), is_grads_batched=True)
torch.autograd.grad([x ** 2, x.sin()], x, [torch.eye(3), torch.ones(3, 3)], is_grads_batched=True)
torch.autograd.grad([x ** 2, x.sin()], x, [torch.eye(3), torch.ones(2, 3)], is_grads_batched=True)
torch.autograd.grad(x ** 2, [x, w], torch.eye(3), is_grads_batched=True, allow_unused=True)
torch.autograd.grad(x ** 2, [x, w], torch.eye(3), is_grads_batched=True)
torch.autograd.grad(x ** 2, [x, w], torch.eye(3), is_grads_batched=True, materialize_grads=True)
torch.autograd.grad(x ** 2, x, torch.ones(0, 3), is_grads_batched=True)
torch.autograd.grad(x ** 2, x, torch.ones(2, 3, dtype=torch.int64), is_grads_batched=True)
y = x ** 2
g, = torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True, retain_graph=True)
torch.autograd.grad(y, x, torch.ones(1, 3), is_grads_batched=True)
torch.autograd.grad(y, x, torch.ones(1, 3), is_grads_batched=True)
""",
    },
    "pytorch_code_names": {
        "in-place shape methods: squeeze_, unsqueeze_, transpose_, t_": """\
import torch
x = torch.tensor([[1., 2., 3.]], requires_grad=True)
y = x * 2
y.squeeze_()
print(y.grad_fn, y._version, y.shape)
y = x * 2
y.squeeze_(0)
y.unsqueeze_(1)
print(y.grad_fn, y._version, y.is_leaf)
y.transpose_(0, 1)
print(y.grad_fn, y._version, y.is_contiguous())
y.t_()
print(y.grad_fn, y._version)
y.sum().backward()
x.grad
y = (x * 2).unsqueeze(-1)
y.squeeze_((0, 2))
y.grad_fn
x.squeeze_()
z = torch.ones(2, 3)
z.t_()
print(z.shape, z._version)
torch.ones(2, 2, 2).t_()
torch.ones(1, 2, 1).squeeze_((0, 2)).shape
torch.ones(2).unsqueeze_(3)
torch.ones(2).transpose_(0, 2)
b = torch.ones(2, 3)
v = b[0]
v.unsqueeze_(0)
print(v.shape, b.shape, b._version)
w = torch.ones(2, 3, requires_grad=True).clone()
vv = w[0]
vv.unsqueeze_(0)
print("t_" in dir(torch), "squeeze_" in dir(torch), "t_" in dir(z))
""",
        "torch.linalg.multi_dot, pinv and solve_triangular": """\
import torch
A = torch.tensor([[2., 1.], [1., 3.]], requires_grad=True)
B = torch.tensor([[1., 2., 0.], [0., 1., 1.]], requires_grad=True)
C = torch.tensor([[1.], [2.], [3.]], requires_grad=True)
D = torch.tensor([[1., 2., 3., 4.]], requires_grad=True)
v = torch.tensor([1., 2.], requires_grad=True)
m = torch.linalg.multi_dot([A, B, C])
print(m, m.grad_fn.next_functions[0][0].next_functions)
m = torch.linalg.multi_dot([A, B, C, D])
m.grad_fn.next_functions[0][0].next_functions
s = torch.linalg.multi_dot([v, A, v])
s.backward()
print(s, v.grad, A.grad)
p = torch.linalg.pinv(B)
p
torch.linalg.pinv(A, hermitian=True)
U = torch.tensor([[2., 1.], [0., 3.]], requires_grad=True)
b = torch.tensor([[1.], [2.]], requires_grad=True)
x = torch.linalg.solve_triangular(U, b, upper=True)
x.sum().backward()
print(x, U.grad, b.grad)
torch.linalg.solve_triangular(U, b.t(), upper=True, left=False)
torch.linalg.solve_triangular(U, b, upper=False, unitriangular=True)
torch.linalg.multi_dot([A])
torch.linalg.multi_dot([A, C])
torch.linalg.multi_dot([torch.ones(2, 2, 2), A])
torch.linalg.multi_dot([A, v, A])
torch.linalg.multi_dot([A, A.double()])
torch.linalg.solve_triangular(U, b)
torch.linalg.solve_triangular(U, torch.ones(3, 1), upper=True)
torch.linalg.solve_triangular(U, torch.ones(3, 1), upper=True, left=False)
torch.linalg.pinv(v)
""",
        "the scatter/index family: scatter, scatter_add, index_add, index_copy, index_fill": """\
import torch
x = torch.zeros(3, 4, requires_grad=True)
src = torch.arange(1., 13.).reshape(3, 4).requires_grad_()
idx = torch.tensor([[0, 1, 2, 0], [2, 0, 0, 1]])
torch.scatter(x, 0, idx, src)
x.scatter(0, idx, 5.)
x.scatter_add(0, idx, src)
x.scatter(0, idx.float(), src)
x.scatter(0, idx + 5, src)
x.scatter(0, idx[0], src)
x.scatter(0, torch.zeros(4, 4, dtype=torch.long), src)
x.scatter(0, idx, torch.ones(1, 1))
x.scatter(0, idx, src.double())
i1 = torch.tensor([0, 2])
s2 = torch.ones(2, 4, requires_grad=True)
x.index_add(0, i1, s2, alpha=2)
x.index_copy(0, i1, s2)
x.index_fill(1, i1, -1.)
x.index_fill(1, i1, torch.tensor(-1., requires_grad=True))
x.index_add(0, i1, torch.ones(3, 4))
x.index_add(0, idx, s2)
x.index_add(0, i1.float(), s2)
x.index_add(0, torch.tensor([0, 5]), s2)
x.index_copy(0, i1, torch.ones(3, 4))
x.index_copy(0, torch.tensor([0, 5]), s2)
x.index_fill(1, torch.tensor([7]), 1.)
x.index_fill(1, i1, torch.ones(2))
y = x.clone()
y.scatter_(0, idx, src).grad_fn
y = x.clone()
y.index_add_(0, i1, s2).grad_fn
y = x.clone()
y.index_fill_(0, i1, 2.).grad_fn
y = x.clone()
y.index_copy_(0, i1, s2).grad_fn
y = x.clone()
(y.scatter_add_(0, idx, src).grad_fn, y)
out = torch.scatter(x * 2, 0, idx, src[:2] * 3).sum() + x.index_add(1, torch.tensor([1, 1]), torch.ones(3, 2, requires_grad=True) * src[:, :2], alpha=0.5).pow(2).sum()
out.backward(); print(x.grad, src.grad)
v = torch.tensor(2., requires_grad=True)
x.index_fill(0, i1, v).sum().backward(); print(v.grad)
x.scatter_(0, idx, 1.)
torch.index_add(torch.zeros(3), 0, torch.tensor([1, 1]), torch.ones(2))
torch.index_fill(torch.zeros(3), 0, torch.tensor([1]), 4.)
torch.scatter_add(torch.zeros(3), 0, torch.tensor([1, 1]), torch.ones(2))
""",
        "index_put and index_put_": """\
import torch
x = torch.zeros(3, 4, requires_grad=True)
i1 = torch.tensor([0, 2])
vals = torch.ones(4, requires_grad=True)
x.index_put((i1,), vals)
torch.index_put(x, (torch.tensor([0, 0]),), torch.ones(2, 4), accumulate=True)
x.index_put((torch.tensor([0, 0]), torch.tensor([1, 3])), torch.tensor([5., 6.]), True)
x.index_put((torch.tensor([True, False, True]),), torch.tensor(3.))
x.index_put((i1,), torch.ones(3))
x.index_put((i1,), torch.ones(4, dtype=torch.float64))
x.index_put(i1, vals)
x.index_put((i1.float(),), vals)
out = (x * 2).index_put((i1,), vals * 3).pow(2).sum() + x.index_put((torch.tensor([1, 1]),), vals, accumulate=True).sum()
out.backward(); print(x.grad, vals.grad)
y = x.detach().clone()
(y.index_put_((i1,), torch.tensor(7.)), y._version)
z = (x * 1)
z.index_put_((i1,), vals).grad_fn
""",
    },
    "pytorch_code_scatter_reduce": {
        "scatter_reduce: each reduction, with and without self": """\
import torch
x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
src = torch.tensor([[10., 20., 30.], [40., 50., 60.]], requires_grad=True)
idx = torch.tensor([[0, 1, 0], [1, 0, 0]])
for reduce in ["sum", "prod", "mean", "amax", "amin"]:
    for include_self in [True, False]:
        y = torch.scatter_reduce(x, 0, idx, src, reduce, include_self=include_self)
        g = torch.autograd.grad((y * torch.arange(1., 7.).reshape(2, 3)).sum(), (x, src))
        print(reduce, include_self, y.tolist(), g[0].tolist(), g[1].tolist())

y = x.scatter_reduce(1, torch.tensor([[2, 2, 0], [1, 1, 1]]), src, "mean")
y
fn = y.grad_fn
(fn._saved_dim, fn._saved_reduce, fn._saved_include_self, fn._saved_index)
fn._saved_result
fn.next_functions
torch.scatter_reduce(torch.tensor([-7, 3]), 0, torch.tensor([0, 0, 1]), torch.tensor([2, 1, -8]), "mean")
torch.scatter_reduce(torch.zeros(3), 0, torch.tensor([2, 2]), torch.tensor([1., float('nan')]), "amax")
""",
        "amax and amin share the gradient among ties; prod's gradient with zeros": """\
import torch
a = torch.tensor([1., 3., 3., 0.], requires_grad=True)
s = torch.tensor([3., 3., 1., 0., 0.], requires_grad=True)
i = torch.tensor([0, 0, 1, 3, 3])
for reduce in ["amax", "amin"]:
    for include_self in [True, False]:
        a.grad = s.grad = None
        a.scatter_reduce(0, i, s, reduce, include_self=include_self).backward(torch.tensor([1., 2., 3., 4.]))
        print(reduce, include_self, a.grad.tolist(), s.grad.tolist())

b = torch.tensor([2., 0., 3.], requires_grad=True)
z = torch.tensor([0., 5., 0., 0., 4.], requires_grad=True)
j = torch.tensor([0, 0, 1, 2, 2])
y = b.scatter_reduce(0, j, z, "prod")
gb, gz = torch.autograd.grad(y.sum(), (b, z), create_graph=True)
gb, gz
torch.autograd.grad(gz.sum(), (b, z))
zz = torch.tensor([0., 0., 1., 2., 4.], requires_grad=True)
gb, gz = torch.autograd.grad(b.scatter_reduce(0, j, zz, "prod").sum(), (b, zz), create_graph=True)
gz
gz.grad_fn.next_functions
torch.autograd.grad(gz.sum(), zz)
""",
        "in place, forward mode and the messages": """\
import torch
x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
src = torch.tensor([[10., 20., 30.], [40., 50., 60.]], requires_grad=True)
idx = torch.tensor([[0, 1, 0], [1, 0, 0]])
y = x.clone()
y.scatter_reduce_(0, idx, src, "amax", include_self=False)
(y.grad_fn.next_functions, y._version)
x.scatter_reduce_(0, idx, src, "sum")
x.scatter_reduce(0, idx, src, "max")
x.scatter_reduce(0, idx, src, "max").sum().backward()
x.scatter_reduce(0, idx, src, "add")
x.scatter_reduce(0, idx, 2., "sum")
x.scatter_reduce(0, idx, src)
x.scatter_reduce(0, idx, src, "sum", include_self=1)
x.scatter_reduce(0, idx.float(), src, "sum")
x.scatter_reduce(0, idx - 1, src, "sum")
x.scatter_reduce(0, idx, src.double(), "sum")
x.scatter_reduce(0, idx[0], src, "sum")
torch.scatter_reduce(torch.tensor([True, False]), 0, torch.tensor([0, 1]), torch.tensor([False, True]), "mean")
import torch.autograd.forward_ad as fwAD
with fwAD.dual_level():
    d = fwAD.make_dual(torch.tensor([1., 3., 3., 0.]), torch.tensor([1., 2., 3., 4.]))
    e = fwAD.make_dual(torch.tensor([3., 3., 1., 0., 0.]), torch.tensor([5., 6., 7., 8., 9.]))
    for reduce in ["sum", "mean", "amax", "amin", "prod"]:
        print(reduce, fwAD.unpack_dual(d.scatter_reduce(0, torch.tensor([0, 0, 1, 3, 3]), e, reduce)).tangent)

""",
        "scatter with reduce='add' or 'multiply' (no derivative in PyTorch)": """\
import torch
x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
src = torch.tensor([[10., 20., 30.], [40., 50., 60.]], requires_grad=True)
idx = torch.tensor([[0, 1, 0], [1, 0, 0]])
y = x.scatter(0, idx, src, reduce="add")
y
y.grad_fn.next_functions
x.scatter(0, idx, src, reduce="multiply")
torch.scatter(x, 0, idx, 2.5, reduce="multiply").grad_fn.next_functions
x.detach().scatter(0, idx, src, reduce="add").grad_fn.next_functions
y.sum().backward()
z = x.clone()
z.scatter_(0, idx, 3., reduce="add")
z.sum().backward()
torch.scatter(torch.arange(6).reshape(2, 3), 0, idx, 2.7, reduce="multiply")
x.scatter(0, idx, src, reduce="mean")
x.scatter(0, idx - 1, 1., reduce="add")
""",
    },
    "pytorch_code_graph_fidelity": {
        "in-place activations that read self save a clone of it (CloneBackward0)": """\
import torch
import torch.nn.functional as F
x = torch.tensor([[-2., 0.5, 3.], [7., -0.2, 1.]], requires_grad=True)
y = F.hardtanh(x * 1, inplace=True)
y.grad_fn._saved_self
g, = torch.autograd.grad((y * 2).sum(), x, create_graph=True)
g.grad_fn.next_functions[0][0].next_functions
y = F.relu6(x.clone(), inplace=True)
(y.grad_fn, y.grad_fn._saved_self.grad_fn.next_functions)
y = torch.threshold_(x * 1, 0.3, -1.)
y.grad_fn._saved_self
F.threshold(x * 1, 0.3, -1., inplace=True).grad_fn._saved_self.grad_fn
v = x.clone()[1]
F.hardtanh_(v, -0.5, 1.5)
torch.selu_(x * 1).grad_fn._saved_result
torch.celu_(x * 1, 2.)
torch.threshold_(x, 0.3, -1.)
""",
        "autograd.functional.jvp(create_graph=True) through reductions: SqueezeBackward1": """\
import torch
from torch.autograd.functional import jvp
x = torch.tensor([[2., 3., -1.], [0.5, 1., 4.]], requires_grad=True)
v = torch.tensor([[1., 0., 2.], [0.5, -1., 1.]])
out, t = jvp(lambda a: a.prod(1), x, v, create_graph=True)
t
t.grad_fn.next_functions
jvp(lambda a: a.logsumexp(1), x, v, create_graph=True)[1].grad_fn
jvp(lambda a: a.norm(dim=1), x, v, create_graph=True)[1].grad_fn
jvp(lambda a: a.var(1), x, v, create_graph=True)[1].grad_fn.next_functions
jvp(lambda a: a ** 3, x, v, create_graph=True)[1].grad_fn.next_functions
g, = torch.autograd.grad((x.max(1).values ** 2).sum(), x, create_graph=True)
(g, g._version)
g, = torch.autograd.grad((x.mean(1) ** 2).sum(), x, create_graph=True)
g.grad_fn
""",
    },
}


def write_all():
    for stem, sessions in SESSIONS.items():
        (TRANSCRIPTS / f"{stem}.txt").write_text(transcript_text(sessions), encoding="utf-8")


if __name__ == "__main__":
    write_all()
