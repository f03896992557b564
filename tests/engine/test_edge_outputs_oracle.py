"""A GradientEdge as an output of autograd.grad and backward (issue #20): the pass starts at
the edge's node with the gradient given, or ones for an edge of one element, as PyTorch 2.13
does; the shape and dtype checks are the tensor's.  Checked against torch (README "The oracle
tests")."""

import pytest

import gradcli

from processes import program_error

CASES = {
    "given gradient": "y = x * 3\ne = get_gradient_edge(y)\nr = grad(e, x, torch.ones(2))",
    "implicit, not scalar": "y = x * 3\ne = get_gradient_edge(y)\nr = grad(e, x)",
    "implicit, scalar": "z = (x ** 2).sum()\nr = grad(get_gradient_edge(z), x)",
    "listed": "z = (x ** 2).sum()\nr = grad([get_gradient_edge(z)], [x], [torch.tensor(2.)])",
    "with a tensor": "y = x * 3\nz = (y ** 2).sum()\n"
                     "r = grad([z, get_gradient_edge(y)], [x], [torch.tensor(1.), torch.ones(2)])",
    "edge to edge": "y = x * 3\n"
                    "r = grad(get_gradient_edge(y), get_gradient_edge(x), torch.ones(2))",
    "leaf": "r = grad(get_gradient_edge(x), x, torch.tensor([2., 5.]))",
    "written in place after": "y = x * 3\ne = get_gradient_edge(y)\ny.mul_(x)\n"
                              "r = grad(e, x, torch.ones(2))",
    "second order": "y = x ** 3\ng, = grad(get_gradient_edge(y), x, torch.ones(2), "
                    "create_graph=True)\nr = [g.tolist(), grad(g.sum(), x)[0].tolist()]",
    "backward": "y = x * 3\ntorch.autograd.backward(get_gradient_edge(y), torch.ones(2))\n"
                "r = x.grad",
    "unbind": "y = x.unbind()\nr = grad(get_gradient_edge(y[1]), x, torch.tensor(1.))",
    "split by hand": "a, b = x.split(1)\n"
                     "r = grad(GradientEdge(a.grad_fn, 1), x, torch.ones(1))",
    "split out of range": "a, b = x.split(1)\n"
                          "r = grad(GradientEdge(a.grad_fn, 2), x, torch.ones(1))",
    "wrong shape": "y = x * 3\nr = grad(get_gradient_edge(y), x, torch.ones(3))",
    "float64 output": "y = x.double() * 3\nr = grad(get_gradient_edge(y), x, torch.ones(2))",
    "not a node": "r = grad(GradientEdge(3, 0), x, torch.ones(2))",
    # edges made by hand of one-output nodes: a pointwise op's, a reduction's, a saved result's
    "product by hand": "y = x * x\nr = grad(GradientEdge(y.grad_fn, 0), x, torch.ones(2))",
    "sin by hand, implicit": "y = x.sin()\nr = grad(GradientEdge(y.grad_fn, 0), x)",
    "sin by hand, wrong shape": "y = x.sin()\n"
                                "r = grad(GradientEdge(y.grad_fn, 0), x, torch.ones(2, 1))",
    "broadcast by hand": "y = x * torch.ones(3, 1)\n"
                         "r = grad(GradientEdge(y.grad_fn, 0), x, torch.ones(3, 2))",
    "broadcast by hand, wrong shape": "y = x * torch.ones(3, 1)\n"
                                      "r = grad(GradientEdge(y.grad_fn, 0), x, torch.ones(2))",
    "scalar operand by hand": "y = 2.5 - x\nr = grad(GradientEdge(y.grad_fn, 0), x, "
                              "torch.tensor([1., 3.]))",
    "exp by hand": "y = x.exp()\nr = grad(GradientEdge(y.grad_fn, 0), x, torch.ones(2))",
    "sum by hand, implicit": "z = (x * 3).sum()\nr = grad(GradientEdge(z.grad_fn, 0), x)",
    "mean by hand": "z = x.mean()\nr = grad(GradientEdge(z.grad_fn, 0), x, torch.tensor(2.))",
    "sum over a dim by hand": "m = x * torch.ones(3, 1)\nz = m.sum(dim=1)\n"
                              "r = grad(GradientEdge(z.grad_fn, 0), x, torch.ones(3))",
    "keepdim by hand, wrong shape": "m = x * torch.ones(3, 1)\nz = m.sum(-1, keepdim=True)\n"
                                    "r = grad(GradientEdge(z.grad_fn, 0), x, torch.ones(3))",
    "float64 by hand": "y = x.double().sin()\n"
                       "r = grad(GradientEdge(y.grad_fn, 0), x, torch.ones(2, dtype=torch.float64))",
    "float32 gradient of a float64 output by hand": "y = x.double().sin()\n"
                                                    "r = grad(GradientEdge(y.grad_fn, 0), x, "
                                                    "torch.ones(2))",
    "backward by hand": "y = x.tanh()\n"
                        "torch.autograd.backward(GradientEdge(y.grad_fn, 0), torch.ones(2))\n"
                        "r = x.grad",
    "out of range by hand": "y = x.sin()\nr = grad(GradientEdge(y.grad_fn, 1), x, torch.ones(2))",
}

PRELUDE = ("x = torch.tensor([1., 2.], requires_grad=True)\n"
           "grad = torch.autograd.grad\n"  # (no import statement: exec's torch is the one given)
           "GradientEdge = torch.autograd.graph.GradientEdge\n"
           "get_gradient_edge = torch.autograd.graph.get_gradient_edge\n")


def answer(torch, source):
    namespace = {"torch": torch}
    try:
        exec(PRELUDE + source, namespace)
    except Exception as e:  # noqa: BLE001 (the message is the answer)
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    r = namespace["r"]
    if isinstance(r, tuple):
        return [[str(g.dtype), g.tolist()] for g in r]
    return r.tolist() if isinstance(r, torch.Tensor) else r


@pytest.mark.parametrize("source", CASES.values(), ids=CASES.keys())
def test_a_gradient_edge_output_is_differentiated_as_pytorch_does(source, oracle):
    expected = oracle(lambda torch: answer(torch, source))
    assert answer(gradcli, source) == expected


@pytest.mark.parametrize("source", [CASES["given gradient"], CASES["wrong shape"]],
                         ids=["given gradient", "wrong shape"])
def test_programs_differentiate_an_edge_output(source, oracle):
    """The same through the language (an error is its one line)."""
    expected = oracle(lambda torch: answer(torch, source))
    if isinstance(expected, str):
        assert program_error("import torch\n" + PRELUDE + source)[0] == expected
    else:
        from processes import program_output
        assert program_output("import torch\n" + PRELUDE + source + "\nprint(r)\n") == \
            "(tensor([3., 3.]),)\n"


def test_explain_traces_a_pass_from_an_edge():
    """gradcli eval/explain observe the program's own passes: one started at an edge too."""
    from gradcli.analysis.trace import PassTracer
    from gradcli.engine import autograd
    tracer = PassTracer()
    x = gradcli.tensor([1., 2.], requires_grad=True)
    y = x * 3
    with autograd.observing(pass_observer=tracer):
        gradcli.autograd.backward(gradcli.autograd.graph.get_gradient_edge(y), gradcli.ones(2))
    assert [type(s.node).__name__ for s in tracer.steps_from(None)] == ["MulBackward0"]
    assert x.grad.tolist() == [3.0, 3.0]


def test_a_negative_output_number_is_an_index_error():
    """(PyTorch 2.13 indexes its node's metadata from the end, then its engine crashes on the
    negative number: no oracle.)"""
    error = program_error("import torch\n" + PRELUDE + "a, b = x.split(1)\n"
                          "r = torch.autograd.grad(GradientEdge(a.grad_fn, -1), x, torch.ones(1))")
    assert error[0] == ("IndexError: GradientEdge output_nr -1 is out of range for "
                        "SplitBackward0, which has 2 outputs"), error
