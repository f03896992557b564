"""The guards compiled programs call, and the restricted builtins they run with.

A program reaches Python objects only through these guards (their names start with `_`, which
no program can write): attribute reads go through `guarded_getattr`, attribute stores through
`store_target`, calls through `checked_callable`, operators through the checked operator table,
imports through `import_module`/`import_from`, class statements through `build_class`.  So a
program can touch the engine, NumPy arrays (a safe subset of their attributes) and plain Python
values, and nothing else: no dunder attribute, no frame, no module other than the facades."""

import builtins
import functools

from ..engine import callables
from . import attributes, limits
from .metered_methods import format_field, safe_format
from .namespace import SandboxBuiltin, bare_names, modules, stand_in
from .calls import (BINARY_GUARDS, CALLING_BUILTINS, COMPARE_GUARDS, Compared, INPLACE_GUARDS,
                    IndexKey, STAND_IN_CALLS, UNCHECKED_OPERANDS, checked_callable,
                    inplace_guard_name,
                    inplace_item, item, safe_pow, safe_range, safe_round, safe_sum, slice_target)
from .allowed import (ENGINE_CLASSES, EXCEPTIONS, OPAQUE_TYPES, OPERATORS, SAFE_BUILTINS,
                      TENSOR_READ_ONLY)
from .introspection import (ENGINE_SIGNALS, catchable, caught, help_function, raisable, safe_dir,
                            safe_super, safe_type, tick)
from .attributes import (_op_table_types, _read_only_tensor_attributes, guarded_getattr,
                         inplace_attr, store_target)
from .classes import build_class, import_from, import_module
from .generators import closing, delegated


# The names of the guards in a program's builtins: no program may name them (its own `_expr`
# would replace the guard of its expression statements)
GUARD_NAMES = frozenset(
    [guard for guard, *_ in OPERATORS.values()] +
    [inplace_guard_name(guard) for guard, *_ in OPERATORS.values()] +
    ["_getattr", "_store_target", "_callable", "_inplace_attr", "_inplace_item", "_import",
     "_slice_target",
     "_import_from", "_format_field", "_compare", "_compared", "_catchable", "_caught",
     "_raisable", "_tick", "_expr", "_import_star", "_item", "_key", "_each", "_closing",
     "_delegated"])


STAND_IN_CLASSES = ("range", "map", "filter", "type", "super", "property", "classmethod",
                    "staticmethod")


@functools.lru_cache(maxsize=None)
def static_builtins():
    """The builtins every session shares: bare names, safe builtins and the guards."""
    from ..autograd.function import FunctionCtx
    from ..engine.graph import Node
    from ..engine.tensor import Tensor
    from ..ops.nodes import OpNode
    from ..engine.tangents import Unbatchable
    from .errors import ProgramError
    from .namespace import BuiltinOrOp, MathStyle, builtins_or_ops
    for unchecked in UNCHECKED_OPERANDS.values():
        unchecked.add(Tensor)
    ENGINE_CLASSES.update(Node=Node, FunctionCtx=FunctionCtx, OpNode=OpNode, Tensor=Tensor)
    attributes.SETTABLE_BASES = (Tensor, FunctionCtx)  # (store_target reads it each call)
    read_only = _read_only_tensor_attributes(Tensor)  # (the set the guards share)
    TENSOR_READ_ONLY.clear()
    TENSOR_READ_ONLY.update(read_only)
    OPAQUE_TYPES.update(_op_table_types(modules()["torch"]._members) |
                        {MathStyle, BuiltinOrOp, SandboxBuiltin})
    # (and the class of every table entry, those of op modules that load later too, and of the
    # entries waiting for their module: a load that an error stops makes entries Pending again)
    from ..ops import entries
    OPAQUE_TYPES.update(entries.CLASSES | {entries.Pending})
    entries.ON_NEW_CLASS.append(OPAQUE_TYPES.add)
    limits.apply_element_limit()
    names = dict(bare_names())
    names.update({n: getattr(builtins, n) for n in SAFE_BUILTINS})
    names.update(range=safe_range, pow=safe_pow, format=safe_format, sum=safe_sum,
                 round=safe_round, any=limits.materialising(any),
                 all=limits.materialising(all), **CALLING_BUILTINS)
    names.update(builtins_or_ops(names))
    names.update({guard: BINARY_GUARDS[op] for op, (guard, *_) in OPERATORS.items()})
    names.update({inplace_guard_name(guard): INPLACE_GUARDS[op]
                  for op, (guard, *_) in OPERATORS.items()})
    names.update({name: getattr(builtins, name) for name in EXCEPTIONS})
    names.update(type=safe_type, dir=safe_dir, super=safe_super)
    # (what a program holds for Python's builtins shows as Python's: `<class 'range'>`, and
    # a class's stand-in, which `type(x)` gives too, calls the checked version from anywhere)
    STAND_IN_CALLS.update({getattr(builtins, name): names[name] for name in STAND_IN_CLASSES})
    names.update({name: stand_in(getattr(builtins, name), names[name])
                  for name in STAND_IN_CLASSES})
    names.update({name: SandboxBuiltin(name, names[name])
                  for name in ("pow", "format", "sorted", "iter", "dir")})
    ENGINE_SIGNALS[:] = [Unbatchable, ProgramError]
    callables.CHECK[0] = checked_callable  # (the callables programs hand to modules)
    callables.OPERATORS.update({op: BINARY_GUARDS[op] for op in callables.OPERATORS})
    names.update(_getattr=guarded_getattr, _store_target=store_target,
                 _callable=checked_callable, _inplace_attr=inplace_attr,
                 _inplace_item=inplace_item, _slice_target=slice_target,
                 _import=import_module, _import_from=import_from,
                 _format_field=format_field, _compare=COMPARE_GUARDS, _compared=Compared,
                 _catchable=catchable, _caught=caught, _raisable=raisable, _tick=tick,
                 _item=item, _key=IndexKey(), _each=limits.check_each, _closing=closing,
                 _delegated=delegated,
                 __build_class__=build_class, __name__="__main__")
    # C code (NumPy's lazy imports) imports through the builtins of the innermost Python frame,
    # which may be the program's: it gets Python's __import__.  Programs cannot name it, and
    # their own import statements compile to `_import`, never to Python's IMPORT_NAME.
    names["__import__"] = builtins.__import__
    return names


def program_builtins(print_function, expression_hook, import_star):
    """The builtins of one session: the static ones plus its print, its expression-statement
    hook (echo and recording) and `from m import *` (which binds into its namespace)."""
    names = dict(static_builtins())
    names.update(print=SandboxBuiltin("print", print_function),
                 help=SandboxBuiltin("help", help_function(print_function)), _expr=expression_hook, _import_star=import_star)
    return names
