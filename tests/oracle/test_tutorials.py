"""Snippets of PyTorch's autograd tutorials (the gentle introduction, the autograd basics and
mechanics pages, higher-order derivatives, a custom Function, a small training loop), replayed
through the piped REPL against what real PyTorch prints for them."""

import pytest

from gradcli.lang.console import is_compound
from gradcli.lang.console import statements as console_statements
from gradcli.lang.parser import is_complete
from gradcli.lang.transcript import compare, replay

from sessions import recorded_transcript


def statements(snippet):
    """The snippet cut into statements as the piped REPL reads them (a compound statement ends
    with the blank line that closes it)."""
    return [source.split("\n") + ([""] if is_compound(source) else [])
            for source in console_statements(snippet.splitlines(), is_complete)]


SNIPPETS = [
"""import torch
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9*a**2 == a.grad)
print(-2*b == b.grad)
torch.manual_seed(2)
x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")""",
"""import torch
torch.manual_seed(1)
x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
loss.backward()
print(w.grad)
print(b.grad)
z = torch.matmul(x, w)+b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)
z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nSecond call\\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nCall after zeroing gradients\\n{inp.grad}")""",
"""import torch
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)
print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
print(x.requires_grad)
y = x.detach()
print(y.requires_grad)
print(x.eq(y).all())""",
"""import torch
a = torch.tensor([1., 2., 3.], requires_grad=True)
out = a.sigmoid()
c = out.data
c.zero_()
print(out)
out.sum().backward()
print(a.grad)
a = torch.tensor([1., 2., 3.], requires_grad=True)
out = a.sigmoid()
c = out.detach()
c.zero_()
print(out)
out.sum().backward()""",
"""import torch
x = torch.tensor(1.0, requires_grad=True)
y = x ** 3
dy, = torch.autograd.grad(y, x, create_graph=True)
print(dy)
d2y, = torch.autograd.grad(dy, x, create_graph=True)
print(d2y)
d3y, = torch.autograd.grad(d2y, x)
print(d3y)
def f(x):
    return x.exp().sum()
print(torch.autograd.functional.jacobian(f, torch.tensor([0., 1.])))
print(torch.autograd.functional.hessian(f, torch.tensor([0., 1.])))
def exp_reducer(x):
    return x.exp().sum(dim=1)
v = torch.ones(2)
print(torch.autograd.functional.vjp(exp_reducer, torch.ones(2, 2), v))
print(torch.autograd.functional.jvp(exp_reducer, torch.ones(2, 2), torch.ones(2, 2)))""",
"""import torch
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result

x = torch.tensor([0.5, 1.5], requires_grad=True)
y = Exp.apply(x)
print(y)
y.sum().backward()
print(x.grad)
print(y.grad_fn)
print(torch.autograd.gradcheck(Exp.apply, (torch.randn(3, dtype=torch.double, requires_grad=True),)))""",
# The loss is printed to 5 decimals: the last bits of a float32 matrix product are the BLAS
# kernel's, and PyTorch's own kernels round differently on an Intel and an AMD processor.
"""import torch
import torch.nn.functional as F
torch.manual_seed(42)
X = torch.randn(8, 3)
true_w = torch.tensor([[2.0], [-3.0], [0.5]])
y = X @ true_w + 0.1
w = torch.zeros(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1
for epoch in range(5):
    pred = X @ w + b
    loss = F.mse_loss(pred, y)
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    print(epoch, round(loss.item(), 5))
print(w)
print(b)""",

"""import torch
x = torch.arange(4.0)
x
x.requires_grad_(True)
x.grad
y = 2 * torch.dot(x, x)
y
y.backward()
x.grad
x.grad == 4 * x
x.grad.zero_()
y = x.sum()
y.backward()
x.grad
x.grad.zero_()
y = x * x
y.sum().backward()
x.grad
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
x.grad == u
def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
a.grad == d / a""",
"""import torch
x = torch.linspace(-3, 3, 7, requires_grad=True)
y = torch.sigmoid(x)
y.sum().backward()
x.grad
x = torch.linspace(0, 1, 5, requires_grad=True)
y = x.relu()
y
torch.relu(torch.tensor([-1., 0., 2.], requires_grad=True))
t = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
t.T
t.mean(dim=0)
t.max(dim=1)
t.std()
t.norm()
s = t.softmax(dim=1)
s
s[0, 0].backward()
t.grad
t.shape, t.dtype, t.device
t.grad_fn is None, t.is_leaf
t.clone()
t.view(-1)
t.reshape(4, 1)
t.unsqueeze(0).shape
torch.cat([t, t]).shape
torch.stack([t, t], dim=2).shape""",
"""import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
xs = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])
ys = torch.tensor([1., 0., 1.])
logits = xs @ w + b
probs = torch.sigmoid(logits)
probs
loss = torch.nn.functional.binary_cross_entropy(probs, ys)
loss
loss.backward()
w.grad, b.grad
loss.backward()
h = w.register_hook(lambda g: print("grad:", g))
(w * 2).sum().backward()
h.remove()
w.grad
torch.autograd.grad((w ** 2).sum(), w)
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x ** 2
y.backward(torch.tensor([1., 1.]))
y.backward()
z = torch.tensor([1, 2, 3])
z.float().mean()
z.mean()
torch.zeros(2, 3).sum(dim=1, keepdim=True)
torch.tensor([[1., 2.], [3., 4.]]).inverse()
torch.tensor([[1., 2.], [3., 4.]]).det()""",
"""import torch
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
z = x * y + y ** 2
z.backward()
print(x.grad, y.grad)
z = x * y + y ** 2
z.backward()
print(x.grad, y.grad)
x.grad = None
y.grad.zero_()
z = x ** 2
z.retain_grad()
w = z * 3
w.backward()
z.grad
x.grad
w.grad_fn.next_functions
w.grad_fn.next_functions[0][0].next_functions
x.is_leaf, z.is_leaf, w.is_leaf
torch.is_grad_enabled()
with torch.enable_grad():
    print(torch.is_grad_enabled())
@torch.no_grad()
def doubler(t):
    return t * 2
doubler(x).requires_grad
x.detach_() if False else x.detach().requires_grad""",
"""import torch
a = torch.ones(2, 2, requires_grad=True)
b = a + 2
c = b * b * 3
out = c.mean()
print(b, c, out, sep="\\n")
out.backward()
print(a.grad)
v = torch.tensor([[0.1, 1.0], [0.0001, 0.5]])
d = a * 2
d.backward(v)
a.grad
print(a.requires_grad)
print((a ** 2).requires_grad)
a.requires_grad_(False)
print((a ** 2).requires_grad)
torch.manual_seed(3)
e = torch.randn(2, 2)
e = ((e * 3) / (e - 1))
print(e.requires_grad)
e.requires_grad_(True)
print(e.requires_grad)
f = (e * e).sum()
print(f.grad_fn)""",
]


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_tutorial_snippet_matches_pytorch(index, oracle):
    session = recorded_transcript(oracle, statements(SNIPPETS[index]), f"snippet {index}")
    diff = compare(session, replay(session), f"snippet {index}")
    assert diff is None, diff
