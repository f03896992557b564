"""Derivatives written once (gradcli.ops.derivatives): every op of the table declares its
derivative formulas once, as derivatives.yaml writes them, and the VJP the engine runs, the
text explain and `gradcli ops` show and the fast-path answers all come from that declaration.
The compiled VJPs are the ones test_op_gradcheck.py checks against central differences on
every sample of every op (test_the_engine_runs_the_compiled_formulas ties the two together)."""

import ast
from pathlib import Path

import pytest

import gradcli
from gradcli.ops import derivatives
from gradcli.ops.registry import COMPOSITION, Composed, Op
from gradcli.ops.nodes import passthrough
from checks import check_grads, table_ops

DECLARED = [op for op in table_ops() if op.differentiable and not op.derived]
COMPOSED = [op for op in table_ops() if op.derived]
SOURCES = sorted(Path(gradcli.__file__).parent.joinpath("ops").glob("*.py")) + [
    Path(gradcli.__file__).parent.joinpath("nn", "functional.py")]


def _names(ops):
    return [op.name for op in ops]


@pytest.mark.parametrize("op", DECLARED, ids=_names(DECLARED))
def test_every_op_declares_its_derivative_once(op):
    assert op.declaration is not None, f"{op.name}: a VJP written as a function"
    formulas = {f.source.strip() for f in derivatives.parse(op.declaration, op.name)}
    for entry in op.vjps:
        if entry is None:
            continue
        fn = entry[0]
        source = "grad" if fn is passthrough else fn.derivative.source.strip()
        assert source in formulas, f"{op.name}: a VJP that is not one of its formulas"
    assert op.formula == derivatives.text(op.declaration, op.name)


@pytest.mark.parametrize("op", COMPOSED, ids=_names(COMPOSED))
def test_composite_ops_show_the_formulas_of_the_ops_they_run(op):
    assert isinstance(op, Composed) and op.via, f"{op.name}: no ops named in via"
    assert not op.vjps and op.declaration is None  # nothing of their own that nobody runs
    for name in op.via:
        assert gradcli.ops.OPS[name].formula.split("; ")[0] in op.formula


def test_no_declaration_writes_a_formula_text_of_its_own():
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                assert not any(k.arg == "formula" for k in node.keywords), (
                    f"{path.name}:{node.lineno}: a formula text beside the declaration")


def test_the_engine_runs_the_compiled_formulas():
    sin = gradcli.ops.OPS["sin"]
    fn = sin.vjps[0][0]
    assert fn.derivative.source.strip() == "grad * self.cos()"
    x = gradcli.tensor([0.5, 1.0], dtype=gradcli.float64, requires_grad=True)
    x.sin().sum().backward()
    assert x.grad.tolist() == fn(gradcli.ones(2, dtype=gradcli.float64), x.detach()).tolist()
    check_grads(sin, sin.samples[1])


@pytest.mark.parametrize("name, text", [
    ("sin", "d/dself = cos(self)"),
    ("cos", "d/dself = -sin(self)"),
    ("mul", "d/dself = other; d/dother = self"),
    ("div.Tensor", "d/dself = 1/other; d/dother = -(self/other / other)"),
    ("atan", "d/dself = 1 / (1 + self^2)"),
    ("add", "d/dself = 1; d/dother = 1 if alpha == 1 else alpha"),
    ("relu", "d/dself = 1 if result > 0 else 0"),
    ("elu", "self: elu_backward(grad, self, alpha, 1, 1, False)"),
    ("mm", "self: grad @ mat2^T; mat2: self^T @ grad"),
    ("floor", "d/dself = 0"),
    ("erf", "d/dself = 2/sqrt(pi) * exp(-self.pow(2))"),
    ("pow.Tensor_Scalar", "d/dself = 0 if exponent == 0 else exponent * self^(exponent - 1)"),
    ("square", "PowBackward0: d/dself = 0 if exponent == 0 else exponent * self^(exponent - 1)"),
])
def test_shown_text_is_derived_from_the_formula(name, text):
    assert gradcli.ops.OPS[name].formula == text


def _op(declaration, **kw):
    return Op("probe", None, declaration, **kw)


def test_a_formula_that_names_nothing_is_refused_at_compile_time():
    op = _op("self: grad * nothing_of_that_name(self)")
    with pytest.raises(NameError, match="op probe: derivative formula .* names "
                                        "'nothing_of_that_name'"):
        op.prepare()


def test_a_formula_for_an_input_the_op_does_not_have_is_refused():
    with pytest.raises(NameError, match="not an input"):
        _op(("self: grad", "other: grad")).prepare()


def test_a_declaration_needs_no_formula_text_and_takes_none():
    with pytest.raises(TypeError, match="derived from the declaration"):
        _op("self: grad * 2", formula="2")
    with pytest.raises(SyntaxError, match="bad derivative formula"):
        _op("self: grad *").prepare()


def test_one_formula_may_give_every_input_its_gradient():
    op = _op("self, other: (grad * other, grad * self)", inputs=("self", "other"))
    assert not op.per_input
    a = gradcli.tensor(2.0, requires_grad=True)
    b = gradcli.tensor(3.0, requires_grad=True)
    fn, kinds = op.vjps[0]
    assert [t.item() for t in fn(gradcli.tensor(1.0), a, b)] == [3.0, 2.0]


def test_forward_mode_formulas_are_per_input_or_of_every_tangent():
    per_input = _op("self: grad * other", inputs=("self", "other"),
                    jvp=("self: self_t * other", "other: self * other_t"))
    assert len(per_input.jvps) == 2 and per_input.jvps[1][0].derivative.names == ("other",)
    together = _op("self: grad * other", inputs=("self", "other"),
                   jvp="result: self_t * other + self * other_t")
    fn, kinds = together.jvps[0]
    t = gradcli.tensor(1.0)
    assert fn([t, t * 2], gradcli.tensor(3.0), gradcli.tensor(5.0)).item() == 1 * 5 + 3 * 2


def test_composition_declares_nothing():
    op = Op("probe", None, COMPOSITION)
    assert op.derived and op.vjps == () and op.declaration is None
