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
}


def write_all():
    for stem, sessions in SESSIONS.items():
        (TRANSCRIPTS / f"{stem}.txt").write_text(transcript_text(sessions), encoding="utf-8")


if __name__ == "__main__":
    write_all()
