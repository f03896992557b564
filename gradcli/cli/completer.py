"""Tab completion as a pure function of (text, cursor) and the session's names.

Contexts, tried in order: a meta-command line (`:graph y`), an attribute after `.` (the `torch.`
namespace and its aliases, tensor attributes and methods), a keyword argument of the call being
typed, and otherwise a name in scope (the user's variables, the op table, the language's builtins).
Nothing is evaluated: expressions before a `.` are resolved from names and attributes only.
"""

import inspect
import keyword
import re
import types
from dataclasses import dataclass

from prompt_toolkit.completion import Completer, Completion

from ..engine.tensor import Tensor

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
WORD_BEFORE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
KEYWORDS = tuple(k for k in keyword.kwlist if k not in ("async", "await", "global", "nonlocal",
                                                      "yield", "del", "raise", "try", "except",
                                                      "finally"))
# Tensor attributes that are themselves tensors (resolved without reading them: .grad warns).
TENSOR_VALUED = {"grad", "data", "T", "mT", "H", "mH", "real", "imag"}
TENSOR_INTERNALS = {"requires_grad_flag", "index_backward", "to_dtype"}


@dataclass(frozen=True)
class Candidate:
    text: str            # the completion
    start: int           # where it starts, relative to the cursor (<= 0)
    meta: str = ""       # a short description shown beside it


class _TensorType:
    """A tensor known by type only (the value of `x.grad`, `x.sum()`, `t[0]`)."""


TENSOR = _TensorType()


def complete(text, cursor=None, namespace=None, commands=None):
    """The completions for `text` with the cursor at `cursor` (default: end of text).

    namespace: the session's names; commands: the meta-command registry ({":name": Command})."""
    cursor = len(text) if cursor is None else cursor
    before = text[:cursor]
    namespace = namespace or {}
    if before.lstrip().startswith(":") and "\n" not in before:
        return _meta(before.lstrip(), namespace, commands or {})
    if _in_string_or_comment(before):
        return []
    word = WORD_BEFORE.search(before)
    prefix = word.group(0) if word else ""
    head = before[:len(before) - len(prefix)]
    if head.endswith(".") and not re.search(r"(?<![\w)\]])\d*\.$", head):
        return _attributes(head[:-1], prefix, namespace)
    if prefix and head.rstrip()[-1:].isdigit():
        return []
    candidates = []
    if head.rstrip().endswith(("(", ",")):
        candidates += _keywords(head, prefix, namespace)
    if prefix:
        candidates += _names(prefix, namespace)
    return _dedupe(candidates)


# ---------------------------------------------------------------------- names in scope

def _names(prefix, namespace):
    from ..ops import OPS
    out = [Candidate(name, -len(prefix), _describe(value))
           for name, value in sorted(namespace.items())
           if name.startswith(prefix) and _visible(name)]
    user = {c.text for c in out}
    for name, value in sorted(_bare_names(namespace).items()):
        if name.startswith(prefix) and _visible(name) and name not in user:
            op = OPS.get(name)
            out.append(Candidate(name, -len(prefix), _doc(op) if op is not None else
                                 "module" if _is_module(value) else "builtin"))
    out += [Candidate(k, -len(prefix), "keyword") for k in KEYWORDS
            if k.startswith(prefix) and prefix]
    return [c for c in out if c.text != prefix or len(out) == 1]


def _visible(name):
    return IDENT.match(name) is not None and not name.startswith("_")


def _bare_names(namespace):
    """The names a program sees without defining them (the op table, safe builtins)."""
    bare = namespace.get("__builtins__")
    return bare if isinstance(bare, dict) else {}


def _describe(value):
    from ..ops.entries import loaded
    value = loaded(value)  # (an op's entry is described as the op, loaded or not)
    if isinstance(value, Tensor):
        return f"tensor {list(value._data.shape)} {value.dtype.name}"
    if _is_module(value):
        return "module"
    return type(value).__name__


def _doc(op):
    doc = getattr(op, "doc", "") or ""
    return doc.split("\n")[0][:60]


def _is_module(value):
    """A module as programs see it (the language's facades of torch, numpy, math)."""
    from ..lang.namespace import Facade
    return isinstance(value, (types.ModuleType, Facade))


# ---------------------------------------------------------------------- attributes after `.`

def _attributes(expression_text, prefix, namespace):
    expr = _expression_before(expression_text)
    if not expr:
        return []
    obj = _resolve(expr, namespace)
    if obj is None:
        return []
    names = _public_attributes(obj)
    if prefix.startswith("_"):  # grad_fn._saved_self: the one kind of `_` name a program reads
        from ..ops.nodes import OpNode
        names = sorted(obj._exposed_saved) if isinstance(obj, OpNode) else []
    return [Candidate(n, -len(prefix), _attribute_meta(obj, n)) for n in names
            if n.startswith(prefix) and (n != prefix or len(names) == 1)]


def _public_attributes(obj):
    if obj is TENSOR or isinstance(obj, Tensor):
        return sorted(n for n in dir(Tensor) if IDENT.match(n) and not n.startswith("_")
                      and n not in TENSOR_INTERNALS)
    names = getattr(obj, "__all__", None)
    if names is None:
        names = [n for n in dir(obj) if not n.startswith("_")]
    return sorted(n for n in names if IDENT.match(n) and not n.startswith("_")
                  and _reachable(obj, n))


def _reachable(obj, name):
    """Whether a program may read obj.name (the sandbox hides op and node internals).  What a
    class of the program defines is its own, and not read: reading a property runs its getter,
    the program's code, which a completion must not run (it could print, or loop: the prompt,
    whose terminal is in raw mode while it completes, would never see Ctrl-C)."""
    import warnings

    from ..lang.allowed import PROGRAM_CLASSES
    from ..lang.attributes import guarded_getattr
    if not isinstance(obj, type) and any(name in vars(klass) for klass in type(obj).__mro__
                                         if klass in PROGRAM_CLASSES):
        return True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            guarded_getattr(obj, name)
    except Exception:  # noqa: BLE001  (whatever refuses the read, the name is not offered)
        return False
    return True


def _attribute_meta(obj, name):
    from ..ops import OPS
    if obj is TENSOR or isinstance(obj, Tensor):
        op = _op_named(name)
        return _doc(op) if op is not None else "tensor attribute"
    op = OPS.get(name)
    return _doc(op) if op is not None else ""


def _expression_before(text):
    """The dotted/call/subscript expression that ends `text` (`x.grad`, `torch.ones(3)`)."""
    i = len(text)
    depth = 0
    while i > 0:
        ch = text[i - 1]
        if ch in ")]":
            depth += 1
        elif ch in "([":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (ch.isalnum() or ch in "_."):
            break
        i -= 1
    return text[i:].strip() if depth == 0 else ""


def _split_trailers(expr):
    """`a.b(1).c[0]` -> ['a', '.b', '()', '.c', '[]'] (call and subscript contents dropped)."""
    parts = []
    i = 0
    while i < len(expr):
        ch = expr[i]
        if ch in "([":
            close = ")" if ch == "(" else "]"
            depth = 0
            j = i
            while j < len(expr):
                if expr[j] in "([":
                    depth += 1
                elif expr[j] in ")]":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            parts.append(ch + close)
            i = j + 1
        elif ch == ".":
            m = re.match(r"\.\s*([A-Za-z_]\w*)", expr[i:])
            if not m:
                return None
            parts.append("." + m.group(1))
            i += m.end()
        else:
            m = re.match(r"[A-Za-z_]\w*", expr[i:])
            if not m or parts:
                return None
            parts.append(m.group(0))
            i += m.end()
    return parts


def _resolve(expr, namespace):
    """The object (or TENSOR) an expression denotes, without running any user code."""
    parts = _split_trailers(expr)
    if not parts or parts[0].startswith((".", "(", "[")):
        return None
    obj = _lookup(parts[0], namespace)
    previous_name = parts[0]
    for part in parts[1:]:
        if obj is None:
            return None
        if part.startswith("."):
            name = part[1:]
            previous_name = name
            if name.startswith("_"):
                return None
            if isinstance(obj, Tensor) and name == "grad_fn":
                obj = obj.grad_fn
                continue
            if obj is TENSOR or isinstance(obj, Tensor):
                obj = TENSOR if name in TENSOR_VALUED else (
                    getattr(Tensor, name, None) if name in dir(Tensor) else None)
                if obj is not None and not callable(obj) and obj is not TENSOR:
                    obj = None
                if callable(obj) and obj is not TENSOR:
                    obj = _TensorMethod(name)
                continue
            try:
                obj = getattr(obj, name) if _is_module(obj) else inspect.getattr_static(obj, name)
            except AttributeError:
                return None
        elif part == "()":
            obj = TENSOR if _returns_tensor(obj, previous_name) else None
        elif part == "[]":
            obj = TENSOR if obj is TENSOR or isinstance(obj, Tensor) else None
    return obj


class _TensorMethod:
    """A tensor method seen through `x.name` (its result is a tensor for op methods)."""

    def __init__(self, name):
        self.name = name


def _returns_tensor(obj, name):
    from ..ops import OPS
    if isinstance(obj, _TensorMethod):
        return obj.name not in ("tolist", "item", "size", "dim", "numel", "backward",
                                "register_hook", "is_floating_point", "is_complex")
    return name in OPS or obj is Tensor


def _lookup(name, namespace):
    """A name in scope: the session's names, else a name every program sees."""
    if name in namespace:
        return namespace[name]
    return _bare_names(namespace).get(name)


# ---------------------------------------------------------------------- keyword arguments

def _open_call(head):
    """(callee expression, argument text so far) of the innermost unclosed call, or None."""
    depth = 0
    for i in range(len(head) - 1, -1, -1):
        ch = head[i]
        if ch in ")]}":
            depth += 1
        elif ch in "[{":
            if depth == 0:
                return None
            depth -= 1
        elif ch == "(":
            if depth == 0:
                callee = _expression_before(head[:i])
                return (callee, head[i + 1:]) if callee else None
            depth -= 1
    return None


def _keywords(head, prefix, namespace):
    call = _open_call(head)
    if call is None:
        return []
    callee, args = call
    params = _parameters(callee, namespace)
    used = set(re.findall(r"([A-Za-z_]\w*)\s*=(?!=)", args))
    return [Candidate(p + "=", -len(prefix), "keyword argument") for p in params
            if p.startswith(prefix) and p not in used]


def _parameters(callee, namespace):
    from ..ops.entries import loaded
    from ..ops.registry import Op, Overload, Plain
    obj = loaded(_resolve(callee, namespace))
    if isinstance(obj, _TensorMethod):
        op = _op_named(obj.name)
        if op is not None:
            return _op_parameters(op, is_method=True)
        return _signature_parameters(getattr(Tensor, obj.name, None), skip_self=True)
    if obj is None or obj is TENSOR:
        return []
    from ..lang.namespace import BuiltinOrOp
    if isinstance(obj, BuiltinOrOp):  # the builtin's own keywords, then the op's
        return sorted(obj.keywords) + [p for p in _op_parameters(obj.op, is_method=False)
                                       if p not in obj.keywords]
    op = loaded(getattr(obj, "op", None))  # a bare name that also computes on numbers wraps its op
    if isinstance(op, (Op, Overload, Plain)):
        obj = op
    if isinstance(obj, (Op, Overload, Plain)):
        return _op_parameters(obj, is_method=False)
    params = getattr(obj, "params", None)
    if isinstance(params, (list, tuple)) and all(isinstance(p, str) for p in params):
        return list(params)
    return _signature_parameters(obj)


def _op_named(name):
    from ..ops import OPS
    from ..ops.entries import loaded
    op = OPS.get(name)
    if op is None and name.endswith("_"):
        op = OPS.get(name[:-1])
    return loaded(op)


def _op_parameters(op, is_method):
    from ..ops.registry import Op, Overload
    from ..ops import OPS
    ops = op.ops if isinstance(op, Overload) else [op]
    if getattr(op, "fn", True) is None:  # a method listed for its ops (uniform_): theirs
        ops = [OPS[n] for n in op.via]
    out = []
    for o in ops:
        if isinstance(o, Op):
            inputs = [n for n in o.inputs if not n.startswith("*")]
            names = (inputs[1:] if is_method else [n for n in inputs if n != "self"]) \
                + list(o.attr_names)
        else:
            names = _signature_parameters(getattr(o, "fn", None), skip_self=is_method)
        out += [n for n in names if n not in out]
    return out


def _signature_parameters(fn, skip_self=False):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    params = [p for p in sig.parameters.values()
              if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if skip_self and params and params[0].name == "self":
        params = params[1:]
    return [p.name for p in params if not p.name.startswith("_")]


# ---------------------------------------------------------------------- meta-commands

def _meta(line, namespace, commands):
    name, space, arg = line.partition(" ")
    if not space:
        return [Candidate(n, -len(name), c.summary) for n, c in sorted(commands.items())
                if n.startswith(name)]
    command = commands.get(name)
    if command is None or " " in arg.strip():
        return []
    kind = command.argument
    if kind == "tensor":
        return [Candidate(n, -len(arg), _describe(v)) for n, v in sorted(namespace.items())
                if isinstance(v, Tensor) and n.startswith(arg) and not n.startswith("_")]
    if kind == "file":
        return _paths(arg)
    if kind == "command":
        from ..ops import OPS
        names = sorted(commands) + sorted(n for n, op in OPS.items()
                                          if getattr(op, "public", True) and IDENT.match(n))
        return [Candidate(n, -len(arg), "") for n in names if n.startswith(arg)]
    if isinstance(kind, (list, tuple)):
        return [Candidate(c, -len(arg), "") for c in kind if c.startswith(arg)]
    return []


def _paths(arg):
    import os
    directory, _, stem = arg.rpartition("/")
    base = os.path.expanduser(directory or ".") if directory or not arg.startswith("/") else "/"
    if arg.startswith("/") and not directory:
        base = "/"
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return []
    out = []
    for entry in entries:
        if entry.startswith(stem) and (stem.startswith(".") or not entry.startswith(".")):
            full = os.path.join(base, entry)
            out.append(Candidate(entry + ("/" if os.path.isdir(full) else ""), -len(stem), ""))
    return out


# ---------------------------------------------------------------------- helpers

def _in_string_or_comment(before):
    line = before.rsplit("\n", 1)[-1]
    quote = None
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif line.startswith(quote, i):
                i += len(quote) - 1
                quote = None
        elif ch == "#":
            return True
        elif ch in "'\"":
            quote = ch * 3 if line.startswith(ch * 3, i) else ch
            i += len(quote) - 1
        i += 1
    return quote is not None


def _dedupe(candidates):
    seen = set()
    out = []
    for c in candidates:
        if c.text not in seen:
            seen.add(c.text)
            out.append(c)
    return out


MAX_CANDIDATES = 2000


class ReplCompleter(Completer):
    """prompt-toolkit adapter: `source(text, cursor)` gives the candidates (the REPL asks the
    evaluator, which holds the session's names)."""

    def __init__(self, source):
        self.source = source

    def get_completions(self, document, complete_event):
        try:
            found = self.source(document.text, document.cursor_position)
        except Exception:  # completion must never break the prompt
            return
        cursor = document.cursor_position
        for c in list(found)[:MAX_CANDIDATES]:
            # (the evaluator answers these: only candidates that fit the line are shown)
            if isinstance(c.text, str) and isinstance(c.start, int) and -cursor <= c.start <= 0:
                yield Completion(c.text[:200], start_position=c.start,
                                 display_meta=str(c.meta)[:200])
