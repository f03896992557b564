"""Issue #20's random leftovers, against torch (README "The oracle tests"): keyword-only
attributes declared once in the op table (`*` among an op's attrs, as native_functions.yaml
writes `*, Generator? generator=None`), so that a fill's generator given by position is
PyTorch's TypeError; out= of the random functions; randint_like; and inside vmap,
randomness='same' refusing a batched input, and poisson's draws."""

import io

import pytest

import gradcli

from processes import program_error, program_output

ARGUMENT_ERRORS = [
    "t.uniform_(0, 1, g)", "t.normal_(0, 1, g)", "t.exponential_(1, g)", "t.geometric_(0.5, g)",
    "t.log_normal_(1, 2, g)", "t.cauchy_(0, 1, g)", "t.random_(0, 5, g)", "t.random_(5, g)",
    "t.bernoulli_(0.5, g)", "t.bernoulli_(torch.ones(3), g)", "t.bernoulli_(0.5, q=g)",
    "t.uniform_(0, 1, 2)", "t.uniform_(0, 1, from_=2)", "t.uniform_(0, 1, to=3)",
    "t.uniform_(generator=3)", "t.geometric_()", "t.exponential_(1, 2, 3)",
    "t.random_(**{'from': 3})", "t.random_(1.5)", "torch.randperm(3, g)",
    "torch.bernoulli(t, 0.5, g)", "torch.normal(t, t, g)", "torch.normal(t, 1.0, g)",
    "torch.normal(0., 1.0, (3,), g)", "torch.sin(t, 1)", "torch.sin(t, 1, 2)",
    "torch.randint_like(t)", "torch.randint_like(t, 5.5)", "torch.randint_like(t, 5, 2)",
    "torch.randint_like(t, 5, generator=3)", "t.sin(1)", "t.exp(1, 2)", "t.sin_(1)",
    "t.atan2(t, 1)", "t.hardshrink(0.5, 2)", "torch.hardshrink(t, 0.5, 2)",
    "torch.poisson(t, 3)", "torch.poisson(t, generator=3)", "torch.poisson(t, g, 3)",
]


def _error(torch, source, leaf=False):
    """The first line of the error source raises, t a float tensor (a leaf that requires grad
    with leaf=True) and g a generator."""
    try:
        eval(source, {"torch": torch, "t": torch.zeros(3, requires_grad=leaf),
                      "g": torch.Generator()})
    except Exception as e:  # noqa: BLE001 (the message is the answer)
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return "no error"


@pytest.mark.parametrize("source", ARGUMENT_ERRORS)
def test_arguments_the_declaration_refuses_get_pytorch_s_message(source, oracle):
    """PyTorch's message, or its first line and the signatures it lists after it."""
    expected = oracle(lambda torch: _error(torch, source))
    got = program_error(f"import torch\nt = torch.zeros(3)\ng = torch.Generator()\n{source}")[0]
    assert got == expected or expected.endswith("expected one of:") and got.startswith(
        expected + " ("), got


def test_keyword_only_attributes_are_declared_once():
    """The `*` of a declaration: binding refuses them by position, `gradcli ops` shows them
    after `*`, completion offers them."""
    from gradcli.analysis.optable import op_rows
    from gradcli.ops import OPS
    from gradcli.ops.registry import Op
    op = Op("keyword_only_probe", lambda a, scale, offset: a * scale + offset, None,
            attrs=(("scale", 1.0), "*", ("offset", 0.0)), public=False)
    assert (op.attr_names, op.positional_attrs) == (("scale", "offset"), 1)
    assert op.signature_text() == "keyword_only_probe(self, scale=1.0, *, offset=0.0)"
    x = gradcli.tensor([1.0, 2.0])
    assert op(x, 2.0, offset=1.0).tolist() == [3.0, 5.0]
    with pytest.raises(TypeError, match=r"^keyword_only_probe\(\) takes from 1 to 2 positional "
                                        r"arguments but 3 were given$"):
        op(x, 2.0, 1.0)
    rows = {row["name"]: row["signature"] for row in op_rows()}
    assert rows["uniform_"] == "uniform_(from=0.0, to=1.0, *, generator=None)"
    assert rows["geometric_"] == "geometric_(p, *, generator=None)"
    assert rows["random_"].split(" | ") == ["random_(*, generator=None)",
                                            "random_(to, *, generator=None)",
                                            "random_(from, to, *, generator=None)"]
    assert OPS["uniform"].positional_attrs == 2

    from gradcli.cli.completer import complete
    from gradcli.cli.meta import COMMANDS
    from gradcli.lang.session import Session
    session = Session(out=io.StringIO())
    session.run("import torch\nx = torch.ones(3)\n")
    texts = [c.text for c in complete("x.uniform_(0, 1, ", None, session.namespace, COMMANDS)]
    assert {"from=", "to=", "generator="} <= set(texts), texts


def drawn_into(torch):
    """out= of the random functions: the values drawn in out's dtype, out itself returned
    (resized when its shape differs), and what PyTorch refuses."""
    out = {}
    torch.manual_seed(0)
    f64, long = torch.float64, torch.long
    for label, make, t in [
            ("rand", lambda t: torch.rand(3, out=t), torch.zeros(3)),
            ("rand double resized", lambda t: torch.rand(5, out=t), torch.zeros(2, dtype=f64)),
            ("rand empty", lambda t: torch.rand(2, 2, out=t), torch.zeros(0)),
            ("randn", lambda t: torch.randn(20, out=t), torch.zeros(20, dtype=torch.float64)),
            ("randn generator", lambda t: torch.randn(3, out=t, generator=torch.Generator(
             ).manual_seed(4)), torch.zeros(3)),
            ("randint", lambda t: torch.randint(0, 5, (3,), out=t), torch.zeros(3, dtype=long)),
            ("randint float", lambda t: torch.randint(5, (3,), out=t), torch.zeros(3)),
            ("randperm", lambda t: torch.randperm(6, out=t), torch.zeros(6, dtype=torch.long)),
            ("randperm double", lambda t: torch.randperm(4, out=t), torch.zeros(4, dtype=f64)),
            ("normal tt", lambda t: torch.normal(torch.zeros(3), torch.ones(3), out=t),
             torch.zeros(3)),
            ("normal tf", lambda t: torch.normal(torch.ones(17), 2.0, out=t), torch.zeros(17)),
            ("normal ft", lambda t: torch.normal(1.0, torch.ones(3).double(), out=t),
             torch.zeros(3, dtype=torch.float64)),
            ("normal ff", lambda t: torch.normal(2., 3., (3,), out=t), torch.zeros(3)),
            ("bernoulli", lambda t: torch.bernoulli(torch.full((5,), 0.5), out=t), torch.zeros(5)),
            ("multinomial", lambda t: torch.multinomial(torch.ones(4), 2, out=t),
             torch.zeros(2, dtype=torch.long))]:
        result = make(t)
        out[label] = [result is t, str(t.dtype), list(t.shape), t.tolist(), t._version > 0]
    return out


def test_random_functions_draw_into_out_as_pytorch_does(oracle):
    assert drawn_into(gradcli) == oracle(drawn_into)


OUT_ERRORS = [
    "torch.rand(3, out=torch.zeros(3, dtype=torch.float64), dtype=torch.float32)",
    "torch.rand(3, out=torch.zeros(3, dtype=torch.long))",
    "torch.rand(3, out=torch.zeros(3, requires_grad=True))",
    "torch.randn(3, out=torch.zeros(3, requires_grad=True))",
    "torch.randint(5, (3,), out=torch.zeros(3, requires_grad=True))",
    "torch.randint(0, 5, (3,), out=torch.zeros(3), dtype=torch.long)",
    "torch.randperm(3, out=torch.zeros(3, requires_grad=True))",
    "torch.normal(0., 1., (3,), out=torch.zeros(3, requires_grad=True))",
    "torch.normal(torch.ones(3, requires_grad=True), 1., out=torch.zeros(3))",
    "torch.normal(torch.zeros(3), torch.ones(3), out=torch.zeros(3, dtype=torch.int64))",
    "torch.bernoulli(torch.ones(3, requires_grad=True) / 2, out=torch.zeros(3))",
    "torch.multinomial(torch.ones(3), 2, out=torch.zeros(2))",
    "torch.poisson(torch.ones(2), out=torch.zeros(2))",
]


@pytest.mark.parametrize("source", OUT_ERRORS)
def test_out_arguments_pytorch_refuses_are_refused(source, oracle):
    expected = oracle(lambda torch: _error(torch, source))
    assert program_error("import torch\n" + source)[0] == expected


def like(torch):
    out = {}
    for seeded in (True, False):
        torch.manual_seed(3)
        g = None if seeded else torch.Generator().manual_seed(5)
        x = torch.zeros(2, 3, dtype=torch.float64)
        out[f"high {seeded}"] = torch.randint_like(x, 10, generator=g).tolist()
        out[f"low high {seeded}"] = torch.randint_like(x, -4, 2 ** 40, generator=g).tolist()
        y = torch.randint_like(x, 3, dtype=torch.int32, generator=g, requires_grad=False)
        out[f"int32 {seeded}"] = [str(y.dtype), y.tolist()]
        out[f"rand_like {seeded}"] = torch.rand_like(x, generator=g).tolist()
        out[f"randn_like {seeded}"] = torch.randn_like(x, generator=g).tolist()
    return out


def test_randint_like_draws_what_pytorch_draws(oracle):
    assert like(gradcli) == oracle(like)


VMAP_CASES = [
    ("bernoulli(x)", "same"), ("bernoulli(x, 0.5)", "same"), ("normal(x, x + 1)", "same"),
    ("normal(x, 1.0)", "same"), ("normal(1.0, x + 1)", "same"), ("multinomial(x, 2)", "same"),
    ("poisson(x)", "same"), ("poisson(x)", "error"), ("zeros(4).bernoulli_(x)", "same"),
    ("poisson(x)", "different"), ("poisson(x * torch.rand(4))", "different"),
    ("poisson(torch.full((2,), 12.)) + x[0]", "different"),
    ("poisson(torch.full((2,), 12.)) + x[0]", "same"),
    ("poisson(torch.full((2,), 12.)) + torch.rand(2) + x[0]", "different"),
    ("clone(x).bernoulli_(torch.full((4,), 0.5))", "same"),
]


def mapped(torch, body, mode):
    torch.manual_seed(0)
    p = torch.rand(3, 4, dtype=torch.float64) * 20
    try:
        fn = eval(f"lambda x: torch.{body}", {"torch": torch})
        return torch.func.vmap(fn, randomness=mode)(p).tolist()
    except RuntimeError as e:
        return f"RuntimeError: {e}"


@pytest.mark.parametrize("body, mode", VMAP_CASES)
def test_random_ops_inside_vmap_are_pytorch_s(body, mode, oracle):
    assert mapped(gradcli, body, mode) == oracle(lambda torch: mapped(torch, body, mode))


def test_a_draw_after_a_batched_poisson_is_refused_not_misordered():
    """PyTorch draws poisson(x) for the whole batch before the next op draws; gradcli, running
    the function sample by sample, cannot: a one-line RuntimeError, not other numbers."""
    error = program_error("import torch\np = torch.rand(3, 4) * 20\ntorch.func.vmap(lambda x: "
                          "torch.poisson(x) + torch.rand(4), randomness='different')(p)")[0]
    assert error.startswith("RuntimeError: vmap: gradcli draws a random op on a batched input"), \
        error
    assert "\n" not in error
    printed = program_output("import torch\np = torch.ones(2, 3)\n"
                             "print(torch.func.vmap(lambda x: torch.poisson(x * 0), "
                             "randomness='different')(p).tolist())\n")
    assert printed == "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]\n"


LEAF_ARGUMENT_ERRORS = ["t.uniform_(0, 1, g)", "t.normal_(0, 1, 2)", "t.exponential_(1, 2)",
                        "t.sin_(1)", "t.exp_(2)"]


@pytest.mark.parametrize("source", LEAF_ARGUMENT_ERRORS)
def test_a_leaf_s_in_place_call_with_wrong_arguments_is_their_type_error(source, oracle):
    # PyTorch parses the arguments before it checks the leaf: a TypeError, not the leaf's error
    expected = oracle(lambda torch: _error(torch, source, leaf=True))
    assert expected.startswith("TypeError")
    assert _error(gradcli, source, leaf=True) == expected
