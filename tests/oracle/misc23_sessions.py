"""Sessions of PyTorch's edges that gradcli once did otherwise (issue 20): deprecated and global
module hooks, state-dict hooks, ...  `python tests/oracle/misc23_sessions.py` (with torch
installed) writes tests/transcripts/oracle/<name>.txt from what PyTorch prints; the transcripts
are committed, so tests/lang/test_transcripts.py checks gradcli against them without torch, and
test_misc23_transcripts.py checks that they are still what PyTorch prints."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from issue20_sessions import TRANSCRIPTS  # noqa: E402
from issue20_sessions import transcript_text as _transcript_text  # noqa: E402

# file stem -> {session title: snippet}
SESSIONS = {
    "pytorch_code_module_hooks_more": {
        "register_backward_hook: the node of the output, PyTorch's warning, one kind a module": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(2, 3)
def bh(m, gi, go):
    print("bh", type(m).__name__, gi, go)

h = lin.register_backward_hook(bh)
x = torch.ones(1, 2, requires_grad=True)
lin(x).sum().backward()
h
h.remove()
class Two(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([2., 3.]))
    def forward(self, x):
        return (x * self.w).exp() + 1

t = Two()
h = t.register_backward_hook(bh)
t(torch.tensor([1., 2.], requires_grad=True)).sum().backward()
class Mul(nn.Module):
    def forward(self, a, b):
        return a * b

m = Mul()
h = m.register_backward_hook(bh)
m(torch.tensor([1., 2.], requires_grad=True), torch.tensor([3., 4.], requires_grad=True)).sum().backward()
m.register_full_backward_hook(bh)
s = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
s.register_backward_hook(bh)
s(x).sum().backward()
""",
        "global module hooks: forward (pre-)hooks, always_call, full backward (pre-)hooks": """\
import torch
import torch.nn as nn
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
import torch.nn.modules.module as mm
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
def pre(m, args):
    print("pre", type(m).__name__, [a.shape for a in args])

def post(m, args, out):
    print("post", type(m).__name__, out.shape)

h1 = register_module_forward_pre_hook(pre)
h2 = mm.register_module_forward_hook(post)
h1, type(h1)
y = net(torch.ones(1, 2))
h3 = net[1].register_forward_hook(lambda m, a, o: print("own hook", o))
y = net(torch.ones(1, 2))
h1.remove()
y = net(torch.ones(1, 2))
h2.remove(); h3.remove()
y = net(torch.ones(1, 2))
h4 = mm.register_module_forward_hook(lambda m, a, o: o * 2)
net(torch.ones(1, 2))
h4.remove()
h5 = mm.register_module_forward_pre_hook(lambda m, a: (a[0] + 1,))
net(torch.ones(1, 2))
h5.remove()
h6 = mm.register_module_forward_hook(lambda m, a, k, o: print("kw", k), with_kwargs=True)
net(torch.ones(1, 2))
h6.remove()
def boom(m, a):
    raise ValueError("boom")

h7 = mm.register_module_forward_hook(lambda m, a, o: print("always", type(m).__name__, o), always_call=True)
h8 = net[0].register_forward_pre_hook(boom)
try:
    net(torch.ones(1, 2))
except ValueError as e:
    print("caught", e)

h7.remove(); h8.remove()
def fb(m, gi, go):
    print("full", type(m).__name__, gi, go)

def fbp(m, go):
    print("full pre", type(m).__name__, go)

g1 = mm.register_module_full_backward_hook(fb)
g2 = mm.register_module_full_backward_pre_hook(fbp)
x = torch.ones(1, 2, requires_grad=True)
net(x).sum().backward()
g3 = net[0].register_full_backward_hook(lambda m, gi, go: print("own full"))
net(x).sum().backward()
mm.register_module_backward_hook(fb)
g1.remove(); g2.remove(); g3.remove()
net(x).sum().backward()
mm.register_module_backward_hook(fb)
""",
        "state_dict and load_state_dict hooks, missing and unexpected keys by module": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
def sd_pre(m, prefix, keep_vars):
    print("sd pre", type(m).__name__, repr(prefix), keep_vars)

def sd_post(m, sd, prefix, meta):
    print("sd post", type(m).__name__, repr(prefix), meta, list(sd))
    sd[prefix + "extra"] = torch.tensor(1.)

h = net[0].register_state_dict_pre_hook(sd_pre)
h2 = net.register_state_dict_post_hook(sd_post)
h3 = net[1].register_state_dict_post_hook(sd_post)
sd = net.state_dict()
list(sd)
net.state_dict(prefix="m.", keep_vars=True).keys()
h2.remove(); h3.remove()
h4 = net.register_state_dict_post_hook(lambda m, sd, p, meta: {})
net.state_dict()
h4.remove()
def lpre(m, sd, prefix, meta, strict, missing, unexpected, errors):
    print("load pre", type(m).__name__, repr(prefix), meta, strict, sorted(sd), missing, unexpected, errors)

def lpost(m, keys):
    print("load post", type(m).__name__, keys)

l1 = net.register_load_state_dict_pre_hook(lpre)
l2 = net[1].register_load_state_dict_pre_hook(lpre)
l3 = net.register_load_state_dict_post_hook(lpost)
l4 = net[0].register_load_state_dict_post_hook(lpost)
sd = net.state_dict()
net.load_state_dict(sd)
net.load_state_dict(dict(sd))
bad = dict(sd)
del bad["0.bias"]
bad["zzz"] = torch.zeros(1)
bad["0.zzz"] = torch.zeros(1)
net.load_state_dict(bad, strict=False)
net.load_state_dict(bad)
l3.remove()
def fix(m, keys):
    keys.missing_keys.clear()
    keys.unexpected_keys.clear()

l5 = net.register_load_state_dict_post_hook(fix)
net.load_state_dict(bad)
l6 = net.register_load_state_dict_post_hook(lambda m, k: 1)
net.load_state_dict(sd)
net.load_state_dict([1])
list(net.state_dict(None, "p."))
""",
        "register_backward_hook: tuple, list and dict outputs, non-tensor inputs, replaced grads": """\
import torch
import torch.nn as nn
def bh(m, gi, go):
    print("bh", type(m).__name__, gi, go)

class Split(nn.Module):
    def forward(self, x, scale=2.0):
        return x * scale, x.exp()

s = Split()
h = s.register_backward_hook(bh)
x = torch.tensor([1., 2.], requires_grad=True)
a, b = s(x)
(a + b).sum().backward()
a, b = s(x, 3.0)
class Lst(nn.Module):
    def forward(self, x):
        return [x * 2, x * 3]

l = Lst()
l.register_backward_hook(bh)
sum(l(x)).sum().backward()
class Dct(nn.Module):
    def forward(self, x):
        return {"a": x.sin(), "b": x}

d = Dct()
d.register_backward_hook(bh)
d(x)["a"].sum().backward()
d(x.detach())
lin = nn.Linear(2, 1)
lin.register_backward_hook(lambda m, gi, go: (gi[0], gi[1] * 10, gi[2]))
x.grad = None
lin(x).sum().backward()
x.grad
r = nn.ReLU()
r.register_backward_hook(bh)
r(torch.tensor([-1., 2.], requires_grad=True).clone()).sum().backward()
r.register_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
r(torch.tensor([-1., 2.], requires_grad=True)).sum().backward()
""",
    },
    "pytorch_code_conv_no_channels": {
        "conv with zero input channels, groups, transposed, their gradients and errors": """\
import torch
import torch.nn.functional as F
x = torch.ones(2, 0, 4, 4)
w = torch.ones(3, 0, 2, 2)
F.conv2d(x, w)
F.conv2d(x, w, torch.ones(3))
F.conv2d(x, w, padding=1).shape
F.conv2d(x, w, stride=2, dilation=2).shape
F.conv2d(torch.ones(2, 0, 4, 4), torch.ones(0, 0, 2, 2)).shape
F.conv2d(torch.ones(2, 0, 4, 4), torch.ones(4, 0, 2, 2), groups=2).shape
F.conv2d(torch.ones(2, 2, 4, 4), torch.ones(4, 0, 2, 2), groups=2)
F.conv2d(torch.ones(2, 0, 4, 4), torch.ones(3, 1, 2, 2))
F.conv2d(torch.ones(2, 1, 4, 4), torch.ones(3, 0, 2, 2))
F.conv2d(torch.ones(0, 0, 4, 4), w).shape
F.conv1d(torch.ones(2, 0, 4), torch.ones(3, 0, 2))
F.conv3d(torch.ones(1, 0, 3, 3, 3), torch.ones(2, 0, 2, 2, 2)).shape
F.conv_transpose2d(x, torch.ones(0, 3, 2, 2))
F.conv_transpose2d(x, torch.ones(0, 3, 2, 2), torch.ones(3)).shape
F.conv_transpose2d(torch.ones(2, 0, 4, 4), torch.ones(0, 2, 2, 2), groups=2).shape
F.conv_transpose2d(torch.ones(2, 2, 4, 4), torch.ones(2, 0, 2, 2)).shape
F.conv_transpose1d(torch.ones(2, 0, 4), torch.ones(0, 3, 2)).shape
xg = torch.ones(2, 0, 4, 4, requires_grad=True)
wg = torch.ones(3, 0, 2, 2, requires_grad=True)
bg = torch.ones(3, requires_grad=True)
y = F.conv2d(xg, wg, bg)
y.grad_fn
y.sum().backward()
xg.grad.shape, wg.grad.shape, bg.grad
c = torch.nn.Conv2d(0, 3, 2)
c
c.weight.shape
torch.nn.Conv2d(3, 0, 2)(torch.ones(1, 3, 4, 4)).shape
F.conv2d(torch.ones(2, 3, 4, 4), torch.ones(0, 3, 2, 2)).shape
torch.nn.ConvTranspose2d(0, 3, 2)
xg = torch.ones(2, 0, 5, requires_grad=True)
wg = torch.ones(4, 0, 3, requires_grad=True)
bg = torch.zeros(4, requires_grad=True)
y = F.conv1d(xg, wg, bg, groups=2, stride=2)
y.shape, y.grad_fn
y.sum().backward()
xg.grad.shape, wg.grad.shape, bg.grad
F.conv2d(torch.ones(2, 0, 4, 4), torch.ones(3, 0, 2, 2, dtype=torch.float64)).shape
F.conv2d(torch.ones(2, 0, 4, 4), torch.ones(3, 0, 2, 2), torch.ones(3, dtype=torch.float64))
F.conv2d(torch.ones(2, 0, 4, 4), torch.ones(3, 0, 5, 5))
F.conv_transpose2d(torch.ones(0, 2, 4, 4), torch.ones(2, 0, 2, 2))
F.conv_transpose2d(torch.ones(0, 2, 4, 4), torch.ones(2, 3, 2, 2)).shape
F.conv_transpose2d(torch.ones(2, 2, 4, 4, dtype=torch.float64), torch.ones(2, 0, 2, 2, dtype=torch.float64))
F.conv_transpose1d(torch.ones(2, 2, 4), torch.ones(2, 0, 2))
F.conv_transpose3d(torch.ones(1, 2, 2, 2, 2), torch.ones(2, 0, 2, 2, 2))
F.conv2d(torch.ones(0, 3, 4, 4), torch.ones(2, 3, 2, 2), torch.ones(2)).shape
torch.nn.Linear(0, 2).weight.shape
torch.nn.init.kaiming_normal_(torch.empty(3, 0)).shape
""",
    },
    "pytorch_code_pooling_double_backward": {
        "the second derivative through a pooling: zeros for its input, as PyTorch": """\
import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(1, 1, 4, 4, requires_grad=True)
y = F.max_pool2d(x, 2)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
g.requires_grad, g.grad_fn
torch.autograd.grad(g.sum(), x, allow_unused=True)
y = F.avg_pool2d(x, 2)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
g.requires_grad, g.grad_fn
torch.autograd.grad(g.sum(), x, allow_unused=True)
y = F.adaptive_avg_pool2d(x, 2)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
g.requires_grad, g.grad_fn
torch.autograd.grad(g.sum(), x, allow_unused=True)
y = F.adaptive_max_pool2d(x, 2)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
g.requires_grad, g.grad_fn
torch.autograd.grad(g.sum(), x, allow_unused=True)
y = F.max_pool1d(x[0], 2)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
torch.autograd.grad(g.sum(), x, allow_unused=True)
y = F.avg_pool1d(x[0], 2)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
torch.autograd.grad(g.sum(), x, allow_unused=True)
x3 = torch.randn(1, 1, 2, 4, 4, requires_grad=True)
y = F.max_pool3d(x3, 2)
g, = torch.autograd.grad(y.sum(), x3, create_graph=True)
torch.autograd.grad(g.sum(), x3, allow_unused=True)
y = F.avg_pool3d(x3, 2)
g, = torch.autograd.grad(y.sum(), x3, create_graph=True)
torch.autograd.grad(g.sum(), x3, allow_unused=True)
y = F.max_pool2d(x, 2)
g, = torch.autograd.grad((y ** 2).sum(), x, create_graph=True)
torch.autograd.grad(g.sum(), x)
y, i = F.max_pool2d(x, 2, return_indices=True)
z = F.max_unpool2d(y, i, 2)
g, = torch.autograd.grad(z.sum(), x, create_graph=True)
g.grad_fn
torch.autograd.grad(g.sum(), x, allow_unused=True)
y = F.adaptive_max_pool1d(x[0], 2)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
torch.autograd.grad(g.sum(), x, allow_unused=True)
""",
    },
    "pytorch_code_func_forward_mode": {
        "jvp and jacfwd in forward mode: the signs of zero columns, the output's alias": """\
import torch
from torch.func import jvp, jacfwd, jacrev, hessian, vmap, grad
x = torch.tensor([1., -2., 0.])
v = torch.tensor([1., 0., -1.])
jvp(torch.sin, (x,), (v,))
jvp(lambda a: (a * a, a.relu()), (x,), (v,))
jvp(lambda a, b: a * b, (x, x), (v, torch.ones(3)))
jvp(lambda a: (a.sum(), {"k": a}), (x,), (v,), has_aux=True)
jacfwd(torch.sin)(x)
jacfwd(lambda a: a.abs())(x)
jacfwd(lambda a, b: a @ b, argnums=(0, 1))(torch.eye(2), torch.tensor([1., 2.]))
jacfwd(lambda a: (a * 2, a.sum()), has_aux=True)(x)
jacfwd(lambda a: {"s": a.sin(), "m": a.max()})(x)
hessian(lambda a: a.exp().sum())(x)
f = lambda a, b: (a ** 2 * b).sum() + (b ** 3).sum()
hessian(f, argnums=1)(x, v)
jacfwd(jacrev(f, argnums=0), argnums=0)(x, v)
hessian(f, argnums=(0, 1))(x, v)[1][0]
vmap(jacfwd(torch.sin))(x.reshape(3, 1))
grad(lambda a: jvp(torch.sin, (a,), (v,))[1].sum())(x)
xr = x.clone().requires_grad_()
jvp(torch.sin, (xr,), (v,))
jvp(torch.floor, (x,), (v,))
jacfwd(lambda a: a[a > 0])(x)
""",
    },
    "pytorch_code_grad_mode_decorators": {
        "no_grad and enable_grad as bare decorators (autograd mechanics' `@torch.no_grad`)": """\
import torch
x = torch.tensor([1., 2.], requires_grad=True)
@torch.no_grad
def tripler(x):
    return x * 3

tripler(x).requires_grad
tripler.__name__
@torch.enable_grad
def doubler(x):
    return x * 2

with torch.no_grad():
    doubler(x).requires_grad

torch.no_grad(lambda v: v * 3)(x).requires_grad
torch.no_grad()
@torch.no_grad()
def called(x):
    return x * 4

called(x)
""",
    },
}


def transcript_text(sessions):
    """issue20_sessions.transcript_text, each session in a torch whose global module hooks are
    as a fresh interpreter's (a global backward hook fixes their kind for the process)."""
    import torch.nn.modules.module as torch_module
    texts = []
    for title, snippet in sessions.items():
        try:
            texts.append(_transcript_text({title: snippet}))
        finally:
            torch_module._global_is_full_backward_hook = None
    return "\n".join(texts)


def write_all():
    for stem, sessions in SESSIONS.items():
        (TRANSCRIPTS / f"{stem}.txt").write_text(transcript_text(sessions), encoding="utf-8")


if __name__ == "__main__":
    write_all()
