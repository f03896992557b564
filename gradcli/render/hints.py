"""One `hint:` line after an autograd error, naming the user's own variables (SPEC §5).
Shown on a terminal only (whatever the colour setting); piped output keeps PyTorch's line alone.

The hint reads the program text around the failure: `line` is the failing source line and
`column` (1-based, as errors carry it) where the failing expression starts on it, so that in
`y = x*2; x.add_(1)` the hint speaks of `x.add_(1)`, not of `y = x*2`."""

import difflib
import re
from dataclasses import dataclass

from ..engine import messages
from ..engine.tensor import Tensor

_OPEN, _CLOSE = "([{", ")]}"
_NAME = r"[A-Za-z_]\w*"
# methods whose names end in `_` but change no tensor's values
NOT_INPLACE = frozenset({"requires_grad_", "share_memory_", "retain_grad_"})
_AUGMENTED = re.compile(r"\s*(" + _NAME + r"(?:\s*(?:\.\s*\w+|\[[^=]*\]))*)\s*"
                        r"(\*\*|//|>>|<<|[-+*/@%&|^])=(?!=)\s*(.*?)\s*$")
_ITEM_ASSIGN = re.compile(r"\s*(" + _NAME + r")\s*(\[.*\])\s*=(?!=)\s*(.*?)\s*$")
_METHOD = re.compile(r"\.\s*(" + _NAME + r")\s*\(")


# ---------------------------------------------------------------------- reading program text

def _top_level(text, separators):
    """Split text at separators outside brackets and strings (a comment ends it); yields
    (start offset, piece)."""
    depth, quote, start, i = 0, None, 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#":
            break
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(depth - 1, 0)
        elif c in separators and depth == 0:
            yield start, text[start:i]
            start = i + 1
        i += 1
    yield start, text[start:i]


def _statement(line, column=None):
    """(the statement of `line` that holds `column`, the text from `column` to its end)."""
    pieces = list(_top_level(line or "", ";"))
    for start, piece in pieces:
        end = start + len(piece)
        if column is not None and start <= column - 1 <= end:
            return piece.strip(), line[column - 1:end].strip()
    whole = (line or "").strip()
    if len(pieces) == 1:
        return pieces[0][1].strip(), pieces[0][1].strip()
    return whole, whole


def _matching(text, start, step):
    """The index of the bracket matching the one at start: scanning forward (step 1) from an
    opening bracket or backward (step -1) from a closing one; None if unmatched."""
    deeper, shallower = (_OPEN, _CLOSE) if step > 0 else (_CLOSE, _OPEN)
    depth = 0
    for i in range(start, len(text) if step > 0 else -1, step):
        if text[i] in deeper:
            depth += 1
        elif text[i] in shallower:
            depth -= 1
            if depth == 0:
                return i
    return None


def _receiver_before(text, end):
    """The primary expression that ends at `end` (exclusive): `x`, `x[0]`, `y.sum()`, `(a*b)`."""
    i = end
    while i > 0 and text[i - 1] == " ":
        i -= 1
    stop = i
    while i > 0:
        c = text[i - 1]
        if c in _CLOSE:
            j = _matching(text, i - 1, -1)
            if j is None:
                break
            i = j
            continue
        if c.isalnum() or c == "_":
            while i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
                i -= 1
            if i > 0 and text[i - 1] == ".":
                i -= 1
                continue
        break
    return text[i:stop].strip()


def _root(expr):
    """The first name of an expression (`x` of `x[0].T`), or None."""
    m = re.search(_NAME, expr or "")
    return m.group(0) if m else None


def _split_args(text):
    """Top-level arguments of a call: (positional texts, keyword name -> text)."""
    positional, keywords = [], {}
    for _, piece in _top_level(text, ","):
        piece = piece.strip()
        if not piece:
            continue
        m = re.match(r"(" + _NAME + r")\s*=(?!=)\s*(.*)$", piece, re.S)
        if m:
            keywords[m.group(1)] = m.group(2).strip()
        else:
            positional.append(piece)
    return positional, keywords


def _elements(expr):
    """The elements of a list or tuple display, or [expr] for anything else."""
    expr = (expr or "").strip()
    if expr[:1] in "[(" and _matching(expr, 0, 1) == len(expr) - 1:
        inner = [p.strip() for _, p in _top_level(expr[1:-1], ",")]
        inner = [p for p in inner if p]
        if expr[0] == "[" or len(inner) != 1 or expr.rstrip(")").rstrip().endswith(","):
            return inner
    return [expr] if expr else []


@dataclass
class Call:
    receiver: str       # `x` of `x.add_(1)`, `torch.autograd` of `torch.autograd.grad(…)`
    method: str
    args: str           # the argument text, without the parentheses

    @property
    def text(self):
        return f"{self.receiver}.{self.method}({self.args})" if self.receiver \
            else f"{self.method}({self.args})"


def _calls(text, methods=None):
    """The calls `receiver.method(args)` (and bare `method(args)`) in text, in order."""
    found = []
    for m in re.finditer(r"(?<![\w.])(" + _NAME + r")\s*\(|" + _METHOD.pattern, text):
        method = m.group(1) or m.group(2)
        if methods is not None and method not in methods:
            continue
        close = _matching(text, m.end() - 1, 1)
        args = text[m.end():close] if close is not None else text[m.end():]
        receiver = _receiver_before(text, m.start()) if m.group(2) else ""
        found.append(Call(receiver, method, args.strip()))
    return found


def _is_tensor(namespace, name):
    return isinstance(namespace.get(name), Tensor)


def _is_leaf(namespace, name):
    t = namespace.get(name)
    return isinstance(t, Tensor) and t.grad_fn is None and t.requires_grad


# ---------------------------------------------------------------------- backward calls

@dataclass
class Backward:
    """A call that runs backward: the outputs' texts, the gradient text (None: implicit), and
    how it is spelled ("method" y.backward(g), "backward" autograd.backward, "grad" autograd.grad,
    "eval" the CLI's own pass with --grad)."""
    outputs: list
    gradient: object
    form: str
    inputs: list = None
    inputs_text: str = None


def _backward_call(text, namespace):
    for call in _calls(text, {"backward", "grad"}):
        positional, keywords = _split_args(call.args)
        functional = call.method == "grad" or not call.receiver or \
            call.receiver.split(".")[-1] == "autograd"
        if call.method == "backward" and not functional:
            gradient = positional[0] if positional else keywords.get("gradient")
            return Backward([call.receiver], gradient, "method")
        if call.method == "grad" and call.receiver and \
                call.receiver.split(".")[-1] != "autograd" and _is_tensor(namespace,
                                                                           _root(call.receiver)):
            continue  # not a function call: some tensor's attribute
        outputs = positional[0] if positional else keywords.get(
            "outputs" if call.method == "grad" else "tensors", "")
        gradient_key = "grad_outputs" if call.method == "grad" else "grad_tensors"
        gradient = positional[2 if call.method == "grad" else 1] \
            if len(positional) > (2 if call.method == "grad" else 1) else keywords.get(gradient_key)
        inputs_text = (positional[1] if len(positional) > 1 else keywords.get("inputs")) \
            if call.method == "grad" else keywords.get("inputs")
        return Backward(_elements(outputs), gradient, call.method,
                        _elements(inputs_text) if inputs_text else None, inputs_text)
    return None


def _backward_in(stmt, expr, namespace, output):
    """The backward call the failing statement makes, else the CLI's own pass for `output`."""
    found = _backward_call(expr, namespace) or _backward_call(stmt, namespace)
    if found is None and output is not None:
        found = Backward([output], None, "eval")
    return found


def _shape_text(namespace, name):
    t = namespace.get(name)
    return f" has shape {list(t.shape)}; it" if isinstance(t, Tensor) else ""


# ---------------------------------------------------------------------- in-place changes

@dataclass
class Change:
    """An in-place change in the program text."""
    root: str           # the variable changed (`x` of `x[0].add_(1)`)
    target: str         # what is changed (`x[0]`)
    text: str           # the change as written
    replacement: str = None  # an out-of-place statement that does the same, when there is one


def _out_of_place(receiver, method, args):
    base = method[:-1]
    if base == "zero":
        return f"torch.zeros_like({receiver})"
    if base == "fill":
        return f"torch.full_like({receiver}, {args})"
    if base == "copy":
        return None
    attr = getattr(Tensor, base, None)
    return f"{receiver}.{base}({args})" if callable(attr) else None


_COMPOUND = re.compile(r"\s*(with|for|while|if|elif|else|try|except|finally)\b")


def _changes(stmt, namespace):
    """The in-place changes a statement makes, in the order written."""
    found = []
    if _COMPOUND.match(stmt):  # `with torch.no_grad(): w -= …`: the body after the header
        stmt = list(_top_level(stmt, ":"))[-1][1]
    m = _AUGMENTED.match(stmt)
    if m:
        target, op, value = m.groups()
        replacement = f"{target} = {target} {op} {value}" if target == _root(target) else None
        found.append(Change(_root(target), target, stmt.strip(), replacement))
    else:
        m = _ITEM_ASSIGN.match(stmt)
        if m and _matching(m.group(2), 0, 1) == len(m.group(2)) - 1:
            found.append(Change(m.group(1), m.group(1) + m.group(2), stmt.strip()))
    for call in _calls(stmt):
        method = call.method
        if not method.endswith("_") or method.startswith("_") or method in NOT_INPLACE:
            continue
        receiver = call.receiver
        if not receiver or not _is_tensor(namespace, _root(receiver)) and \
                _root(receiver) in namespace:
            # torch.relu_(x): a function of the module, changing its first argument
            positional, _ = _split_args(call.args)
            if not positional:
                continue
            target = positional[0]
            plain = f"{call.receiver}.{method[:-1]}" if receiver else method[:-1]
            replacement = f"{target} = {plain}({call.args})" if target == _root(target) else None
            found.append(Change(_root(target), target, call.text, replacement))
            continue
        oop = _out_of_place(receiver, method, call.args) if receiver == _root(receiver) else None
        found.append(Change(_root(receiver), receiver, call.text,
                            f"{receiver} = {oop}" if oop else None))
    return found


def _program_changes(program, namespace):
    found = []
    for line in (program or "").splitlines():
        for _, stmt in _top_level(line, ";"):
            if stmt.strip():
                found += _changes(stmt, namespace)
    return found


def _leaf_hint(message, stmt, expr, namespace):
    changes = _changes(expr, namespace) or _changes(stmt, namespace)
    change = next((c for c in changes if _is_leaf(namespace, c.root)), None)
    if change is None and changes:
        change = changes[0]
    if change is None:  # a leaf named in the statement
        names = [n for n in re.findall(_NAME, stmt) if _is_leaf(namespace, n)]
        if names:
            change = Change(names[0], names[0], stmt)
    if change is None:
        return ("a leaf that requires grad cannot change in place: change it under "
                "`with torch.no_grad():`, or compute a new tensor instead")
    name = change.root
    if message == messages.VIEW_OF_LEAF_INPLACE or change.target != name:
        view = change.target if change.target != name else f"a view of {name}"
        return (f"{view} is part of {name}, a leaf that requires grad: change it under "
                f"`with torch.no_grad():`, or change a copy ({name} = {name}.clone() first)")
    new = change.replacement or f"{name} = {name} + …"
    return (f"{name} is a leaf that requires grad: change it under `with torch.no_grad():`, "
            f"or compute a new tensor ({new}) instead of changing it in place")


_VERSION = re.compile(r"\[torch\.\w+ \[([\d, ]*)\]\](?:, which is output \d+ of (\w+),)? "
                      r"is at version (\d+)")


def _version_hint(message, program, namespace):
    m = _VERSION.search(message)
    changes = _program_changes(program, namespace)
    if m and changes:
        shape = [int(s) for s in m.group(1).replace(" ", "").split(",") if s]
        current = int(m.group(3))

        def fits(c, version, size):
            t = namespace.get(c.root)
            return (isinstance(t, Tensor) and (not size or list(t.shape) == shape)
                    and (not version or t._counter[0] == current))
        # the last change to a tensor of that shape at that version (a view shares its base's
        # version), else the last change to a tensor at all
        change = next((c for version, size in ((True, True), (True, False), (False, True))
                       for c in reversed(changes) if fits(c, version, size)), None) or \
            next((c for c in reversed(changes) if _is_tensor(namespace, c.root)), changes[-1])
    else:
        change = changes[-1] if changes else None
    if change is None:
        return ("a tensor saved for backward was changed in place after it was used (a method "
                "ending in _, +=, or item assignment): do that out of place, or clone() the "
                "tensor first")
    name = change.root
    if change.replacement:
        return (f"{change.text} changed {name} in place after backward saved it: write "
                f"{change.replacement} instead, or clone {name} before changing it")
    return (f"{change.text} changed {name} in place after backward saved it: change a copy "
            f"instead ({name} = {name}.clone() first)")


# ---------------------------------------------------------------------- the hint

def _program_up_to(program, line):
    if not program:
        return ""
    lines = program.splitlines()
    return "\n".join(lines[:line] if line else lines)


def hint_for(error_type, message, source_line="", namespace=None, *, column=None, program=None,
             line=None, output=None):
    """The hint for an error, or None when there is nothing useful to add.

    source_line: the failing line; column: where on it the failing expression starts (1-based);
    program: the text that ran (for changes made before the failing line), line: the failing
    line's number in it; output: the output the CLI itself was differentiating when the error
    was not raised by the program (its gradient is then --grad)."""
    namespace = namespace or {}
    stmt, expr = _statement(source_line or "", column)
    if output is not None and line is None and column is None:
        stmt = expr = ""  # raised by the CLI's own backward pass, not by a program line
    if message.startswith(messages.BACKWARD_TWICE[:40]):
        call = _backward_in(stmt, expr, namespace, output)
        name = call.outputs[0] if call and call.outputs else "the output"
        if call is not None and call.form == "eval":
            return (f"the program already backpropagated {name}; call "
                    f"{name}.backward(retain_graph=True) there, or leave the backward pass "
                    f"to gradcli eval")
        if call is not None and call.form in ("grad", "backward"):
            return (f"{name} was already backpropagated; pass retain_graph=True the first "
                    f"time, or recompute {name}")
        again = _root(name) if name != "the output" and _root(name) in namespace else name
        return (f"{name} was already backpropagated; call {name}.backward(retain_graph=True) the "
                f"first time, or recompute {again}")
    if message == messages.IMPLICIT_GRAD_NOT_SCALAR:
        call = _backward_in(stmt, expr, namespace, output)
        name = call.outputs[0] if call and call.outputs else "the output"
        shape = _shape_text(namespace, name)
        if call is not None and call.form == "eval":
            size = namespace[name].numel() if _is_tensor(namespace, name) else None
            example = f" (--grad 'ones({size})')" if size else ""
            return (f"{name}{shape} is not a scalar: pass a gradient of its shape with "
                    f"--grad{example}, or differentiate {name}.sum()")
        if call is not None and call.form == "grad":
            return (f"{name}{shape} is not a scalar: pass grad_outputs=torch.ones_like({name}), "
                    f"or reduce it first, {name}.sum()")
        return (f"{name}{shape} is not a scalar: pass a gradient of its shape, "
                f"{name}.backward(torch.ones_like({name})), or reduce it first, {name}.sum().backward()")
    if message.startswith("Mismatch in shape:"):
        return _shape_hint(message, stmt, expr, namespace, output)
    if message == messages.LEAF_INPLACE or message == messages.VIEW_OF_LEAF_INPLACE:
        return _leaf_hint(message, stmt, expr, namespace)
    if message.startswith("one of the variables needed for gradient computation"):
        return _version_hint(message, _program_up_to(program, line) or source_line, namespace)
    if message == messages.NUMPY_REQUIRES_GRAD:
        call = next(iter(_calls(expr, {"numpy"}) or _calls(stmt, {"numpy"})), None)
        name = call.receiver if call and call.receiver else "t"
        return f"call {name}.detach().numpy() to get the values without the graph"
    if message.startswith("element 0 of tensors does not require grad"):
        call = _backward_in(stmt, expr, namespace, output)
        name = call.outputs[0] if call and call.outputs else "the output"
        return (f"{name} does not require grad: no input of it was created with "
                f"requires_grad=True (or it was computed under no_grad / from detached tensors)")
    if "appears to not have been used in the graph" in message:
        return _unused_hint(message, stmt, expr, namespace)
    if message == messages.INPUT_NO_GRAD:
        call = _backward_call(expr, namespace) or _backward_call(stmt, namespace)
        inputs = call.inputs if call is not None and call.inputs else []
        name = next((n for n in inputs if _is_tensor(namespace, n)
                     and not namespace[n].requires_grad), None) or "an input"
        return (f"{name} does not require grad: create it with requires_grad=True (or call "
                f"{name}.requires_grad_()) before computing with it, or leave it out of the "
                f"inputs" if name != "an input" else
                "an input does not require grad: create it with requires_grad=True, or leave "
                "it out of the inputs")
    if message in (messages.HOOK_ON_NO_GRAD, messages.RETAIN_GRAD_NO_GRAD):
        method = "register_hook" if message == messages.HOOK_ON_NO_GRAD else "retain_grad"
        call = next(iter(_calls(expr, {method}) or _calls(stmt, {method})), None)
        name = call.receiver if call and call.receiver else "the tensor"
        return (f"{name} does not require grad, so no gradient ever reaches it: compute it from "
                f"a tensor with requires_grad=True, or call {name}.requires_grad_() on a leaf")
    if message.startswith(messages.ONLY_LEAF_REQUIRES_GRAD):
        call = next(iter(_calls(expr, {"requires_grad_"}) or _calls(stmt, {"requires_grad_"})),
                    None)
        m = re.search(r"(" + _NAME + r"(?:\.\w+)*)\s*\.\s*requires_grad\s*=(?!=)", stmt)
        name = call.receiver if call and call.receiver else m.group(1) if m else "the tensor"
        if message == messages.ONLY_LEAF_REQUIRES_GRAD_FALSE:
            return (f"{name} is computed from other tensors (not a leaf): use "
                    f"{_root(name)}_const = {name}.detach() for a copy without the graph")
        return (f"{name} is computed from other tensors (not a leaf): its requires_grad "
                f"follows its inputs'")
    if error_type == "RuntimeError" and message.startswith(
            "Only Tensors of floating point and complex dtype can require gradients"):
        m = re.search(r"tensor\(\s*([^,]*?)\s*,[^)]*requires_grad\s*=\s*True", stmt)
        literal = m.group(1) if m else None
        if literal and re.fullmatch(r"[-+]?\d+", literal):
            return (f"{literal} is an integer, so the tensor is int64, and integer tensors "
                    f"cannot require grad: write {literal}. (a float), or pass "
                    f"dtype=torch.float32")
        return ("integer tensors cannot require grad: write the values as floats (2., not 2), "
                "or pass dtype=torch.float32")
    if error_type == "AttributeError":
        m = re.search(r"'(\w+)' object has no attribute '(\w+)'|module '([\w.]+)' has no "
                      r"attribute '(\w+)'", message)
        if m:
            wrong = m.group(2) or m.group(4)
            close = difflib.get_close_matches(wrong, _attribute_names(m.group(1), m.group(3)),
                                              n=1)
            if close:
                return f"did you mean '{close[0]}'?"
    if error_type == "NameError":
        m = re.search(r"name '(\w+)' is not defined", message)
        names = sorted(k for k in namespace if not k.startswith("_"))
        if m and m.group(1) in _MODULE_IMPORTS:
            bare = " (the ops are also there without it: sin(x), tensor([1., 2.]))" \
                if m.group(1) in ("torch", "F") else ""
            return f"{_MODULE_IMPORTS[m.group(1)]} first, as in Python{bare}"
        if m:
            close = difflib.get_close_matches(m.group(1), names, n=3)
            if close:
                return f"did you mean {', '.join(close)}?"
            user = [k for k, v in namespace.items() if isinstance(v, Tensor) and k != "_"]
            if user:
                return f"your tensors: {', '.join(sorted(user))}"
    return None


def _attribute_names(type_name, module_name):
    """The public attributes of a Tensor or of a torch module a program can reach, for "did you
    mean" (empty for anything else)."""
    if type_name == "Tensor":
        return [n for n in dir(Tensor) if not n.startswith("_")]
    if module_name:
        from ..lang.namespace import modules
        facade = modules().get("torch" if module_name.split(".")[0] == "torch" else
                               module_name.split(".")[0])
        for part in module_name.split(".")[1:]:
            facade = getattr(facade, "_members", {}).get(part) if facade is not None else None
        members = getattr(facade, "_members", None)
        return [n for n in members if not n.startswith("_")] if members else []
    return []


# names that programs use for modules, and the import that defines each
_MODULE_IMPORTS = {"torch": "import torch", "np": "import numpy as np", "numpy": "import numpy",
                   "math": "import math", "F": "import torch.nn.functional as F",
                   "nn": "import torch.nn as nn"}


_MISMATCH = re.compile(r"grad_output\[(\d+)\] has a shape of torch\.Size\(\[([\d, ]*)\]\) and "
                       r"output\[\d+\] has a shape of torch\.Size\(\[([\d, ]*)\]\)")


def _shape_hint(message, stmt, expr, namespace, output):
    m = _MISMATCH.search(message)
    index, given, wanted = (int(m.group(1)), f"[{m.group(2)}]", f"[{m.group(3)}]") if m \
        else (0, "another shape", "its own")
    call = _backward_in(stmt, expr, namespace, output)
    outputs = call.outputs if call else []
    name = outputs[index] if index < len(outputs) else "the output"
    if call is not None and call.form == "eval":
        return (f"--grad has shape {given} but {name} has shape {wanted}: give --grad a value of "
                f"{name}'s shape (or a single number)")
    if call is not None and call.form == "grad":
        where = "grad_outputs" + (f"[{index}]" if len(outputs) > 1 else "")
        return (f"{where} has shape {given} but {name} has shape {wanted}: give a gradient of "
                f"{name}'s shape, e.g. torch.ones_like({name})")
    if call is not None and call.form == "backward":
        where = "grad_tensors" + (f"[{index}]" if len(outputs) > 1 else "")
        return (f"{where} has shape {given} but {name} has shape {wanted}: give a gradient of "
                f"{name}'s shape, e.g. torch.ones_like({name})")
    gradient = call.gradient if call is not None and call.gradient else "the gradient"
    return (f"{gradient} has shape {given} but {name} has shape {wanted}: pass a gradient of "
            f"{name}'s shape, e.g. {name}.backward(torch.ones_like({name}))")


def _unused_hint(message, stmt, expr, namespace):
    m = re.search(r"at index (\d+)", message)
    index = int(m.group(1)) if m else None
    call = _backward_call(expr, namespace) or _backward_call(stmt, namespace)
    output = call.outputs[0] if call and len(call.outputs) == 1 else None
    target = " ".join(call.outputs) if call and call.outputs else "the output"
    if output is not None:
        target = output
    name = None
    if call is not None and call.inputs_text and index is not None:
        text = call.inputs_text.strip()
        if call.inputs != [text]:  # a list or tuple display: its element
            name = call.inputs[index] if index < len(call.inputs) else None
        elif index == 0 and _is_tensor(namespace, text):
            name = text
        else:
            name = f"{text}[{index}]"
    if name is None:
        name = "an input" if index is None else f"input {index}"
    return (f"{name} is not used to compute {target}: leave it out of the inputs, or pass "
            f"allow_unused=True to get None for its gradient (materialize_grads=True for zeros)")
