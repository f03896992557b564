"""The fast path that depends on the shape of the op table's VJP formulas (gradcli.ops.formulas:
float formulas for scalar graphs), read from each declared formula's expression tree: the
answers for the whole table are pinned in fast_paths.json, so a formula that stops taking the
fast path fails here by name instead of quietly running slower."""

import json
from pathlib import Path

import pytest

import gradcli.nn.functional  # noqa: F401  (loaded at first use: its ops join the table)
from gradcli.ops import derivatives, dispatch, nodes, registry

PINNED = Path(__file__).with_name("fast_paths.json")


def table_answers():
    """{"op/vjp index": float formula answer} for the whole op table (all of
    it: torch.nn.functional's ops too, which the namespace's first use declares)."""
    import gradcli
    gradcli._load()
    answers = {}
    for name, op in sorted(registry.OPS.items()):
        if not isinstance(op, registry.Op):
            continue
        for i, entry in enumerate(op.vjps):
            if entry is None or entry[0] is nodes.passthrough:
                continue
            fn = entry[0]
            answers[f"{name}/{i}"] = dispatch._float_formula(fn)
    return answers


def test_every_formula_takes_the_fast_paths_pinned_for_it():
    pinned = json.loads(PINNED.read_text())
    got = table_answers()
    changed = {k: {"pinned": pinned.get(k), "now": v} for k, v in got.items() if pinned.get(k) != v}
    gone = sorted(set(pinned) - set(got))
    assert not changed and not gone, (
        "fast paths changed (float formula: None = tensor formulas only); if intended, regenerate tests/engine/fast_paths.json with "
        "`python -c 'from tests.engine.test_formulas import regenerate; regenerate()'`: "
        f"{changed} {gone}")


def test_the_arithmetic_ops_take_the_fast_path():
    got = table_answers()
    for key in ("mul/0", "mul/1", "div.Tensor/0", "div.Tensor/1", "exp/0", "sin/0", "log/0"):
        assert got[key] is not None, key


def regenerate():
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(table_answers().items())]
    PINNED.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def _vjp(expression):
    """The function the declaration `self: expression` compiles to."""
    op = registry.Op("probe", None, f"self: {expression}")
    return op.prepare().vjps[0][0]


@pytest.mark.parametrize("formula, answer", [
    ("grad * self", False),
    ("grad * self.exp()", True),
    ("grad * self if self else grad", None),     # a branch
    ("grad * self ** 2", None),                  # ** is not followed
    ("grad * self.exp(2)", None),                # a method with arguments
    ("grad * len(self)", None),                  # a builtin
    ("grad * (self == 0)", None),                # a comparison
    ("(grad, self)", None),                      # not a value
])
def test_float_formula_answers(formula, answer):
    assert dispatch._float_formula(_vjp(formula)) is answer


@pytest.mark.parametrize("formula, answer", [
    ("grad if alpha == 1 else _mul_s(grad, alpha)", False),   # add's `other`
    ("-grad if alpha == 1 and not alpha < -2 else grad * -alpha", False),
    ("grad * self.exp() if alpha != 0 else grad", True),
    ("grad * self if alpha is None else grad", False),
    ("grad if self == 1 else grad * alpha", None),            # a test of a saved tensor
    ("grad if grad > 0 else -grad", None),                    # of the gradient
    ("grad if abs(alpha) == 1 else grad * alpha", None),      # a call in the test
    ("grad if alpha == 1 else grad ** alpha", None),          # a branch not followed
])
def test_a_conditional_on_the_op_s_attributes_runs_on_floats(formula, answer):
    # the test reads the same attribute values in a float run and a tensor run: it takes the
    # same branch in both
    op = registry.Op("probe", None, f"self: {formula}", inputs=("self",), attrs=(("alpha", 1),))
    assert dispatch._float_formula(op.prepare().vjps[0][0]) is answer


def test_the_answers_come_from_the_expression_never_from_running_it():
    ran = []

    @derivatives.helper(name="_spy_for_test")
    def spy(*args):
        ran.append(args)
        return 1.0
    fn = _vjp("grad * _spy_for_test(self)")
    assert dispatch._float_formula(fn) is None
    assert ran == []
