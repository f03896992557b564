"""The op table as rows for `gradcli ops` (and REPL help): derived, never written twice."""

from ..ops import OPS
from ..ops.registry import ALIASES, Op, Overload


def signature(op, name=None):
    """The call signature shown for op (under `name`, default its own; an overload shows each
    distinct form: `sum(self) | sum(self, dim, keepdim=False, dtype=None)`)."""
    name = name or op.name
    if getattr(op, "signature", None):
        return op.signature
    if isinstance(op, Op):
        return op.signature_text(name)
    if isinstance(op, Overload):
        forms = dict.fromkeys(signature(o, name) for o in op.ops)
        return " | ".join(forms)
    import inspect
    try:
        return op.name + str(inspect.signature(op.fn))
    except (TypeError, ValueError):
        return op.name + "(…)"


def _linalg_names():
    """{op table name: [`linalg.x`, ...]} for the torch.linalg namespace's entries."""
    from .. import linalg
    names = {}
    for short in linalg.__all__:
        value = getattr(linalg, short)
        table_name = next((n for n, o in OPS.items() if o is value), None)
        if table_name is not None:
            names.setdefault(table_name, []).append(f"linalg.{short}")
    return names


def _functional_names():
    """{op table name: [`nn.functional.x`]} for torch.nn.functional's functions that are in the
    table but not in the torch namespace (F.pad, F.one_hot)."""
    from ..nn import functional
    return {n: [f"nn.functional.{n}"] for n in functional.__all__
            if n in OPS and not OPS[n].public and OPS[n] is getattr(functional, n, None)}


def op_rows(only=None):
    from ..ops.lazy import load_all
    load_all()  # (the whole table: the op modules that load at first use too)
    rows = []
    aliases = {}
    for alias, target in ALIASES.items():
        aliases.setdefault(target, []).append(alias)
    linalg = _linalg_names()
    for name, functional in _functional_names().items():
        linalg.setdefault(name, []).extend(functional)
    for table_name, op in OPS.items():
        if op.public:
            names = [(table_name, aliases.get(table_name, []) + linalg.get(table_name, []))]
        else:  # reached as torch.linalg.x only: listed under that name
            names = [(n, []) for n in linalg.get(table_name, [])]
        for name, others in names:
            if only and name != only and only not in others:
                continue
            grad_fn, formula = None, op.formula
            if isinstance(op, Op) and op.differentiable:
                grad_fn = op.grad_fn_name
            elif isinstance(op, Overload):
                grad_fn = "/".join(o.grad_fn_name for o in op.ops)
            elif getattr(op, "via", ()):  # a function over other ops: theirs
                via = [OPS[n] for n in op.via]
                grad_fn = "/".join(dict.fromkeys(o.grad_fn_name for o in via))
                formula = "; ".join(dict.fromkeys(o.formula for o in via if o.formula))
            rows.append({"name": name, "aliases": others, "signature": signature(op, name),
                         "grad_fn": grad_fn, "formula": formula, "doc": op.doc,
                         "kind": op.kind, "method": bool(op.method)})
    if only and not rows:
        from .evaluate import UsageError
        raise UsageError(f"no op named {only!r} (see `gradcli ops`)")
    return rows
