"""torch.nn (issue 20): modules register what is assigned to them, print as PyTorch prints
them; a program's Module subclass stays in the sandbox (torch.optim: tests/optim).  (Whole sessions against PyTorch: tests/transcripts/oracle/pytorch_code_nn.txt.)"""

import numpy as np
import pytest

import gradcli as torch
from gradcli import nn
from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session


pytestmark = pytest.mark.usefixtures("fresh_engine")


def run(source):
    import io
    out = io.StringIO()
    Session(out=out).run(source)
    return out.getvalue()


def error(source):
    with pytest.raises(ProgramError) as info:
        Session().run(source)
    return info.value


def test_assigned_parameters_and_modules_are_registered_in_order():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 3)
            self.scale = nn.Parameter(torch.ones(1))
            self.b = nn.Sequential(nn.ReLU(), nn.Linear(3, 1, bias=False))
            self.note = "not a parameter"

    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["scale", "a.weight", "a.bias",
                                                      "b.1.weight"]
    assert [n for n, _ in net.named_children()] == ["a", "b"]
    assert list(net.state_dict()) == ["scale", "a.weight", "a.bias", "b.1.weight"]
    net.scale = None
    assert [n for n, _ in net.named_parameters()][:1] == ["a.weight"]
    with pytest.raises(TypeError, match="cannot assign 'torch.FloatTensor' as parameter"):
        net.a.weight = torch.ones(3, 2)


def test_linear_initialisation_follows_pytorchs_bounds():
    torch.manual_seed(0)
    lin = nn.Linear(16, 4)
    assert lin.weight.shape == (4, 16) and lin.bias.shape == (4,)
    assert lin.weight.detach().abs().max() <= 0.25 and lin.bias.detach().abs().max() <= 0.25
    assert lin.weight.requires_grad and lin.weight.is_leaf
    assert repr(lin) == "Linear(in_features=16, out_features=4, bias=True)"
    assert repr(nn.Parameter(torch.tensor([1., 2.]))) == \
        "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


def test_load_state_dict_copies_and_reports_mismatched_keys():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    assert repr(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"
    assert np.array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        b.load_state_dict({"weight": a.weight})


def test_a_program_subclasses_module_and_trains_it():
    out = run("""\
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self, hidden):
        super(Net, self).__init__()
        self.fc = nn.Linear(2, hidden)
        self.out = nn.Linear(hidden, 1)
    def forward(self, x):
        return self.out(torch.tanh(self.fc(x)))
torch.manual_seed(0)
net = Net(4)
opt = torch.optim.Adam(net.parameters(), lr=0.05)
x = torch.randn(16, 2)
y = x.sum(dim=1, keepdim=True)
first = None
for step in range(50):
    opt.zero_grad()
    loss = nn.functional.mse_loss(net(x), y)
    loss.backward()
    opt.step()
    first = first or loss.item()
print(loss.item() < first / 10, net)
net.fc.weight = nn.Parameter(torch.zeros(4, 2))
print(net.fc.weight.sum().item())
""")
    assert out.splitlines()[0] == "True Net("


@pytest.mark.parametrize("source, kind, fragment", [
    ("m = torch.nn.Linear(1, 1)\nm._parameters", "AttributeError",
     "attributes starting with '_' are not allowed"),
    ("m = torch.nn.Linear(1, 1)\nm.__dict__", "AttributeError",
     "attributes starting with '_' are not allowed"),
    ("m = torch.nn.Linear(1, 1)\ntype(m).__init__", "AttributeError",
     "attributes starting with '_' are not allowed"),
    ("class M(torch.nn.Module):\n    def __setattr__(self, n, v):\n        pass", "NameError",
     "names starting with '__' are not allowed"),
    ("class M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        super().__setattr__('x', 1)\nM()", "AttributeError",
     "attributes starting with '_' are not allowed"),
    ("class M(torch.nn.Module):\n    def f(self):\n        return super(int, 3)\nM().f()",
     "TypeError", "a class of the program"),
])
def test_modules_stay_in_the_sandbox(source, kind, fragment):
    e = error("import torch\n" + source)
    assert e.type_name == kind and fragment in e.message, e.headline()


def test_module_hooks_are_program_callables_checked_as_calls_are():
    """A hook (and Module.apply's function) is held to the check of a direct call when the
    module takes it: NumPy's raw ndarray constructor is refused, as `map(np.ndarray, ...)`."""
    setup = "import torch\nimport numpy as np\nm = torch.nn.Linear(2, 2)\n"
    for register in ["m.register_forward_pre_hook(np.ndarray)",
                     "m.register_forward_hook(np.ndarray)",
                     "m.register_full_backward_hook(np.ndarray)",
                     "m.register_full_backward_pre_hook(np.ndarray)"]:
        e = error(setup + register + "\nm(torch.ones(1, 2, requires_grad=True)).sum()"
                  ".backward()\n")
        assert "numpy.ndarray() is not available in gradcli programs" in str(e), register
    e = error(setup + "m.apply(np.ndarray)\n")
    assert "numpy.ndarray() is not available in gradcli programs" in str(e)
    assert run(setup + "h = m.register_forward_hook(lambda mod, a, o: o * 0)\n"
               "print(m(torch.ones(1, 2)).abs().sum().item())\nh.remove()\n"
               "print(m(torch.ones(1, 2)).abs().sum().item() > 0)\n") == "0.0\nTrue\n"


def test_buffers_move_with_the_module_and_stay_out_of_parameters():
    m = nn.Module()
    m.register_buffer("stat", torch.zeros(2))
    m.register_buffer("count", torch.tensor(0))
    m.w = nn.Parameter(torch.ones(1))
    assert [n for n, _ in m.named_parameters()] == ["w"]
    m.double()
    assert (m.stat.dtype, m.count.dtype, m.w.dtype) == (torch.float64, torch.int64,
                                                        torch.float64)
    assert m._buffers["stat"] is m.stat
    with pytest.raises(KeyError, match="attribute 'w' already exists"):
        m.register_buffer("w", torch.ones(1))


def _module_error_messages(torch):
    """The full messages (the transcripts show only their first line) of load_state_dict's and
    functional_call's errors, and of the backward hooks' returns."""
    nn = torch.nn
    torch.manual_seed(0)
    m = nn.Linear(2, 2)
    m.register_buffer("count", torch.tensor(0))
    m.register_buffer("tmp", torch.ones(1), persistent=False)
    x = torch.ones(1, 2, requires_grad=True)
    cases = [
        lambda: m.load_state_dict({"weight": torch.ones(3, 2), "bias": torch.ones(2),
                                   "count": torch.tensor([4])}),
        lambda: m.load_state_dict({"weight": torch.ones(2, 2), "bias": 3,
                                   "count": torch.tensor(1)}),
        lambda: m.load_state_dict({"weight": torch.ones(3, 3), "extra": torch.ones(1)}),
        lambda: m.load_state_dict({"weight": torch.ones(3, 3)}, strict=False),
        lambda: torch.func.functional_call(m, {"weight": torch.ones(2, 2)}, (x,), strict=True),
        lambda: torch.func.functional_call(m, {"weight": torch.ones(2, 2), "bias": x[0],
                                               "count": x, "tmp": x, "zz": x, "aa": x}, (x,),
                                           strict=True),
    ]
    for bad in [lambda mod, gi, go: (gi[0], gi[0]), lambda mod, gi, go: 5]:
        lin = nn.Linear(2, 2)
        lin.register_full_backward_hook(bad)
        cases.append(lambda lin=lin: lin(x).sum().backward())
    lin = nn.Linear(2, 2)
    lin.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    cases.append(lambda: lin(x).sum().backward())
    out = []
    for case in cases:
        try:
            case()
            out.append(None)
        except Exception as e:  # noqa: BLE001 (each case raises; its type and text are compared)
            out.append((type(e).__name__, str(e)))
    return out


def test_multiline_module_errors_are_worded_as_pytorch_words_them(oracle):
    expected = oracle(_module_error_messages)
    assert _module_error_messages(torch) == expected
