"""`import copy` (issue 20): copy.copy and copy.deepcopy of tensors, Parameters, containers,
modules and optimizers, and their refusals, printed as PyTorch 2.13 prints them (each program
run by PyTorch and by gradcli, compat24's comparison; PyTorch's answers in
golden/test_copy_compat26.json, GRADCLI_REGEN_GOLDEN=1 regenerates them)."""

import pytest
from test_programs_compat24 import gradcli_prints, pytorch_prints

PROGRAMS = {
    "leaf_tensors": """\
import torch, copy
x = torch.tensor([1., 2.], requires_grad=True)
x.grad = torch.ones(2)
x.note = 'kept'
d = copy.deepcopy(x)
print(d, d.grad, d.is_leaf, d.requires_grad, d.note, d is x)
print(d.data_ptr() == x.data_ptr(), d.grad.data_ptr() == x.grad.data_ptr())
with torch.no_grad():
    d.add_(1)
print(x, d)
i = torch.arange(3)
print(copy.deepcopy(i), copy.deepcopy(i).dtype)
print(copy.deepcopy(torch.tensor(2.5, dtype=torch.float64)))
""",
    "non_leaf_deepcopy_is_refused": """\
import torch, copy
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
print(copy.deepcopy(y.detach()))
copy.deepcopy(y)
""",
    "shallow_copies_share_memory": """\
import torch, copy
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
c = copy.copy(x)
print(c, c is x, c.is_leaf, c.data_ptr() == x.data_ptr())
c2 = copy.copy(y)
print(c2, c2.grad_fn, c2.is_leaf, c2.requires_grad, c2.data_ptr() == y.data_ptr())
l = [x, [y]]
s = copy.copy(l)
print(s is l, s[0] is x, s[1] is l[1])
d = {'a': [1]}
print(copy.copy(d)['a'] is d['a'], copy.deepcopy(d)['a'] is d['a'])
""",
    "parameters": """\
import torch, copy
p = torch.nn.Parameter(torch.ones(2))
p.grad = torch.full((2,), 3.)
q = copy.deepcopy(p)
print(type(q).__name__, q, q.grad, q is p)
r = copy.deepcopy(torch.nn.Parameter(torch.zeros(1), requires_grad=False))
print(r, r.requires_grad)
""",
    "containers_keep_their_sharing": """\
import torch, copy
x = torch.ones(2, requires_grad=True)
items = [x, x, {'a': x, 'b': (1, 2)}, {3, 4}, (x,)]
c = copy.deepcopy(items)
print(c[0] is c[1], c[2]['a'] is c[0], c[4][0] is c[0], c[0] is x)
t = (1, 'a', None)
print(copy.deepcopy(t) is t, copy.deepcopy([1, [2, [3]]]), copy.deepcopy({1: {2}}))
print(copy.deepcopy(torch.float32), copy.deepcopy(torch.Size([2, 3])))
print(copy.deepcopy(torch.device('cpu')))
print(copy.deepcopy(torch.sin) is torch.sin, copy.deepcopy(len) is len)
""",
    "modules_train_on_their_own": """\
import torch, copy
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
twin = copy.deepcopy(net)
print(twin)
print(twin[0].weight is net[0].weight, torch.equal(twin[0].weight, net[0].weight))
print(all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), twin.state_dict().values())))
x = torch.tensor([[1., 2.]])
twin(x).sum().backward()
print(net[0].weight.grad, twin[2].bias.grad)
opt = torch.optim.SGD(twin.parameters(), lr=0.5)
opt.step()
print(torch.equal(twin[2].bias, net[2].bias), net[2].bias)
shallow = copy.copy(net)
print(shallow[0] is net[0], shallow is net)
""",
    "subclassed_modules_with_buffers_and_hooks": """\
import torch, copy
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)
        self.bn = torch.nn.BatchNorm1d(2)
        self.register_buffer('steps', torch.zeros(1))
        self.scale = 2.0
    def forward(self, x):
        self.steps += 1
        return self.bn(self.fc(x)) * self.scale
torch.manual_seed(1)
net = Net()
net.fc.register_forward_hook(lambda m, i, o: print('hook', o.shape))
twin = copy.deepcopy(net)
out = twin(torch.tensor([[1., 2.], [3., 5.]]))
print(type(twin).__name__, twin.scale, twin.steps, net.steps)
print(twin.bn.running_mean, net.bn.running_mean, twin.bn.num_batches_tracked)
print(sorted(twin.state_dict().keys()))
""",
    "optimizers_and_their_state": """\
import torch, copy
torch.manual_seed(0)
m = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
m(torch.ones(1, 2)).sum().backward()
opt.step()
saved = copy.deepcopy(opt.state_dict())
print(saved)
m(torch.ones(1, 2)).sum().backward()
opt.step()
print(saved['state'][0]['momentum_buffer'], opt.state_dict()['state'][0]['momentum_buffer'])
opt.load_state_dict(saved)
print(opt.state_dict()['state'][0]['momentum_buffer'])
adam = torch.optim.Adam(m.parameters(), lr=0.01)
m(torch.ones(1, 2)).sum().backward()
adam.step()
twin = copy.deepcopy(adam)
group = twin.param_groups[0]
print(type(twin).__name__, group['lr'], group['params'][0] is m.weight)
print(sorted(twin.state_dict()['state'][0].keys()))
""",
    "what_cannot_be_pickled": """\
import torch, copy
x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
for thing in [y.grad_fn, (i for i in range(2)), torch]:
    for f in (copy.copy, copy.deepcopy):
        try:
            f(thing)
        except TypeError as e:
            print(f.__name__, e)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_copy_prints_what_pytorch_prints(name, oracle):
    source = PROGRAMS[name]
    expected = oracle(lambda torch: pytorch_prints(torch, source, name + ".py"))
    got = gradcli_prints(source, name + ".py")
    assert got["error"] == expected["error"]
    assert got["stdout"] == expected["stdout"]
