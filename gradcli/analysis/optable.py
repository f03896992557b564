"""The op table as rows for `gradcli ops` (and REPL help): derived, never written twice."""

from ..ops import OPS
from ..ops.registry import ALIASES, Op, Overload


def signature(op):
    if getattr(op, "signature", None):
        return op.signature
    if isinstance(op, Op):
        args = [n for n in op.inputs]
        for name, default in zip(op.attr_names, op.attr_defaults):
            args.append(name if _missing(default) else f"{name}={default!r}")
        return f"{op.name}({', '.join(args)})"
    if isinstance(op, Overload):
        return f"{op.name}(…)"
    import inspect
    try:
        return op.name + str(inspect.signature(op.fn))
    except (TypeError, ValueError):
        return op.name + "(…)"


def _missing(value):
    from ..ops.registry import _MISSING
    return value is _MISSING


def op_rows(only=None):
    rows = []
    aliases = {}
    for alias, target in ALIASES.items():
        aliases.setdefault(target, []).append(alias)
    for name, op in OPS.items():
        if not op.public or (only and name != only and only not in aliases.get(name, [])):
            continue
        grad_fn = None
        if isinstance(op, Op) and op.differentiable:
            grad_fn = op.grad_fn_name
        elif isinstance(op, Overload):
            grad_fn = "/".join(o.grad_fn_name for o in op.ops)
        rows.append({"name": name, "aliases": aliases.get(name, []), "signature": signature(op),
                     "grad_fn": grad_fn, "formula": op.formula, "doc": op.doc,
                     "kind": op.kind, "method": bool(op.method)})
    if only and not rows:
        from .evaluate import UsageError
        raise UsageError(f"no op named {only!r} (see `gradcli ops`)")
    return rows
