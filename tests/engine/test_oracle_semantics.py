"""The programs of the test_*_programs.py modules (tests/pinned.py) run against gradcli and
against PyTorch: the printed values, gradients, grad_fn names, reprs, errors and warnings must
be the same.

Without torch, PyTorch's answers come from golden/test_oracle_semantics.json.
"""

import pytest

import gradcli

from pinned import load_all, normalize, run_program, skip_if_unavailable

PROGRAMS = load_all()


# PyTorch emits this one warning once per process, so whether it shows depends on test order.
_WARN_ONCE = "UserWarning: Using backward() with create_graph=True"


def _comparable(text):
    return "\n".join(line for line in normalize(text).split("\n")
                     if not line.startswith(_WARN_ONCE))


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_gradcli_matches_installed_pytorch(name, oracle):
    skip_if_unavailable(name)
    assert _comparable(run_program(gradcli, PROGRAMS[name])) == \
        oracle(lambda torch: _comparable(run_program(torch, PROGRAMS[name])))


SMALL_PROGRAMS = {
    "chain_rule": "x = torch.tensor([2.0], requires_grad=True)\n"
                  "y = torch.tensor([3.0], requires_grad=True)\n"
                  "s = x + y\nz = s ** 2\nprint(s, z)\nz.backward()\nprint(x.grad, y.grad)",
    "dynamic_graph": "x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)\n"
                     "l = torch.relu(x ** 2).sum()\nm = torch.tanh(x ** 2).sum()\n"
                     "print(l, m)\nl.backward()\nprint(x.grad)\nx.grad = None\n"
                     "m.backward()\nprint(x.grad)",
    "loop_accumulation": "w = torch.tensor([1.0, -2.0], requires_grad=True)\n"
                         "for i in range(4):\n    loss = (w * (i + 1)).sum() / 4\n"
                         "    loss.backward()\nprint(w.grad)",
    "double_precision": "x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)\n"
                        "y = (x.exp() * x).sum()\nprint(y)\ny.backward()\nprint(x.grad)",
    "mean_and_div": "x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
                    "y = (x / 3).mean()\nprint(y)\ny.backward()\nprint(x.grad)",
}


@pytest.mark.parametrize("name", list(SMALL_PROGRAMS))
def test_tutorial_snippets_match_installed_pytorch(name, oracle):
    assert _comparable(run_program(gradcli, SMALL_PROGRAMS[name])) == \
        oracle(lambda torch: _comparable(run_program(torch, SMALL_PROGRAMS[name])))
