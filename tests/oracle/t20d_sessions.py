"""Sessions of module hooks and buffers, and of the refusals inside vmap (issue 20):
`python tests/oracle/t20d_sessions.py` (with torch installed) writes
tests/transcripts/oracle/<name>.txt from what PyTorch prints; the transcripts are committed, so
tests/lang/test_transcripts.py checks gradcli against them without torch, and
test_t20d_transcripts.py checks that they are still what PyTorch prints."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from issue20_sessions import TRANSCRIPTS, transcript_text  # noqa: E402

# file stem -> {session title: snippet}
SESSIONS = {
    "pytorch_code_nn_buffers": {
        "register_buffer: buffers, named_buffers, state_dict without the non-persistent": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(2))
        self.register_buffer("running_mean", torch.zeros(2))
        self.register_buffer("scratch", torch.ones(1), persistent=False)
        self.register_buffer("unset", None)
        self.count = nn.Buffer(torch.tensor(0))
        self.fc = nn.Linear(2, 2)
    def forward(self, x):
        self.running_mean.mul_(0.9).add_(0.1 * x.mean(0).detach())
        self.count += 1
        return self.fc(x * self.scale) - self.running_mean

m = Norm()
m
list(m.named_buffers())
list(m.buffers())
list(m.state_dict().keys())
m.running_mean
m(torch.tensor([[1., 2.], [3., 4.]])).sum()
m.running_mean, m.count
list(m.named_buffers(prefix="model"))
list(m.named_buffers(recurse=False))
list(nn.Sequential(m, nn.ReLU()).state_dict().items())
m.unset is None
b = nn.Buffer(torch.ones(3), persistent=False)
b, type(b), isinstance(b, nn.Buffer), isinstance(torch.ones(1), nn.Buffer), b.persistent
m.extra = b
list(m.state_dict().keys()), list(dict(m.named_buffers()).keys())
""",
        "assigning to a buffer, deleting it, load_state_dict and dtype moves": """\
import torch
import torch.nn as nn
m = nn.Module()
m.register_buffer("stat", torch.zeros(2))
m.register_buffer("steps", torch.tensor(3))
m.register_buffer("tmp", torch.ones(2), persistent=False)
m.stat = torch.tensor([5., 6.])
m.stat, list(m.named_buffers())
try:
    m.stat = 3
except TypeError as e:
    print(e)

m.tmp = torch.full((2,), 7.)
list(m.state_dict().keys())
m.stat = None
list(m.named_buffers()), list(m.state_dict())
m.register_buffer("stat", torch.zeros(2))
sd = m.state_dict()
sd["stat"] = torch.tensor([1., 2.])
m.load_state_dict(sd)
m.stat
del sd["stat"]
try:
    m.load_state_dict(sd)
except RuntimeError as e:
    print(e)

m.load_state_dict(sd, strict=False)
sd["other"] = torch.ones(1)
try:
    m.load_state_dict(sd)
except RuntimeError as e:
    print(e)

m.double()
m.stat.dtype, m.steps.dtype, m.tmp.dtype
m.float().stat.dtype, m.to(torch.float64).tmp.dtype, m.steps.dtype
del m.stat
list(m.named_buffers())
m.get_buffer("steps")
""",
        "load_state_dict: sizes and values checked, the rest loaded": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
m = nn.Linear(2, 2)
m.register_buffer("count", torch.tensor(0))
sd = {"weight": torch.ones(3, 2), "bias": torch.full((2,), 7.), "count": torch.tensor([4])}
m.load_state_dict(sd)
m.bias, m.count
m.load_state_dict({"weight": torch.ones(2, 2), "bias": 3, "count": torch.tensor(1)})
m.load_state_dict({"weight": torch.ones(2, 2), "extra": torch.ones(1)}, strict=False)
m.load_state_dict({"weight": torch.ones(3, 3), "extra": torch.ones(1)})
m.weight
""",
        "buffer names are checked as PyTorch checks them": """\
import torch
import torch.nn as nn
m = nn.Linear(2, 2)
m.register_buffer("w", torch.ones(1))
m.register_buffer("weight", torch.ones(1))
m.register_buffer("a.b", torch.ones(1))
m.register_buffer("", torch.ones(1))
m.register_buffer(3, torch.ones(1))
m.register_buffer("q", 3)
m.register_buffer("forward", torch.ones(1))
m.register_parameter("w", nn.Parameter(torch.ones(1)))
m.w = nn.Parameter(torch.zeros(1))
list(m.named_buffers()), [n for n, _ in m.named_parameters()]
""",
        "functional_call swaps buffers too; strict names parameters and buffers": """\
import torch
import torch.nn as nn
from torch.func import functional_call
torch.manual_seed(0)
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.register_buffer("scale", torch.full((2,), 3.))
        self.register_buffer("tmp", torch.ones(2), persistent=False)
    def forward(self, x):
        return self.fc(x) * self.scale

m = Scaled()
x = torch.ones(1, 2)
functional_call(m, {"scale": torch.full((2,), 5.)}, (x,))
m.scale
params = {"fc.weight": torch.zeros(2, 2), "fc.bias": torch.ones(2)}
functional_call(m, params, (x,), strict=True)
functional_call(m, {**params, "scale": torch.ones(2), "tmp": torch.ones(2)}, (x,), strict=True)
functional_call(m, {**params, "scale": torch.ones(2), "tmp": torch.ones(2), "extra": x}, (x,),
                strict=True)
""",
    },
    "pytorch_code_nn_hooks": {
        "forward pre-hooks and forward hooks: what they see, what they replace, remove()": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(2, 3)
x = torch.ones(1, 2)
def show_pre(module, args):
    print("pre", type(module).__name__, args)

def show(module, args, output):
    print("post", args, output)

h1 = lin.register_forward_pre_hook(show_pre)
h2 = lin.register_forward_hook(show)
h1
type(h1)
y = lin(x)
h1.remove()
h2.remove()
h2.remove()
lin(x)
h = lin.register_forward_pre_hook(lambda m, args: args[0] * 2)
lin(x)
h.remove()
h = lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
lin(x)
h.remove()
h = lin.register_forward_hook(lambda m, args, out: out * 10)
lin(x)
h.remove()
with lin.register_forward_hook(lambda m, args, out: out.sum()):
    print(lin(x))

lin(x)
""",
        "with_kwargs, prepend and always_call": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(2, 3)
x = torch.ones(1, 2)
def pre(module, args, kwargs):
    print("pre", args, kwargs)
    return args, kwargs

def post(module, args, kwargs, output):
    print("post", args, kwargs, output.shape)

h1 = lin.register_forward_pre_hook(pre, with_kwargs=True)
h2 = lin.register_forward_hook(post, with_kwargs=True)
y = lin(x)
y = lin(input=x)
h1.remove()
h2.remove()
def swap(module, args, kwargs):
    return (), {"input": kwargs["input"] * 0}

h = lin.register_forward_pre_hook(swap, with_kwargs=True)
lin(input=x)
h.remove()
h = lin.register_forward_pre_hook(lambda m, a, k: a, with_kwargs=True)
lin(x)
h.remove()
order = []
handles = [lin.register_forward_hook(lambda m, a, o: order.append("post 1")),
           lin.register_forward_hook(lambda m, a, o: order.append("post 2"), prepend=True),
           lin.register_forward_pre_hook(lambda m, a: order.append("pre 1")),
           lin.register_forward_pre_hook(lambda m, a: order.append("pre 2"), prepend=True)]
y = lin(x)
order
for h in handles:
    h.remove()

class Fails(nn.Module):
    def forward(self, x):
        raise ValueError("bad input")

f = Fails()
f.register_forward_hook(lambda m, a, o: print("always", a, o), always_call=True)
f.register_forward_hook(lambda m, a, o: print("not always"))
f(x)
""",
        "hooks on the modules of a Sequential, a custom module, apply and named_modules": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
        self.out = nn.Linear(2, 1)
    def forward(self, x, scale=1.0):
        return self.out(self.inner(x)) * scale

net = Block()
seen = []
for name, module in net.named_modules():
    module.register_forward_hook(lambda m, a, o, name=name: seen.append((name, tuple(o.shape))))

y = net(torch.ones(3, 2), scale=2.0)
seen
[type(m).__name__ for m in net.modules()]
[type(m).__name__ for m in net.children()]
[n for n, _ in net.named_children()]
names = []
net.apply(lambda m: names.append(type(m).__name__))
names
net.get_submodule("inner.0")
net.get_parameter("out.bias").shape
acts = {}
def keep(name):
    def hook(module, args, output):
        acts[name] = output.detach()
    return hook

h = net.inner[1].register_forward_hook(keep("tanh"))
y = net(torch.ones(1, 2))
acts
""",
    },
    "pytorch_code_nn_backward_hooks": {
        "full backward hooks of a Linear: grad_input, grad_output and the graph": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(2, 3)
def back(module, grad_input, grad_output):
    print("hook", type(module).__name__, grad_input, grad_output)

def back_pre(module, grad_output):
    print("pre-hook", grad_output)

h = lin.register_full_backward_hook(back)
h2 = lin.register_full_backward_pre_hook(back_pre)
x = torch.ones(1, 2, requires_grad=True)
y = lin(x)
y
y.grad_fn
y.grad_fn.next_functions
y.grad_fn.next_functions[0][0].next_functions
y.grad_fn.next_functions[0][0].next_functions[1][0].next_functions
y.sum().backward()
x.grad
torch.autograd.grad(lin(x).sum(), x)
h.remove()
h2.remove()
lin(x).grad_fn
""",
        "hooks that replace gradients; a module whose input needs no grad": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(2, 3)
x = torch.ones(1, 2, requires_grad=True)
h1 = lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
h2 = lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 100,))
lin(x).sum().backward()
x.grad, lin.bias.grad
h1.remove()
h2.remove()
def back(module, grad_input, grad_output):
    print("hook", grad_input, grad_output)

h = lin.register_full_backward_hook(back)
y = lin(torch.ones(1, 2))
y.grad_fn, y.grad_fn.next_functions
y.sum().backward()
h.remove()
h = lin.register_full_backward_hook(lambda m, gi, go: (torch.ones(1, 2),))
lin(torch.ones(1, 2)).sum().backward()
""",
        "a module of two inputs and two outputs; a Sequential and its layers": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
class Two(nn.Module):
    def forward(self, a, b, k=3):
        return a * b, a + k

def back(module, grad_input, grad_output):
    print("hook", type(module).__name__, grad_input, grad_output)

def back_pre(module, grad_output):
    print("pre-hook", type(module).__name__, grad_output)

t = Two()
t.register_full_backward_hook(back)
t.register_full_backward_pre_hook(back_pre)
a = torch.ones(2, requires_grad=True)
b = torch.full((2,), 2.)
p, q = t(a, b)
p.grad_fn, q.grad_fn, p.grad_fn.next_functions
p.sum().backward()
p, q = t(a, b)
(p.sum() + q.sum()).backward()
a.grad
c = torch.full((2,), 2., requires_grad=True)
p, q = t(a, c)
p.grad_fn.next_functions[0][0].next_functions
(3 * q).sum().backward()
torch.manual_seed(0)
seq = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
seq.register_full_backward_hook(back)
seq[0].register_full_backward_hook(back)
seq[1].register_full_backward_pre_hook(back_pre)
x = torch.ones(1, 2, requires_grad=True)
seq(x).sum().backward()
""",
        "what a backward hook may return": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
x = torch.ones(1, 2, requires_grad=True)
lin = nn.Linear(2, 2)
h = lin.register_full_backward_hook(lambda m, gi, go: 5)
lin(x).sum().backward()
h.remove()
h = lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
lin(x).sum().backward()
h.remove()
h = lin.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
lin(x).sum().backward()
h.remove()
h = lin.register_full_backward_pre_hook(lambda m, go: None)
h2 = lin.register_full_backward_hook(lambda m, gi, go: (None,))
lin(x).sum().backward()
x.grad
h2.remove()
h2 = lin.register_full_backward_hook(lambda m, gi, go: (gi[0].sum(),))
lin(x).sum().backward()
""",
    },
    "pytorch_code_func_vmap_refusals": {
        "reading a value inside vmap: .item(), float(), if on a tensor, tolist()": """\
import torch
from torch.func import vmap
x = torch.tensor([[1., 2.], [3., -4.]])
vmap(lambda r: r.sum().item())(x)
vmap(lambda r: r * float(r.sum()))(x)
vmap(lambda r: r * int(r[0]))(x)
vmap(lambda r: r[int(r[0])])(x)
vmap(lambda r: r if r.sum() > 0 else -r)(x)
vmap(lambda r: r * 2 if r.any() else r)(x)
vmap(lambda r: r * 2 if (r > 0).all() else r)(x)
vmap(lambda r: bool(r > 0))(x)
vmap(lambda r: r * complex(r.sum()).real)(x)
vmap(lambda r: r * (3. in r))(x)
vmap(lambda r: torch.tensor(r.tolist()))(x)
vmap(lambda r: r.numpy())(x)
try:
    vmap(lambda r: r * r.max().item())(x)
except RuntimeError as e:
    print(type(e).__name__, str(e)[:60])

vmap(lambda r: r * len(r) * r.shape[0])(x)
vmap(lambda r: r * (r.sum() == 3))(x)
""",
        "reading tensors that do not depend on the mapped inputs": """\
import torch
from torch.func import vmap
x = torch.tensor([[1., 2.], [3., -4.]])
c = torch.tensor(2.)
w = torch.tensor([0.5, -1.])
vmap(lambda r: r * c.item())(x)
vmap(lambda r: r * 2 if c > 0 else r)(x)
vmap(lambda r: r * float(w.sum().exp()))(x)
vmap(lambda r: r + torch.tensor(3.).item())(x)
vmap(lambda r: r * int(torch.stack([c, c]).sum()))(x)
vmap(lambda r: r[w.argmax()])(x)
vmap(lambda r: r + len(w.tolist()))(x)
vmap(lambda r: r * (r * 0).sum().item())(x)
vmap(lambda r: torch.zeros_like(r).sum().item())(x)
vmap(lambda r: r.detach().sum().item())(x)
vmap(lambda r: torch.stack([c, r[0]]).sum().item())(x)
vmap(lambda r, s: r * s.item(), in_dims=(0, None))(x, c)
vmap(lambda r: r * w.nonzero().numel())(x)
vmap(lambda r: r * torch.unique(w).numel())(x)
vmap(lambda r: r * w[w > 0].sum())(x)
def scale_into(r):
    y = c.clone()
    y.mul_(r)
    return y

vmap(scale_into)(x)
def fill(r):
    y = torch.zeros(2)
    y[0] = r[0]
    return y

vmap(fill)(x)
def scaled_copy(r):
    y = r.clone()
    y.mul_(c)
    return y * y.sum()

vmap(scaled_copy)(x)
""",
        "operators whose result's shape depends on the values": """\
import torch
from torch.func import vmap
x = torch.tensor([[1., 2.], [3., -4.]])
vmap(lambda r: r.nonzero())(x)
vmap(lambda r: torch.nonzero(r, as_tuple=True)[0])(x)
vmap(lambda r: torch.unique(r))(x)
vmap(lambda r: r[r > 0])(x)
vmap(lambda r: torch.masked_select(r, r > 0))(x)
def zero_negatives(r):
    r = r.clone()
    r[r < 0] = 0.
    return r

vmap(zero_negatives)(x)
vmap(lambda r: torch.where(r > 0, r, 0.))(x)
""",
        "random operations: refused by default, 'different' and 'same' draw as PyTorch draws": """\
import torch
from torch.func import vmap
x = torch.tensor([[1., 2.], [3., -4.]])
vmap(lambda r: r + torch.rand(2))(x)
vmap(lambda r: r + torch.randn(2))(x)
vmap(lambda r: torch.randn_like(r))(x)
vmap(lambda r: torch.rand_like(r))(x)
vmap(lambda r: r.clone().normal_())(x)
vmap(lambda r: r.clone().uniform_(-1, 1))(x)
vmap(lambda r: r + torch.randint(0, 3, (2,)))(x)
vmap(lambda r, s: r + torch.rand(2), in_dims=(0, None))(x, torch.ones(2))
vmap(lambda r: r, randomness="sometimes")
torch.manual_seed(0)
vmap(lambda r: r + torch.rand(2), randomness="same")(x)
torch.manual_seed(0)
torch.rand(2)
torch.manual_seed(0)
vmap(lambda r: r + torch.rand(2), randomness="different")(x)
torch.manual_seed(0)
torch.rand(2, 2)
torch.manual_seed(0)
vmap(lambda r: torch.randn_like(r), randomness="different")(x)
torch.manual_seed(0)
vmap(lambda r: torch.randn_like(r), randomness="same")(x)
torch.manual_seed(0)
vmap(lambda r: r.clone().normal_(), randomness="same")(x)
torch.manual_seed(0)
vmap(lambda r: r.clone().uniform_(), randomness="different")(x)
torch.manual_seed(0)
vmap(lambda r: r + torch.randint(0, 10, (2,)), randomness="different")(x)
torch.manual_seed(0)
vmap(lambda r: r.sum() + torch.randn(20), randomness="different")(x)
torch.manual_seed(0)
vmap(lambda r: r.sum() + torch.randn(20), randomness="same")(x)
torch.manual_seed(0)
vmap(lambda r: r * 2, randomness="different")(x)
torch.rand(1)
torch.manual_seed(0)
torch.randn(3)
torch.manual_seed(0)
torch.randn(1)
vmap(lambda r: r + torch.randn(()), randomness="different")(torch.zeros(3))
""",
        "nested vmaps: each level's randomness": """\
import torch
from torch.func import vmap
x = torch.tensor([[1., 2.], [3., -4.]])
torch.manual_seed(0)
vmap(lambda r: vmap(lambda s: s + torch.rand(()), randomness="different")(r),
     randomness="different")(x)
torch.manual_seed(0)
vmap(lambda r: vmap(lambda s: s + torch.rand(()), randomness="same")(r),
     randomness="different")(x)
torch.manual_seed(0)
vmap(lambda r: vmap(lambda s: s + torch.rand(()), randomness="different")(r),
     randomness="same")(x)
vmap(lambda r: vmap(lambda s: s + torch.rand(()))(r), randomness="different")(x)
vmap(lambda r: vmap(lambda s: s + torch.rand(()), randomness="same")(r))(x)
vmap(lambda r: vmap(lambda s: s * s.item())(r))(x)
""",
    },
    "pytorch_code_grads_batched_graph": {
        "is_grads_batched with create_graph: pointwise gradients fold into one node": """\
import torch
x = torch.tensor([0.5, 1., 2.], requires_grad=True)
def graph(fn, depth=4):
    if fn is None or depth == 0:
        return type(fn).__name__ if fn is not None else "None"
    inner = ", ".join(graph(n, depth - 1) for n, _ in fn.next_functions)
    return type(fn).__name__ + "(" + inner + ")"

for f in [lambda: x.sin(), lambda: x.exp(), lambda: x * x, lambda: x ** 3, lambda: x.cos(),
          lambda: x.sigmoid(), lambda: (x - 1).relu(), lambda: x.log(), lambda: x / 4,
          lambda: x.sin() * x.cos(), lambda: x - x * x, lambda: (x * x).clamp(0.5, 3),
          lambda: x.tanh(), lambda: torch.nn.functional.softplus(x),
          lambda: torch.nn.functional.gelu(x), lambda: torch.nn.functional.elu(x - 1),
          lambda: torch.nn.functional.leaky_relu(x - 1, 0.1)]:
    g, = torch.autograd.grad(f(), x, torch.eye(3), create_graph=True, is_grads_batched=True)
    print(graph(g.grad_fn))
    print(g.detach(), torch.autograd.grad(g.sum(), x)[0])

""",
        "a scalar output, equal rows, two inputs, and what still stacks": """\
import torch
x = torch.tensor([0.5, 1., 2.], requires_grad=True)
y = torch.tensor([1.5, -1., 0.25], requires_grad=True)
g, = torch.autograd.grad((x ** 2).sum(), x, torch.ones(2), create_graph=True,
                         is_grads_batched=True)
g
g.grad_fn
g.grad_fn.next_functions
g.grad_fn.next_functions[1][0].next_functions
gx, gy = torch.autograd.grad(x * y + x.exp(), (x, y), torch.eye(3), create_graph=True,
                             is_grads_batched=True)
gx.grad_fn, gx.grad_fn.next_functions
gy.grad_fn, gy.grad_fn.next_functions
torch.autograd.grad((gx * gy).sum(), (x, y))
g, = torch.autograd.grad(x * 3, x, torch.eye(3), create_graph=True, is_grads_batched=True)
g.requires_grad
g, = torch.autograd.grad(x.tanh(), x, torch.eye(3), create_graph=True, is_grads_batched=True)
g.grad_fn, g.grad_fn.next_functions[0][0]
""",
    },
}


def write_all():
    for stem, sessions in SESSIONS.items():
        (TRANSCRIPTS / f"{stem}.txt").write_text(transcript_text(sessions), encoding="utf-8")


if __name__ == "__main__":
    write_all()
