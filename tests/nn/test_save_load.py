"""torch.save and torch.load (gradcli.serialization) against PyTorch 2.13: each case is a
program that real PyTorch runs in a temporary directory (files on disk) and gradcli runs in a
session (files in its memory); both must print the same.  The cases print what a pickling
round trip keeps and changes: fresh tensors, storages shared as saved, versions, leaves,
Parameters, OrderedDicts, shared and cyclic containers, optimizer state dicts, checkpoints, the
weights-only refusals and the path errors."""

import contextlib
import io
import os
import re
import sys
import types
import warnings

import pytest

from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session

PRELUDE = '''\
import torch
def attempt(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__ + ':', str(e).split('\\n')[0].strip())
'''

CASES = {
    "non_leaf_comes_back_a_leaf": '''
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
print(torch.save(y, 'y.pt'))
z = torch.load('y.pt')
print(z, z.requires_grad, z.is_leaf, z.grad_fn, z.grad, z._version, z is y)
x.grad = torch.ones(3)
torch.save(x, 'x.pt')
w = torch.load('x.pt')
print(w.grad, w.requires_grad, w._version)
x.data.add_(1)
print(torch.load('x.pt'), torch.load('x.pt') is torch.load('x.pt'))
''',
    "storages_shared_as_saved": '''
b = torch.arange(6.).reshape(2, 3)
v = b[0]
torch.save({'b': b, 'v': v, 't': (b.t(),)}, './bv.pt')
d = torch.load('bv.pt')
d['b'][0, 0] = 100
print(d['v'], d['t'][0], d['t'][0].stride(), d['t'][0].is_contiguous())
print(d['v']._version, d['b']._version)
big = torch.arange(10.)
torch.save(big[2:4], 's.pt')
s = torch.load('s.pt')
print(s, s.is_contiguous())
y = torch.ones(2, requires_grad=True) * 2
torch.save([y, y, {'k': y}], 'r.pt')
r = torch.load('r.pt')
print(r[0] is r[1], r[2]['k'] is r[0], r[0] is y)
x = torch.ones(2)
torch.save({'a': x, 'b': x.view(2)}, 'ab.pt')
r = torch.load('ab.pt')
print(r['a'] is r['b'])
r['a'].add_(1)
print(r['b'])
''',
    "parameters_buffers_and_module_state": '''
torch.manual_seed(0)
p = torch.nn.Parameter(torch.ones(2))
torch.save(p, 'p.pt')
q = torch.load('p.pt')
print(type(q), q, q is p)
torch.save(torch.nn.Parameter(torch.zeros(1), requires_grad=False), 'p.pt')
print(torch.load('p.pt'))
m = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
torch.save(m.state_dict(), 'model.pt')
sd = torch.load('model.pt')
print(type(sd).__name__, list(sd), sd['0.bias'].requires_grad, sd['0.bias']._version)
fresh = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
print(fresh.load_state_dict(torch.load('model.pt', weights_only=True)))
print(torch.equal(fresh[0].weight, m[0].weight), fresh(torch.ones(1, 2)))
bn = torch.nn.BatchNorm1d(2)
bn(torch.tensor([[1., 2.], [3., 5.]]))
torch.save(bn.state_dict(), 'bn.pt')
print(list(torch.load('bn.pt').items()))  # (OrderedDict's repr is the version's)
x = torch.tensor([1., 2.])
x.foo = 3
torch.save(x, 'x.pt')
print(torch.load('x.pt').foo)
''',
    "values_of_every_kind": '''
values = [None, True, 3, 10 ** 30, 1.5, -0.0, 2 + 3j, 'text',
          (1, [2]), {1, 2}, torch.float64, torch.int32, torch.Size([2, 3]), torch.device('cpu'),
          torch.strided, torch.tensor(3), torch.zeros(0, 3), torch.tensor([1 + 2j]),
          torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.int64),
          torch.tensor([[1., 2.]], dtype=torch.float64), {'nested': {'deeper': [torch.ones(1)]}}]
for v in values:
    torch.save(v, 'v.pt')
    attempt(lambda: torch.load('v.pt'))
cycle = [1]
cycle.append(cycle)
torch.save(cycle, 'c.pt')
c = torch.load('c.pt')
print(c, c[1] is c, c is cycle)
for v in [frozenset([1]), range(3), slice(1, 2), ...]:
    torch.save(v, 'w.pt')
    attempt(lambda: torch.load('w.pt'))
    attempt(lambda: torch.load('w.pt', weights_only=False))
''',
    "weights_only_refusals": '''
torch.manual_seed(0)
m = torch.nn.Linear(2, 1)
torch.save(m, 'm.pt')
attempt(lambda: torch.load('m.pt'))
attempt(lambda: torch.load('m.pt', weights_only=True))
mm = torch.load('m.pt', weights_only=False)
print(mm, type(mm.weight), mm.weight is m.weight, torch.equal(mm.weight, m.weight))
print(mm(torch.ones(1, 2)), mm.training, [n for n, _ in mm.named_parameters()])
class Box:
    def __init__(self, t):
        self.t = t
        self.scale = 2
box = Box(torch.ones(2, requires_grad=True))
torch.save({'box': box}, 'box.pt')
attempt(lambda: torch.load('box.pt'))
b2 = torch.load('box.pt', weights_only=False)['box']
print(type(b2).__name__, b2 is box, b2.t, b2.t is box.t, b2.scale)
class Wrapper(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Linear(1, 1)
        self.shared = self.inner
    def forward(self, x):
        return self.inner(x) + self.shared(x)
w = Wrapper()
torch.save(w, 'w.pt')
w2 = torch.load('w.pt', weights_only=False)
print(w2, w2.inner is w2.shared, w2.inner is w.inner, w2(torch.ones(1)).shape)
''',
    "safe_globals": '''
def show(f):
    try:
        r = f()
        print(type(r).__name__, r if isinstance(r, torch.nn.Module) else (r.t, r.n))
    except Exception as e:
        print(type(e).__name__ + ':', str(e).split('\\n')[0].strip())
class Box:
    def __init__(self, t):
        self.t = t
        self.n = 2
torch.save(Box(torch.ones(2)), 'box.pt')
show(lambda: torch.load('box.pt'))
torch.serialization.add_safe_globals([Box])
show(lambda: torch.load('box.pt'))
print([g for g in torch.serialization.get_safe_globals() if g is Box])
torch.serialization.clear_safe_globals()
show(lambda: torch.load('box.pt'))
with torch.serialization.safe_globals([Box]):
    show(lambda: torch.load('box.pt'))
show(lambda: torch.load('box.pt'))
torch.manual_seed(0)
torch.save(torch.nn.Linear(2, 1), 'lin.pt')
with torch.serialization.safe_globals([torch.nn.Linear]):
    show(lambda: torch.load('lin.pt'))
print([g for g in torch.serialization.get_safe_globals() if g is Box])
''',
    "paths_and_files": '''
x = torch.ones(2)
attempt(lambda: torch.load('missing.pt'))
attempt(lambda: torch.load(''))
attempt(lambda: torch.load('.'))
attempt(lambda: torch.save(x, ''))
attempt(lambda: torch.save(x, '.'))
attempt(lambda: torch.save(x, 'sub/'))
attempt(lambda: torch.save(x, 3))
attempt(lambda: torch.load(3))
attempt(lambda: torch.save(x, None))
attempt(lambda: torch.load(None))
attempt(lambda: torch.save(x))
attempt(lambda: torch.load())
attempt(lambda: torch.save(x, 'x.pt', foo=1))
torch.save(x, 'x.pt')
print(torch.load('./x.pt'), torch.load('x.pt', map_location='cpu'))
attempt(lambda: torch.load('x.pt', map_location=torch.device('cpu')))
attempt(lambda: torch.load('x.pt', map_location=lambda storage, loc: storage))
attempt(lambda: torch.load('x.pt', map_location={'cpu': 'cpu'}))
attempt(lambda: torch.load('x.pt', map_location='cuda'))
attempt(lambda: torch.load('x.pt', map_location='cuda:0'))
attempt(lambda: torch.load('x.pt', mmap=True))
attempt(lambda: torch.load('x.pt', weights_only=None))
torch.save(torch.zeros(1), 'x.pt')
print(torch.load('x.pt'))
''',
    "bytes_io_buffers": '''
import io
x = torch.tensor([1., 2.], requires_grad=True)
buf = io.BytesIO()
torch.save(x, buf)
buf.seek(0)
y = torch.load(buf)
print(y, y is x)
attempt(lambda: torch.load(buf))
buf.seek(0)
print(torch.load(buf, weights_only=False))
buf = io.BytesIO()
torch.save({'a': 1}, buf)
buf.seek(0)
attempt(lambda: torch.load(buf, mmap=True))
buf.close()
attempt(lambda: torch.load(buf))
attempt(lambda: torch.save(x, buf))
print(buf.closed)
''',
    "optimizer_state_dicts": '''
torch.manual_seed(0)
m = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
m(torch.ones(1, 2)).sum().backward()
opt.step()
print(opt.state_dict())
opt = torch.optim.SGD([{'params': [m.weight], 'lr': 0.5}, {'params': [m.bias]}], lr=0.1,
                      momentum=0.9)
m(torch.ones(1, 2)).sum().backward()
opt.step()
print(opt.state_dict())
torch.save(opt.state_dict(), 'opt.pt')
print(torch.load('opt.pt'))
o2 = torch.optim.SGD(m.parameters(), lr=0.1)
for bad in [{'state': {}, 'param_groups': []},
            {'state': {}, 'param_groups': [{'params': [0]}]}, {},
            {'param_groups': [{'params': [0, 1], 'lr': 3}]}]:
    attempt(lambda: o2.load_state_dict(bad))
a = torch.optim.Adam(m.parameters(), lr=0.1, amsgrad=True)
for _ in range(2):
    a.zero_grad()
    (m(torch.ones(1, 2)) ** 2).sum().backward()
    a.step()
sd = a.state_dict()
print(sd)
torch.save(sd, 'adam.pt')
m2 = torch.nn.Linear(2, 1).double()
a2 = torch.optim.Adam(m2.parameters(), lr=0.5)
print(a2.load_state_dict(torch.load('adam.pt')))
print(a2.state_dict())
print(a2)
''',
    "resuming_from_a_checkpoint_trains_on_as_before": '''
torch.manual_seed(0)
x = torch.linspace(-1, 1, 8).reshape(8, 1)
target = 3 * x - 0.5
def make():
    model = torch.nn.Sequential(torch.nn.Linear(1, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    return model, torch.optim.Adam(model.parameters(), lr=0.05)
def train(model, opt, steps):
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), target)
        loss.backward()
        opt.step()
    return loss
model, opt = make()
loss = train(model, opt, 3)
torch.save({'epoch': 3, 'model_state_dict': model.state_dict(),
            'optimizer_state_dict': opt.state_dict(), 'loss': loss}, 'ckpt.tar')
straight = train(model, opt, 3)
resumed_model, resumed_opt = make()
checkpoint = torch.load('ckpt.tar', weights_only=True)
resumed_model.load_state_dict(checkpoint['model_state_dict'])
resumed_opt.load_state_dict(checkpoint['optimizer_state_dict'])
print(checkpoint['epoch'], checkpoint['loss'], sorted(checkpoint))
resumed = train(resumed_model, resumed_opt, 3)
print(f"{straight.item():.6f} {resumed.item():.6f}")
print(all(torch.allclose(a, b) for a, b in zip(model.parameters(),
                                               resumed_model.parameters())))
''',
    "views_keep_their_storage_offsets": '''
base = torch.arange(10.)
torch.save([base[3:7], base[1::3], base.reshape(2, 5)[1], base.reshape(2, 5)[:, 2]], 'v.pt')
for t in torch.load('v.pt'):
    print(t, t.storage_offset(), t.stride(), t.is_contiguous(), t[1:].storage_offset())
torch.save([base, base[3:7]], 'pair.pt')
whole, part = torch.load('pair.pt')
print(whole.storage_offset(), part.storage_offset(), part[2:].storage_offset())
part.data = torch.zeros(2)
print(part.storage_offset())
''',
}

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def torch_prints(source, directory):
    """What real PyTorch prints running source in directory (as a script's __main__, so that
    its classes pickle), the bold of its weights-only message and lines' end spaces dropped."""
    def printed(torch):
        out, here, main = io.StringIO(), os.getcwd(), sys.modules["__main__"]
        module = types.ModuleType("__main__")
        sys.modules["__main__"] = module
        os.chdir(directory)
        try:
            with contextlib.redirect_stdout(out), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(source, "<case>", "exec"), module.__dict__)
        finally:
            os.chdir(here)
            sys.modules["__main__"] = main
        return "\n".join(line.rstrip() for line in ANSI.sub("", out.getvalue()).split("\n"))
    return printed


def gradcli_prints(source):
    out = io.StringIO()
    try:
        Session(out=out).run(source)
    except ProgramError as e:
        out.write(e.headline() + "\n")
    return out.getvalue()


@pytest.mark.parametrize("name", CASES)
def test_save_load_as_pytorch(name, tmp_path, oracle):
    source = PRELUDE + CASES[name]
    expected = oracle(torch_prints(source, tmp_path))
    assert gradcli_prints(source) == expected
