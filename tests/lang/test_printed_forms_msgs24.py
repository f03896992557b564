"""What a program prints for PyTorch's callables and small objects is what PyTorch prints:
a tensor's method is its C binding (`<built-in method sin of Tensor object at 0x...>`, bound;
`<method 'sin' of 'torch._C.TensorBase' objects>`, Tensor's), a graph node's and a Size's
methods too, the methods PyTorch writes in Python stay bound methods, `print` is Python's
builtin; finfo and iinfo are torch's classes; a device keeps its index.  (Addresses differ
from run to run: compared as `0x?`, and the tensor's own id is checked separately.)"""

import contextlib
import io
import re

import pytest

PROGRAMS = {
    "tensor_methods": "x = torch.ones(2, requires_grad=True)\n"
                      "print(x.sin)\nprint(x.size, x.add_, x.sum)\nprint(x.register_hook)\n"
                      "print(x.backward)\nprint(repr(x.mean), str(x.exp))",
    "unbound": "print(torch.Tensor.add)\nprint(torch.Tensor.size, torch.Tensor.register_hook)",
    "node_and_size": "x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
                     "print(y.grad_fn.name, y.grad_fn.register_hook)\nprint(x.shape.numel)",
    "builtins": "print(print)\nprint(repr(print))",
    "typeinfo": "print(type(torch.finfo(torch.float32)), type(torch.iinfo(torch.int32)))\n"
                "print(torch.finfo, torch.iinfo)",
    "devices": "for d in [torch.device('cpu'), torch.device('cpu', 0), torch.device('cpu:1')]:\n"
               "    print(d, repr(d), d.index, d == torch.device('cpu'))",
    "device_errors": "for a in [('cpu', -1), ('cpu:0', 0), ('cpu:x',)]:\n"
                     "    try:\n        torch.device(*a)\n"
                     "    except RuntimeError as e:\n        print(e)",
}


def _addresses_hidden(text):
    return re.sub(r"0x[0-9a-f]+", "0x?", text)


def _torch_prints(torch, source):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(source, {"torch": torch})
    return _addresses_hidden(out.getvalue())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_printed_forms_are_pytorchs(name, run, oracle):
    printed = run("import torch\n" + PROGRAMS[name] + "\n")
    assert _addresses_hidden(printed) == oracle(lambda torch: _torch_prints(torch,
                                                                            PROGRAMS[name]))


def test_a_bound_method_shows_its_tensors_address(run):
    printed = run("import torch\nx = torch.ones(2)\nprint(x.sin)\n")
    address = id(run.session.namespace["x"])
    assert printed == f"<built-in method sin of Tensor object at {address:#x}>\n"
