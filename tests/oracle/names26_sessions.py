"""Sessions of the torch names that tutorials and Q&A use (issue 20's sweep): the legacy
Variable, torch.utils.data, ...  `python tests/oracle/names26_sessions.py` (with torch installed)
writes tests/transcripts/oracle/<name>.txt from what PyTorch prints; the transcripts are
committed, so tests/lang/test_transcripts.py checks gradcli against them without torch, and
test_names26_transcripts.py checks that they are still what PyTorch prints."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from issue20_sessions import TRANSCRIPTS, transcript_text  # noqa: E402,F401

# file stem -> {session title: snippet}
SESSIONS = {
    "pytorch_code_variable": {
        "Variable(x, requires_grad=True) is a Tensor; every tensor is a Variable": """\
import torch
from torch.autograd import Variable
torch.autograd.Variable
x = Variable(torch.ones(2, 3), requires_grad=True)
x
type(x), isinstance(x, Variable), isinstance(torch.zeros(1), torch.autograd.Variable)
y = (x * x + 2).sum()
y.backward()
x.grad
Variable.__name__
w = Variable(torch.tensor([1., 2.]))
w, w.requires_grad, w.is_leaf
Variable(torch.tensor(3.), True)
Variable()
Variable(torch.ones(2, dtype=torch.float64), requires_grad=1)
""",
        "Variable of a tensor in a graph: detached, sharing data and version": """\
import torch
from torch.autograd import Variable
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 3
v = Variable(b)
v, v.grad_fn, v.is_leaf, v is b
v.add_(1)
b, b._version, v._version
u = Variable(a, requires_grad=True)
u is a, u.is_leaf
(u * 2).sum().backward()
u.grad, a.grad
""",
        "Variable's wrong arguments: PyTorch's messages": """\
import torch
from torch.autograd import Variable
t = torch.ones(2)
Variable(3)
Variable([1., 2.])
Variable(t, foo=1)
Variable(t, requires_grad=1.5)
Variable(t, requires_grad=-1)
Variable(t, True, False, None, 'x', 'y')
Variable(t, data=t)
Variable(t, name=3)
Variable(t, _grad_fn=3)
Variable(torch.ones(2, dtype=torch.long), requires_grad=True)
Variable(torch.ones(2), volatile=True)
""",
        "torch.autograd.set_grad_enabled, no_grad, enable_grad": """\
import torch
w = torch.ones(2, requires_grad=True)
torch.autograd.set_grad_enabled
with torch.autograd.set_grad_enabled(False):
    print((w * 2).requires_grad, torch.is_grad_enabled())

torch.autograd.set_grad_enabled(False)
(w * 2).requires_grad
torch.autograd.set_grad_enabled(True)
(w * 2).requires_grad
with torch.autograd.no_grad():
    with torch.autograd.enable_grad():
        print((w * 2).requires_grad)
    print((w * 2).requires_grad)

@torch.autograd.no_grad()
def f(x):
    return x * 2

f(w)
torch.autograd.set_grad_enabled is torch.set_grad_enabled
""",
    },
    "pytorch_code_data": {
        "TensorDataset and DataLoader: batches in order, len, drop_last, next(iter(...))": """\
import torch
from torch.utils.data import TensorDataset, DataLoader
x = torch.arange(10.).reshape(5, 2)
y = torch.tensor([0, 1, 0, 1, 1])
ds = TensorDataset(x, y)
len(ds), ds[1], ds[-1]
loader = DataLoader(ds, batch_size=2)
len(loader)
for xb, yb in loader:
    print(xb, yb)

len(DataLoader(ds, batch_size=2, drop_last=True))
[yb.tolist() for _, yb in DataLoader(ds, batch_size=2, drop_last=True)]
xb, yb = next(iter(DataLoader(ds, batch_size=3)))
xb, yb
list(DataLoader(ds))[0]
loader
type(loader), type(iter(loader)), type(ds)
torch.utils.data.DataLoader
loader.batch_size, loader.drop_last, loader.dataset is ds, ds.tensors[1]
""",
        "shuffle: RandomSampler's order from the global generator, several seeds and epochs": """\
import torch
from torch.utils.data import TensorDataset, DataLoader
ds = TensorDataset(torch.arange(10))
for seed in (0, 1, 42, 1234):
    torch.manual_seed(seed)
    loader = DataLoader(ds, batch_size=4, shuffle=True)
    print(seed, [b[0].tolist() for b in loader], [b[0].tolist() for b in loader])
    print(torch.rand(2))

torch.manual_seed(3)
it = iter(DataLoader(ds, batch_size=3, shuffle=True))
torch.rand(1)
next(it)
torch.rand(1)
torch.manual_seed(5)
[b[0].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, drop_last=True)]
torch.randn(2)
g = torch.Generator().manual_seed(7)
loader = DataLoader(ds, batch_size=5, shuffle=True, generator=g)
[b[0].tolist() for b in loader], [b[0].tolist() for b in loader]
torch.randn(2)
torch.manual_seed(0)
[b[0].tolist() for b in DataLoader(ds, batch_size=4)]
torch.rand(2)
""",
        "default collate: numbers, tuples, dicts, lists, strings; batch_size=None": """\
import torch
from torch.utils.data import DataLoader
pairs = [(1, 2.5), (3, 4.5), (5, 6.5)]
list(DataLoader(pairs, batch_size=2))
recs = [{"x": torch.tensor([1., 2.]), "label": 0, "name": "a"}, {"x": torch.tensor([3., 4.]), "label": 1, "name": "b"}]
list(DataLoader(recs, batch_size=2))
list(DataLoader([[1, 2], [3, 4], [5, 6]], batch_size=3))
list(DataLoader([True, False, True], batch_size=3))
list(DataLoader(range(5), batch_size=2))
list(DataLoader(torch.arange(6.).reshape(3, 2), batch_size=2))
list(DataLoader([1, 2, 3], batch_size=None))
list(DataLoader([[1, 2], [3]], batch_size=2))
list(DataLoader([None, None], batch_size=2))
list(DataLoader(pairs, batch_size=2, collate_fn=lambda b: b))
""",
        "Subset, ConcatDataset, dataset + dataset, random_split's permutation": """\
import torch
from torch.utils.data import TensorDataset, Subset, ConcatDataset, random_split, DataLoader
a = TensorDataset(torch.arange(4))
b = TensorDataset(torch.arange(10, 13))
c = ConcatDataset([a, b])
len(c), c[3], c[4], c[-1], c.cumulative_sizes
d = a + b
type(d), len(d)
s = Subset(a, [3, 1])
len(s), s[0], s[1]
torch.manual_seed(0)
parts = random_split(range(10), [3, 7])
[list(p) for p in parts], [p.indices for p in parts]
torch.rand(1)
parts = random_split(range(10), [0.3, 0.3, 0.4])
[p.indices for p in parts]
g = torch.Generator().manual_seed(42)
[p.indices for p in random_split(range(30), [0.5, 0.5], generator=g)]
[p.indices for p in random_split(range(5), [0.5, 0.5])]
[p.indices for p in random_split(range(3), [1.0, 0.0])]
train, val = random_split(TensorDataset(torch.arange(6.)), [4, 2])
[b[0].tolist() for b in DataLoader(train, batch_size=2)], type(train)
random_split(range(10), [3, 3])
""",
        "wrong arguments: PyTorch's messages": """\
import torch
from torch.utils.data import TensorDataset, DataLoader, ConcatDataset, Dataset
ds = TensorDataset(torch.arange(4))
DataLoader(ds, batch_size=0)
DataLoader(ds, batch_size=1.5)
DataLoader(ds, drop_last=1)
DataLoader(ds, sampler=[0, 1], shuffle=True)
DataLoader(ds, batch_size=None, drop_last=True)
DataLoader(ds, num_workers=-1)
DataLoader(ds, persistent_workers=True)
TensorDataset(torch.ones(2), torch.ones(3))
ConcatDataset([])
Dataset()[0]
list(DataLoader(ds, batch_size=2, sampler=[3, 0, 2]))
list(DataLoader(ds, batch_sampler=[[0, 3], [1]]))
DataLoader(ds, batch_sampler=[[0]], batch_size=2)
""",
        "a training loop over shuffled batches prints PyTorch's losses (to 5 places: mm's float32 \
gradient may differ in its last bit)": """\
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader
torch.manual_seed(0)
X = torch.randn(20, 3)
Y = X @ torch.tensor([[1.], [-2.], [0.5]]) + 0.1 * torch.randn(20, 1)
loader = DataLoader(TensorDataset(X, Y), batch_size=6, shuffle=True)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
for epoch in range(3):
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        print(epoch, f"{loss.item():.5f}")

model.weight, model.bias
""",
    },
    "pytorch_code_parameters_vector": {
        "parameters_to_vector and vector_to_parameters: one flat vector, back into the model": """\
import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
v = parameters_to_vector(model.parameters())
v
v.shape, v.grad_fn, v.is_leaf
(v ** 2).sum().backward()
model[0].bias.grad, model[2].weight.grad
w = model[0].weight
vector_to_parameters(torch.arange(11.), model.parameters())
model[0].weight, model[2].bias, model[0].weight is w, w._version
model(torch.ones(1, 3))
torch.nn.utils.parameters_to_vector([torch.ones(2, 2), torch.zeros(3)])
parameters_to_vector(torch.ones(2, 3))
vector_to_parameters(torch.arange(20.), model.parameters())
model[2].bias
""",
        "wrong arguments: PyTorch's messages": """\
import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters
model = nn.Linear(3, 2)
vector_to_parameters([1., 2.], model.parameters())
vector_to_parameters(torch.ones(4), model.parameters())
parameters_to_vector([])
parameters_to_vector([1, 2])
parameters_to_vector([torch.ones(2), torch.ones(2, dtype=torch.float64)])
""",
    },
    "pytorch_code_optimizers_more": {
        "Adagrad, Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD: a seeded regression, each": """\
import torch
import torch.nn as nn
torch.manual_seed(0)
X = torch.randn(16, 3)
Y = X @ torch.tensor([[1.], [-2.], [0.5]]) + 0.3
def train(make, steps=8):
    torch.manual_seed(1)
    model = nn.Linear(3, 1)
    opt = make(model.parameters())
    for i in range(steps):
        opt.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        opt.step()
        print(f"{loss.item():.5f}", end=" ")
    print()
    return model, opt

for make in [lambda p: torch.optim.Adagrad(p, lr=0.5), lambda p: torch.optim.Adadelta(p),
             lambda p: torch.optim.Adamax(p, lr=0.1), lambda p: torch.optim.NAdam(p, lr=0.1),
             lambda p: torch.optim.RAdam(p, lr=0.1), lambda p: torch.optim.Rprop(p),
             lambda p: torch.optim.ASGD(p, lr=0.1, t0=3)]:
    model, opt = train(make)
    print(type(opt).__name__, model.weight.data, model.bias.data)

""",
        "the options: weight decay, maximize, lr_decay, decoupled decay, etas, step sizes": """\
import torch
torch.manual_seed(0)
def run(make, steps=6):
    w = torch.nn.Parameter(torch.tensor([[0.5, -1.5], [2.0, 0.25]]))
    opt = make([w])
    for i in range(steps):
        opt.zero_grad()
        (torch.sin(3 * w) * w).sum().backward()
        opt.step()
    return w.data

run(lambda p: torch.optim.Adagrad(p, lr=0.3, lr_decay=0.1, weight_decay=0.2, initial_accumulator_value=0.5))
run(lambda p: torch.optim.Adadelta(p, lr=2.0, rho=0.5, weight_decay=0.1, maximize=True))
run(lambda p: torch.optim.Adamax(p, lr=0.2, betas=(0.5, 0.9), weight_decay=0.3))
run(lambda p: torch.optim.NAdam(p, lr=0.2, momentum_decay=0.01, weight_decay=0.3, decoupled_weight_decay=True))
run(lambda p: torch.optim.RAdam(p, lr=0.2, betas=(0.5, 0.6), weight_decay=0.3))
run(lambda p: torch.optim.RAdam(p, lr=0.2, weight_decay=0.3, decoupled_weight_decay=True), 12)
run(lambda p: torch.optim.Rprop(p, lr=0.3, etas=(0.3, 1.5), step_sizes=(0.01, 0.5), maximize=True))
run(lambda p: torch.optim.ASGD(p, lr=0.2, lambd=0.1, alpha=0.5, t0=2, weight_decay=0.1), 8)
""",
        "state, state_dict, load_state_dict, param groups and printing": """\
import torch
w = torch.nn.Parameter(torch.tensor([1., -2.]))
b = torch.nn.Parameter(torch.tensor([0.5]))
opt = torch.optim.Adagrad([w, b], lr=0.1)
opt.state[w]
opt
(w ** 2).sum().backward()
opt.step()
opt.state[w], opt.state[b]
sd = opt.state_dict()
sd["state"][0], sd["param_groups"]
opt2 = torch.optim.NAdam([{"params": [w]}, {"params": [b], "lr": 0.5}])
opt2
for i in range(2):
    opt2.zero_grad()
    (w.sum() * b.sum()).backward()
    opt2.step()

opt2.state[w]
sd = opt2.state_dict()
opt3 = torch.optim.NAdam([{"params": [w]}, {"params": [b], "lr": 0.5}])
opt3.load_state_dict(sd)
opt3.state[b]["mu_product"], opt3.state[b]["step"], opt3.param_groups[1]["lr"]
a = torch.optim.ASGD([w], t0=1)
w.grad = torch.tensor([0.5, 0.25])
a.step(); a.step()
a.state[w]
r = torch.optim.Rprop([w])
r.step()
r.state[w]
torch.optim.RAdam([w]), torch.optim.Adamax([w]), torch.optim.Adadelta([w]), torch.optim.Rprop([w]), torch.optim.ASGD([w])
""",
        "invalid arguments: PyTorch's messages": """\
import torch
w = torch.nn.Parameter(torch.ones(2))
torch.optim.Adagrad([w], lr=-1)
torch.optim.Adagrad([w], lr_decay=-0.1)
torch.optim.Adagrad([w], initial_accumulator_value=-1)
torch.optim.Adagrad([w], eps=-1)
torch.optim.Adadelta([w], rho=1.5)
torch.optim.Adadelta([w], weight_decay=-1)
torch.optim.Adamax([w], betas=(1.0, 0.9))
torch.optim.Adamax([w], betas=(0.9, -0.1))
torch.optim.NAdam([w], momentum_decay=-1)
torch.optim.RAdam([w], eps=-1e-8)
torch.optim.Rprop([w], etas=(1.2, 0.5))
torch.optim.ASGD([w], weight_decay=-1)
torch.optim.Adagrad([])
torch.optim.Rprop(w)
""",
    },
    "pytorch_code_schedulers_more": {
        "CosineAnnealingLR, OneCycleLR, ReduceLROnPlateau, ...: get_last_lr step by step": """\
import torch
from torch.optim import lr_scheduler
w = torch.nn.Parameter(torch.ones(2))
def lrs(make, steps=6, metric=None):
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    s = make(opt)
    out = [s.get_last_lr()[0]]
    for i in range(steps):
        opt.step()
        s.step() if metric is None else s.step(metric[i])
        out.append(round(s.get_last_lr()[0], 6))
    print(type(s).__name__, out, opt.param_groups[0]["momentum"])

lrs(lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=4))
lrs(lambda o: lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=3))
lrs(lambda o: lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2))
lrs(lambda o: lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0))
lrs(lambda o: lr_scheduler.MultiplicativeLR(o, lr_lambda=lambda e: 0.9))
lrs(lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2))
lrs(lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2))
lrs(lambda o: lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=6))
lrs(lambda o: lr_scheduler.ReduceLROnPlateau(o, patience=1), metric=[3, 3, 3, 2, 2, 2])
lrs(lambda o: lr_scheduler.SequentialLR(o, [lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2), lr_scheduler.ExponentialLR(o, gamma=0.5)], milestones=[2]))
lrs(lambda o: lr_scheduler.ChainedScheduler([lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2), lr_scheduler.ExponentialLR(o, gamma=0.5)]))
opt = torch.optim.SGD([w], lr=0.1)
s = lr_scheduler.CosineAnnealingLR(opt, T_max=10)
s, type(s)
s.get_last_lr(), s.T_max, s.eta_min, s.base_lrs, s.last_epoch
sd = s.state_dict()
sorted(k for k in sd if not k.startswith("_")), sd["T_max"], sd["last_epoch"]
p = lr_scheduler.ReduceLROnPlateau(opt)
p.best, p.num_bad_epochs, p.mode, p.in_cooldown
""",
        "a training loop: DataLoader, an optimizer and a scheduler, PyTorch's losses": """\
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader
torch.manual_seed(0)
X = torch.randn(24, 2)
Y = (X[:, :1] * 2 - X[:, 1:] + 0.5).tanh()
loader = DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=True)
optimizers = {"Adagrad": torch.optim.Adagrad, "Adamax": torch.optim.Adamax, "NAdam": torch.optim.NAdam, "RAdam": torch.optim.RAdam, "Rprop": torch.optim.Rprop, "ASGD": torch.optim.ASGD, "Adadelta": torch.optim.Adadelta}
for name, make in optimizers.items():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    opt = make(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)
    losses = []
    for epoch in range(3):
        for xb, yb in loader:
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(f"{loss.item():.4f}")
        sched.step()
    print(name, losses, sched.get_last_lr())

""",
        "wrong arguments: PyTorch's messages": """\
import torch
from torch.optim import lr_scheduler
opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
lr_scheduler.ConstantLR(opt, factor=2)
lr_scheduler.LinearLR(opt, start_factor=0)
lr_scheduler.LinearLR(opt, end_factor=1.5)
lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0)
lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5)
lr_scheduler.CyclicLR(opt, 0.1, 1.0, mode="bad")
lr_scheduler.OneCycleLR(opt, max_lr=1.0)
lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=0)
lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=1)
lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, anneal_strategy="x")
s = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
s.step(); s.step()
s.step()
opt.step()
s2 = lr_scheduler.StepLR(opt, 2)
opt.step()
s2.step()
lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
lr_scheduler.ReduceLROnPlateau(opt, mode="up")
lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1, 0.2])
lr_scheduler.SequentialLR(opt, [], milestones=[])
lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(opt)], milestones=[1])
lr_scheduler.ChainedScheduler([lr_scheduler.ReduceLROnPlateau(opt)])
lr_scheduler.MultiplicativeLR(opt, lr_lambda=3)
lr_scheduler.CosineAnnealingLR(3, T_max=3)
lr_scheduler.CyclicLR(torch.optim.Adagrad([torch.nn.Parameter(torch.ones(1))]), 0.1, 1.0)
""",
    },
    "pytorch_code_losses_more": {
        "SmoothL1Loss, HuberLoss, KLDivLoss, CosineSimilarity, MarginRankingLoss": """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(3, 4, requires_grad=True)
nn.SmoothL1Loss(), nn.SmoothL1Loss(beta=0.5)(a, b), nn.HuberLoss(delta=0.5)(a, b)
nn.HuberLoss(reduction="sum")(a, b), nn.SmoothL1Loss(reduction="none")(a, b)
c = nn.CosineSimilarity()(a, b)
c
c.grad_fn, c.grad_fn.next_functions[0][0].next_functions
c.sum().backward()
a.grad, b.grad
F.cosine_similarity(a, b, dim=0), F.cosine_similarity(a, torch.zeros(3, 4), dim=1)
nn.CosineSimilarity(dim=0, eps=1e-6)
logp = F.log_softmax(a, dim=1)
q = F.softmax(b, dim=1)
k = F.kl_div(logp, q, reduction="batchmean")
k, k.grad_fn
nn.KLDivLoss(reduction="sum")(logp, q), nn.KLDivLoss(reduction="none", log_target=True)(logp, q.log())
F.kl_div(logp, q)
a.grad = None
F.kl_div(logp, q, reduction="batchmean").backward()
a.grad
y = torch.tensor([1., -1., 1.])
m = nn.MarginRankingLoss(margin=0.3)
m
l = m(a[:, 0], b[:, 0], y)
l, l.grad_fn, l.grad_fn.next_functions
F.margin_ranking_loss(a[:, 1], b[:, 1], y, reduction="none")
F.margin_ranking_loss(a[:, 1], b[:, 1].unsqueeze(1), y)
F.kl_div(logp, q, reduction="bad")
""",
        "PoissonNLLLoss, GaussianNLLLoss, HingeEmbeddingLoss, CosineEmbeddingLoss": """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(3, 4, requires_grad=True)
counts = torch.tensor([[0., 1., 2., 5.], [3., 0., 1., 7.], [1., 1., 4., 2.]])
p = nn.PoissonNLLLoss()(a, counts)
p, p.grad_fn.next_functions
F.poisson_nll_loss(a.exp(), counts, log_input=False, full=True, reduction="sum")
F.poisson_nll_loss(a, counts, full=True, reduction="none")
var = torch.rand(3, 4, requires_grad=True)
g = nn.GaussianNLLLoss()(a, b, var)
g, g.grad_fn
F.gaussian_nll_loss(a, b, var[:, 0], full=True, reduction="sum"), F.gaussian_nll_loss(a, b, 0.5)
F.gaussian_nll_loss(a, b, -var)
F.gaussian_nll_loss(a, b, torch.ones(2, 2))
y = torch.tensor([[1., -1., 1., -1.], [-1., -1., 1., 1.], [1., 1., -1., -1.]])
h = nn.HingeEmbeddingLoss(margin=0.5)(a, y)
h, h.grad_fn.next_functions
F.hinge_embedding_loss(a, y, reduction="none")
t = torch.tensor([1., -1., -1.])
c = nn.CosineEmbeddingLoss(margin=0.1)(a, b, t)
c, c.grad_fn.next_functions
(p + g + h + c).backward()
a.grad, b.grad, var.grad
F.cosine_embedding_loss(a, b, t.unsqueeze(1))
F.cosine_embedding_loss(a[0], b[0], torch.tensor(1.))
F.cosine_embedding_loss(a, b[0], t)
nn.PoissonNLLLoss(), nn.GaussianNLLLoss(), nn.HingeEmbeddingLoss(), nn.CosineEmbeddingLoss()
""",
    },
    "pytorch_code_data_samplers": {
        "RandomSampler with replacement and num_samples, SubsetRandomSampler, BatchSampler": """\
import torch
from torch.utils.data import (TensorDataset, DataLoader, RandomSampler, SequentialSampler,
                              SubsetRandomSampler, BatchSampler)
ds = TensorDataset(torch.arange(7))
torch.manual_seed(3)
loader = DataLoader(ds, sampler=RandomSampler(ds, replacement=True, num_samples=40), batch_size=8)
len(loader), [b[0].tolist() for b in loader][-2:]
torch.rand(1)
torch.manual_seed(4)
list(SubsetRandomSampler([10, 20, 30, 40])), list(RandomSampler(range(5), num_samples=12))
torch.rand(1)
list(BatchSampler(SequentialSampler(range(7)), 3, False)), list(BatchSampler(range(7), 3, True))
len(BatchSampler(range(7), 3, False)), len(BatchSampler(range(7), 3, True))
g = torch.Generator().manual_seed(0)
list(RandomSampler(range(6), generator=g)), list(RandomSampler(range(6), generator=g))
RandomSampler(range(3), replacement=1)
RandomSampler(range(3), num_samples=0)
[b[0].tolist() for b in DataLoader(ds, batch_sampler=BatchSampler(SubsetRandomSampler([0, 2, 4, 6], generator=g), 3, False))]
""",
    },
}


def write_all():
    for stem, sessions in SESSIONS.items():
        (TRANSCRIPTS / f"{stem}.txt").write_text(transcript_text(sessions), encoding="utf-8")


if __name__ == "__main__":
    write_all()
