"""The fast paths that depend on the shape of the op table's VJP formulas (gradcli.ops.formulas:
float formulas for scalar graphs, gradient donation for big ones) apply to the same formulas on
every Python: the answers for the whole table are pinned in fast_paths.json, so a formula that
stops taking a fast path, on any interpreter, fails here by name instead of quietly running
slower."""

import ast
import inspect
import json
import textwrap
from pathlib import Path

import pytest

from gradcli.ops import registry

PINNED = Path(__file__).with_name("fast_paths.json")


def table_answers():
    """{"op/vjp index": [float formula answer, donation answer]} for the whole op table."""
    answers = {}
    for name, op in sorted(registry.OPS.items()):
        if not isinstance(op, registry.Op):
            continue
        for i, entry in enumerate(op.vjps):
            if entry is None or entry[0] is registry.passthrough:
                continue
            fn = entry[0]
            answers[f"{name}/{i}"] = [registry._float_formula(fn),
                                      registry._reads_g_once_by_operator(fn)]
    return answers


def test_every_formula_takes_the_fast_paths_pinned_for_it():
    pinned = json.loads(PINNED.read_text())
    got = table_answers()
    changed = {k: {"pinned": pinned.get(k), "now": v} for k, v in got.items() if pinned.get(k) != v}
    gone = sorted(set(pinned) - set(got))
    assert not changed and not gone, (
        "fast paths changed (float formula: None = tensor formulas only; donation: False = a new "
        "array per gradient); if intended, regenerate tests/engine/fast_paths.json with "
        "`python -c 'from tests.engine.test_formulas import regenerate; regenerate()'`: "
        f"{changed} {gone}")


def test_the_arithmetic_ops_take_both_fast_paths():
    got = table_answers()
    for key in ("mul/0", "mul/1", "div.Tensor/0", "div.Tensor/1", "exp/0", "sin/0", "log/0"):
        assert got[key][0] is not None, key
        assert got[key][1] is True, key


def regenerate():
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(table_answers().items())]
    PINNED.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def _formula_sources():
    """Every lambda and function of the op modules whose first parameter is the gradient."""
    for path in sorted(Path(registry.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Lambda, ast.FunctionDef)) and node.args.args:
                if node.args.args[0].arg in ("g", "t"):
                    yield path.name, node


def test_table_formulas_have_no_identity_test():
    # the stand-ins cannot see `x is None`: a formula that branched on one would be judged on
    # one branch only (see gradcli.ops.formulas)
    analysed = {id(e[0].__code__) for op in registry.OPS.values() if isinstance(op, registry.Op)
                for e in op.vjps if e is not None}
    assert analysed
    for name, node in _formula_sources():
        if not isinstance(node, ast.Lambda):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Compare) and any(isinstance(o, (ast.Is, ast.IsNot))
                                                    for o in sub.ops):
                pytest.fail(f"{name}:{node.lineno}: a formula with an identity test")


@pytest.mark.parametrize("fn, answer", [
    (lambda g, s: g * s, False),
    (lambda g, s: g * s.exp(), True),
    (lambda g, s: g * s if s else g, None),       # a branch
    (lambda g, s: g * s ** 2, None),              # ** is not followed
    (lambda g, s: g * s.exp(2), None),            # a method with arguments
    (lambda g, s: g * len(s), None),              # a builtin
    (lambda g, s: g * (s == 0), None),            # a comparison
    (lambda g, s: (g, s), None),                  # not a value
    (lambda g, *s: g, None),                      # *args
])
def test_float_formula_answers(fn, answer):
    assert registry._float_formula(fn) is answer


def test_stand_ins_never_run_the_formula_s_globals():
    ran = []

    def spy(*args):
        ran.append(args)
        return 1.0
    fn = eval("lambda g, s: g * spy(s)", {"spy": spy})
    assert registry._reads_g_once_by_operator(fn) is True
    assert registry._float_formula(fn) is None
    assert ran == []
