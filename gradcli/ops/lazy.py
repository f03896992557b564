"""The op modules that load at their first use.

A one-shot `gradcli eval` pays for every module it imports, and most programs use a few dozen
ops of the table's five hundred: convolutions, pooling, random distributions, sorting, the
scatter family and the rest below load when a program (or a formula, or Tensor) first reaches
one of their names.  Their names exist from the start, from a manifest (gradcli.ops.manifest,
generated from the modules themselves by REGENERATE below, and checked against them by the
tests): each op is a entries.Pending entry until its module loads and its declaration takes
the entry over; each Tensor attribute they give is a placeholder that loads the module when
read; each derivative helper they declare loads it when a formula names it.
GRADCLI_LAZY_OPS=0 loads them all at import instead, without the manifest (what its generator
does, noting what each module declares).
"""

import importlib
import os
import signal
import sys

from ..engine.tensor import Tensor, install_attribute
from ..lazy_modules import OP_MODULES as LAZY_MODULES  # (in the order they load in)
from . import RICH_COMPARISONS, _FirstCall, derivatives
from . import entries
from .entries import ADOPT, ALIASES, OPS, Pending

EAGER = os.environ.get("GRADCLI_LAZY_OPS", "1") == "0"
REGENERATE = "GRADCLI_LAZY_OPS=0 python -m gradcli.ops.make_manifest"
LOADED = set()
# the signals held while an op module loads (where the system can hold them)
HELD = (signal.SIGINT, signal.SIGALRM) if hasattr(signal, "SIGALRM") else (signal.SIGINT,)


class _OnLoad:
    """A Tensor attribute that an op module not loaded yet gives: reading it loads the module,
    whose installation puts the real attribute in this placeholder's place."""

    __slots__ = ("name", "module")

    def __init__(self, name, module):
        self.name, self.module = name, module

    def __get__(self, obj, cls=None):
        _loaded(self.name, self.module)
        return getattr(Tensor if obj is None else obj, self.name)


def _loaded(name, module):
    """Tensor's attribute `name` once `module`, which gives it, has loaded."""
    load(module)
    value = Tensor.__dict__.get(name)
    if value is PLACEHOLDERS.get(name):
        raise RuntimeError(f"Tensor.{name} is not given by gradcli.ops.{module}: run "
                           f"`{REGENERATE}`")
    return value


def _on_call(name, module):
    """A rich comparison that a module not loaded yet gives: it loads the module at its first
    call, not at its lookup (gradcli.ops._FirstCall: Python turns an error in the lookup of
    `__lt__` & co., such as a program's RecursionError, into "'<' not supported")."""
    return _FirstCall(name, lambda: _loaded(name, module))


PLACEHOLDERS = {}  # Tensor attribute -> the placeholder install_pending gave it


def install_pending():
    """Give the table, Tensor and the formulas' helpers every name of the lazy modules (the
    ops' entries wait in entries.ADOPT for their declarations)."""
    from .manifest import MODULES
    early = [m for m in LAZY_MODULES if f"{__package__}.{m}" in sys.modules]
    if early:
        raise RuntimeError(f"gradcli.ops.{early[0]} is imported with the core op modules: it "
                           f"cannot load at first use (gradcli.ops.lazy.LAZY_MODULES)")
    for module, names in MODULES.items():
        for name, (kind, public, function, cls) in names["ops"].items():
            OPS[name] = ADOPT[name] = Pending(name, module, kind, public, function, cls)
        ALIASES.update(names["aliases"])
        for name in names["tensor"]:
            PLACEHOLDERS[name] = (_on_call(name, module) if name in RICH_COMPARISONS
                                  else _OnLoad(name, module))
            install_attribute(name, PLACEHOLDERS[name])
        for name in names["helpers"]:
            derivatives.LAZY_HELPERS[name] = module


def load(module):
    """Import the lazy op module `module` once and install what it declares (and what the lazy
    modules it imports declare)."""
    if module in LOADED:
        return
    if EAGER:
        COLLECTED[module] = _import_declaring(module)
        return
    # Ctrl-C and the timeout's alarm wait until the load is done (a few tens of milliseconds)
    # rather than stop it: the undo of a load they stopped could itself be stopped by the next
    # one (a second Ctrl-C, the alarm that repeats) while the first still unwound the import,
    # leaving the module counted as loaded with its entries Pending and the two signals
    # blocked for good.  Their handlers are swapped for one that keeps them, then the kept
    # ones are sent again (a mask would not do: a process-wide signal goes to any thread that
    # does not block it, BLAS's too, and Python runs the handler in the main thread).  A
    # Ctrl-C that came before the swap but whose handler had not run yet meets the one that
    # keeps it; one whose handler ran before it raises where nothing is begun.
    kept, swapped = [], {}
    try:
        try:
            for number in HELD:
                handler = signal.getsignal(number)
                if handler is not None:  # (None: a handler not set from Python, left alone)
                    swapped[number] = handler  # (before the swap: what raises after it finds it)
                    signal.signal(number, lambda number, frame: kept.append(number))
        except ValueError:  # (not the main thread, where no handler runs)
            swapped.clear()
        _load(module)
    finally:
        for number, handler in swapped.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(kept):
            signal.raise_signal(number)


def _load(module):
    from .manifest import MODULES
    from . import install
    # (what an error stopping the load undoes: every entry still Pending, with its state, and
    # every Tensor placeholder)
    before = set(LOADED)
    pending = {name: (entry, dict(vars(entry))) for name, entry in OPS.items()
               if type(entry) is Pending}
    placeholders = {name: value for name, value in PLACEHOLDERS.items()
                    if vars(Tensor).get(name) is value}
    imported = {m for m in MODULES if f"{__package__}.{m}" in sys.modules}  # (not by this load)
    LOADED.add(module)
    try:
        importlib.import_module(f"{__package__}.{module}")
        for other, names in MODULES.items():  # (itself, and any that it imported)
            if other != module and (other in LOADED or
                                    f"{__package__}.{other}" not in sys.modules):
                continue
            LOADED.add(other)
            entries = {name: OPS[name] for name in names["ops"]}
            stale = [name for name, entry in entries.items()
                     if type(entry) is Pending or OPS.get(name) is not entry]
            if stale:
                raise RuntimeError(f"gradcli.ops.{other} does not declare {', '.join(stale)} as "
                                   f"the manifest says: run `{REGENERATE}`")
            install(entries, names["aliases"])
            _keep_function(other)
    except BaseException as stop:
        # A load that an error stopped (a program's RecursionError, MemoryError; a Ctrl-C or
        # an alarm whose handler was due before load() held them): every lazy module it began
        # is unloaded again and its entries are the Pending ones they were (the same objects:
        # the namespaces hold them), so that the next use loads it afresh rather than finding
        # entries half made or a module counted as loaded.  The undo can be stopped in turn,
        # by another handler that was due (one per signal held): it is repeated until done,
        # and the last error is the one raised.
        # (No call of a Python function here but install_attribute, where the load got deep
        # enough to install something: a RecursionError may have stopped it.)
        for _ in range(len(HELD) + 2):
            try:
                for other, names in MODULES.items():
                    if other in before:
                        continue
                    LOADED.discard(other)
                    for name in names["tensor"]:
                        kept = placeholders.get(name)
                        if kept is not None and vars(Tensor).get(name) is not kept:
                            install_attribute(name, kept)
                    if other in imported:  # (its import was complete: its installation is undone)
                        continue
                    sys.modules.pop(f"{__package__}.{other}", None)
                    for name in names["ops"]:
                        if name in pending:
                            entry, state = pending[name]
                            if type(entry) is not Pending:
                                entry.__class__ = Pending
                            vars(entry).clear()
                            vars(entry).update(state)
                            OPS[name] = ADOPT[name] = entry
                    for name in names["helpers"]:  # (of a module half run: loaded again)
                        derivatives.HELPERS.pop(name, None)
                break
            except BaseException as again:  # (every step above can be done again)
                stop = again
        raise stop


def _keep_function(module):
    """Importing gradcli.ops.<module> makes the package's attribute of that name the module:
    where an op has that name (matmul, gather, scatter, dropout, ...), the package's attribute
    is the op again, as when every module was imported before the package's names were set."""
    package = sys.modules[__package__]
    public = vars(package).get("PUBLIC", {})
    if module in public:
        setattr(package, module, public[module])


def load_all():
    """Every lazy module (for what lists the whole table: `gradcli ops`, completion)."""
    for module in LAZY_MODULES:
        load(module)


# ---------------------------------------------------------------------- the manifest

COLLECTED = {}  # (GRADCLI_LAZY_OPS=0) module -> what it declared, as the manifest lists it


def _import_declaring(module):
    """Import module into a table that holds no Pending entries, install what it declares and
    say what that was."""
    from . import install
    ops, aliases = set(OPS), dict(ALIASES)
    attributes, helpers = set(Tensor.__dict__), set(derivatives.HELPERS)
    LOADED.add(module)
    entries.CREATED = []
    try:
        importlib.import_module(f"{__package__}.{module}")
        created = entries.CREATED
    finally:
        entries.CREATED = None
    new = {name: OPS[name] for name in OPS if name not in ops}
    for name, op in new.items():  # (the first op of its name and class takes the entry over)
        first = next(o for n, c, o in created if n == name and c == type(op).__qualname__)
        if first is not op:
            raise RuntimeError(f"gradcli.ops.{module} declares the {type(op).__qualname__} "
                               f"{name!r} of the table after another of that name and class: "
                               f"that one would take the table's entry over when the module "
                               f"loads at first use")
    new_aliases = {k: v for k, v in ALIASES.items() if k not in aliases}
    install(new, new_aliases)
    _keep_function(module)
    return {"ops": {name: (op.kind, op.public, op.function, type(op).__qualname__)
                    for name, op in new.items()},
            "aliases": new_aliases,
            "tensor": sorted(n for n in Tensor.__dict__ if n not in attributes),
            "helpers": sorted(n for n in derivatives.HELPERS if n not in helpers)}


def manifest_text(modules):
    lines = ['"""The names each lazy op module declares (gradcli.ops.lazy): generated by',
             f'`{REGENERATE}`; do not edit."""', "", "MODULES = {"]
    for module, names in modules.items():
        lines.append(f"    {module!r}: {{")
        lines.append('        "ops": {')
        lines += [f"            {n!r}: {v!r}," for n, v in names["ops"].items()]
        lines.append("        },")
        lines.append(f'        "aliases": {names["aliases"]!r},')
        for key in ("tensor", "helpers"):
            lines.append(f'        "{key}": (')
            lines += [f"            {n!r}," for n in names[key]]
            lines.append("        ),")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


MANIFEST_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifest.py")
