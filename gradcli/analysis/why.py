"""Why is a gradient None or zero?  Reasons in the user's own names (SPEC §5)."""

import re

import numpy as np

from ..engine.tensor import Tensor
from .kinks import kink_at
from .trace import reachable_nodes

_OUTSIDE_GRAPH = [(r"no_grad|inference_mode|set_grad_enabled\(\s*False", "no_grad()"),
                  (r"\.detach\(", "detach()"), (r"\.data\b", ".data"),
                  (r"\.item\(|\.tolist\(|\.numpy\(|(?<!\.)float\(|(?<!\.)int\(",
                   ".item()/.tolist()/float()"),
                  (r"[<>]|[!=]=", "comparisons")]


def _outside_graph_causes(source):
    found = [label for pattern, label in _OUTSIDE_GRAPH if re.search(pattern, source)]
    return f" (the program uses {', '.join(found)})" if found else ""


def why_tensor(name, t):
    """Why `name.grad` is None or zero, for a tensor in an interactive session."""
    if not isinstance(t, Tensor):
        return f"{name} is not a tensor, so it has no gradient"
    if not t.requires_grad:
        return (f"{name} does not require grad: create it with requires_grad=True or call "
                f"{name}.requires_grad_()")
    if t.grad_fn is not None and not t.retains_grad:
        return (f"{name} is not a leaf (it was computed by {t.grad_fn.name()}): autograd keeps "
                f".grad only for leaves; call {name}.retain_grad() before backward")
    if t._grad is None:
        return f"no backward pass has reached {name} yet (call backward() on an output that uses {name})"
    if not np.any(t._grad._data):
        return (f"{name}.grad is zero: the backward passes that reached {name} carried zero, "
                f"e.g. through a flat region or a kink (relu at 0), or {name}.grad was zeroed")
    return f"{name}.grad is set ({name} received gradient from {t._grad_count} backward pass(es))"


def explain_missing(ev, source, bindings, out_name, leaf_name):
    """Why d out / d leaf is None or zero in an evaluation."""
    out = ev.values[out_name]
    leaf = ev.leaves[leaf_name]
    g = ev.gradients[out_name][leaf_name]
    if not isinstance(out, Tensor):
        return f"{out_name} is not a tensor ({type(out).__name__}), so nothing flows back from it"
    if out is leaf:
        return f"{out_name} is the leaf itself"
    received = _received(ev, out_name, leaf)
    if received is not None and np.any(received):
        from ..engine.values import short_value
        return (f"{leaf_name}.grad is {'None' if g is None else 'zero'} although the program's "
                f"backward pass from {out_name} gave {leaf_name} "
                f"{short_value(Tensor._make(received, None, 0, False))}: the program reset "
                f"{leaf_name}.grad afterwards (zero_() or = None)")
    if g is None:
        if out.requires_grad and _reaches(out, leaf):
            return f"the backward pass from {out_name} passed no gradient to {leaf_name}"
        depends = _depends_on(ev, source, bindings, out_name, leaf_name)
        if not out.requires_grad:
            if depends:
                return (f"{out_name} does not require grad although it depends on {leaf_name}: "
                        f"it was computed outside the graph{_outside_graph_causes(source)}")
            return f"{out_name} does not require grad and does not depend on {leaf_name}"
        if depends:
            return (f"{out_name} depends on {leaf_name} only outside the graph"
                    f"{_outside_graph_causes(source)}: no gradient can flow back")
        if depends is None:
            return f"{leaf_name} is not on the path from {out_name} back to the leaves"
        if not re.search(rf"(?<![\w.]){re.escape(leaf_name)}(?!\w)", source):
            return f"{leaf_name} is not used in computing {out_name} (an unused input)"
        return (f"{out_name} does not change when {leaf_name} changes: {leaf_name} is not used "
                f"in computing it, or only through operations without a gradient (comparisons, "
                f"rounding, indices)")
    return _why_zero(ev, out_name, leaf_name)


def _received(ev, out_name, leaf):
    """What the traced backward passes of out_name delivered to leaf's .grad (None if none)."""
    acc = leaf._accumulator()
    total = None
    for step in ev.steps.get(out_name, []):
        for (child, _), g in zip(step.node.next_functions, step.grad_inputs):
            if child is acc and g is not None:
                total = g._data if total is None else total + g._data
    return total


def _reaches(out, leaf):
    acc = leaf._accumulator()
    return acc in reachable_nodes([out.grad_fn])


# how _depends_on moves a leaf: a small step, and a sign flip (which crosses a comparison
# with 0, as in (x > 0).float())
PERTURBATIONS = (lambda t: t.detach() + 0.5, lambda t: -t.detach() - 1)


def _depends_on(ev, source, bindings, out_name, leaf_name):
    """Does the output change when the leaf is perturbed? None when it cannot be tried."""
    from .evaluate import Discard, run_program
    if leaf_name not in {b.name for b in bindings}:
        return None
    base = ev.values[out_name]
    a = base._data if isinstance(base, Tensor) else np.asarray(base)
    for perturb in PERTURBATIONS:
        try:
            session, _, _ = run_program(source, bindings, out=Discard(),
                                        overrides={leaf_name: perturb})
            moved = session.value_of(out_name)
        except Exception:
            return None
        b = moved._data if isinstance(moved, Tensor) else np.asarray(moved)
        if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
            return True
    return False


def _why_zero(ev, out_name, leaf_name):
    steps = ev.steps.get(out_name, [])
    records = ev.recording.records if ev.recording else {}
    for step in steps:
        if not any(g is not None and np.any(g._data) for g in step.grad_outputs):
            continue
        if any(g is not None and np.any(g._data) for g in step.grad_inputs):
            continue
        node = step.node
        rec = records.get(node)
        kink = kink_at(node, rec) if rec else None
        if kink:
            return f"the gradient is zero at a kink: {kink}"
        op = getattr(node, "op", None)
        formula = f" (local derivative {op.formula})" if op is not None and op.formula else ""
        return (f"the gradient is zero: {node.name()}{formula} passes zero back here, so "
                f"nothing reaches {leaf_name}")
    return f"the gradient of {out_name} with respect to {leaf_name} is zero at this point"

