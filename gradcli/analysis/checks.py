"""`gradcli check`: expectations on values and gradients, and gradcheck against central
differences in float64, for shell scripts (exit 0 when all hold, 1 otherwise)."""

import numpy as np

from ..engine import dtypes
from ..engine.tensor import Tensor
from ..engine.values import to_json
from .evaluate import UsageError, eval_value, evaluate, program_function
from .kinks import kink_at


def parse_expectation(spec):
    """`x.grad=216` -> ("x", True, "216"); `z=216` -> ("z", False, "216"); the label eval
    prints, `dz/dx=216` -> (("z", "x"), True, "216")."""
    target, sep, value = spec.partition("=")
    target = target.strip()
    if not sep or not target or not value.strip():
        raise UsageError(f"--expect takes NAME=VALUE, NAME.grad=VALUE or dOUT/dLEAF=VALUE, "
                         f"got {spec!r}")
    derivative = _derivative_label(target)
    if derivative is not None:
        return derivative, True, value.strip()
    is_grad = target.endswith(".grad")
    name = target[:-5] if is_grad else target
    if not name.isidentifier():
        raise UsageError(f"--expect: {name!r} is not a name")
    return name, is_grad, value.strip()


def _derivative_label(target):
    """("z", "x") for `dz/dx` (as eval labels a gradient; `d(x*2 + 1)/dx` for an output that
    is an expression), None for anything else."""
    if not target.startswith("d") or "/d" not in target:
        return None
    out, _, leaf = target[1:].rpartition("/d")
    out, leaf = out.strip(), leaf.strip()
    if not out or not leaf.isidentifier():
        return None
    if out.startswith("(") and out.endswith(")"):
        out = out[1:-1].strip()
    elif not out.isidentifier():
        return None
    return out, leaf


def _derivative(ev, out, leaf):
    """The gradient eval labels d{out}/d{leaf}."""
    compact = out.replace(" ", "")
    for o, gs in ev.gradients.items():
        if o == out or o.replace(" ", "") == compact:
            if leaf not in gs:
                raise UsageError(f"--expect d{out}/d{leaf}: {leaf} is not an --at input "
                                 f"(inputs: {', '.join(gs) or 'none'})")
            return gs[leaf]
    raise UsageError(f"--expect d{out}/d{leaf}: {out} is not an output "
                     f"(outputs: {', '.join(ev.gradients) or 'none'}; choose with --of)")


def _close(actual, expected, rtol, atol):
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    try:
        np.broadcast_shapes(a.shape, e.shape)
    except ValueError:
        return False
    return bool(np.all(np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)))


def run_checks(source, bindings, of, grad, expectations, rtol, atol, gradcheck, dtype, timeout,
               out=None):
    """Returns (passed, checks) where each check is a dict for the JSON document."""
    if not expectations and not gradcheck:
        raise UsageError("nothing to check: give --expect NAME.grad=VALUE or --gradcheck")
    parsed = [parse_expectation(e) for e in expectations]
    # (gradients only for --expect NAME.grad: gradcheck differentiates non-scalar outputs itself)
    ev = evaluate(source, bindings, of, grad, 1, dtype, out=out, record=True, timeout=timeout,
                  gradients=any(is_grad for _, is_grad, _ in parsed))
    kinks = _kinks_met(ev)
    checks = []
    for name, is_grad, text in parsed:
        expected = eval_value(ev.session, text)
        expected_value = expected._data if isinstance(expected, Tensor) else expected
        if isinstance(name, tuple):  # dOUT/dLEAF, as eval prints it
            from ..engine.text import derivative_label
            label = derivative_label(*name)
            actual = _derivative(ev, *name)
        elif is_grad:
            label = f"{name}.grad"
            actual = _gradient_of(ev, name)
        else:
            label = name
            if name not in ev.session.namespace:
                raise UsageError(f"--expect {label}: the program defines no name {name!r}")
            actual = ev.session.value_of(name)
        if expected is None or actual is None:  # `--expect x.grad=None`: no gradient
            ok = expected is None and actual is None
        else:
            ok = _close(actual._data if isinstance(actual, Tensor) else actual, expected_value,
                        rtol, atol)
        check = {"name": label, "expected": to_json(expected), "actual": to_json(actual),
                 "ok": ok}
        if actual is None and not ok:
            leaf_name = name[1] if isinstance(name, tuple) else name
            why = next((r for (o, leaf), r in ev.reasons.items() if leaf == leaf_name), None)
            check["detail"] = why or "no gradient"
        elif is_grad and kinks:
            check["detail"] = kinks
        checks.append(check)
    if gradcheck:
        checks.extend(_gradchecks(source, bindings, of, timeout, kinks))
    return all(c["ok"] for c in checks), checks


def _gradient_of(ev, name):
    if name in ev.leaves:
        leaf = ev.leaves[name]
        if ev.ran_backward:
            return leaf._grad
        grads = [gs.get(name) for gs in ev.gradients.values()]
        grads = [g for g in grads if g is not None]
        return grads[0] if len(grads) == 1 else (sum(grads[1:], grads[0]) if grads else None)
    t = ev.session.namespace.get(name)
    if isinstance(t, Tensor):
        return t._grad
    raise UsageError(f"--expect {name}.grad: {name} is not a tensor of the program")


def _kinks_met(ev):
    """The non-differentiable points the backward passes met, as one note (None if none):
    SPEC §5, check notes each kink and the subgradient used."""
    records = ev.recording.records if ev.recording else {}
    nodes = {s.node for steps in ev.steps.values() for s in steps} or set(records)
    kinks = sorted({k for node in nodes for k in [kink_at(node, records.get(node))] if k})
    return "; ".join("kink: " + k for k in kinks) or None


def _mismatch_text(message, limit=200):
    """gradcheck's message on one line: `Jacobian mismatch for output 0 with respect to input 0:
    numerical tensor(0.5000) analytical tensor(0.)` (the matrices left out when long)."""
    first, *rest = message.strip().splitlines()
    first = first.rstrip(",")
    rest = " ".join(" ".join(rest).replace(":tensor(", " tensor(").split())
    return f"{first}: {rest}" if rest and len(rest) <= limit else first


def _gradchecks(source, bindings, of, timeout, kinks):
    """Analytic gradients against central differences in float64, one check per output."""
    from ..autograd import gradcheck
    previous = dtypes.get_default_dtype()
    try:
        fn, inputs, outputs = program_function(source, bindings, of, dtypes.float64, timeout)
        inputs = tuple(t.double().requires_grad_(True) for t in inputs)
        checks = []
        try:
            ok = gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True)
            detail = None
        except RuntimeError as e:
            ok, detail = False, _mismatch_text(str(e))
        if kinks:
            detail = "; ".join(([detail] if detail else []) + [kinks])
        checks.append({"name": "gradcheck(" + ", ".join(outputs) + ")", "expected": None,
                       "actual": None, "ok": bool(ok), "detail": detail})
        return checks
    finally:
        dtypes.set_default_dtype(previous)
