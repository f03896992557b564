"""One `hint:` line after an autograd error, naming the user's own variables (SPEC §5).
Shown on a terminal only (whatever the colour setting); piped output keeps PyTorch's line alone.

The hint reads the program text around the failure: `line` is the failing source line and
`column` (1-based, as errors carry it) where the failing expression starts on it, so that in
`y = x*2; x.add_(1)` the hint speaks of `x.add_(1)`, not of `y = x*2`."""

import ast
import difflib
import re
from dataclasses import dataclass

from ..engine import messages
from ..engine.tensor import Tensor
from ..lang.program_text import Change, Fragment, failing, program_fragments, root

# methods whose names end in `_` but change no tensor's values
NOT_INPLACE = frozenset({"requires_grad_", "share_memory_", "retain_grad_"})


def _is_tensor(namespace, name):
    return isinstance(namespace.get(name), Tensor)


def _is_leaf(namespace, name):
    t = namespace.get(name)
    return isinstance(t, Tensor) and t.grad_fn is None and t.requires_grad


def _is_true(argument):
    return argument is not None and isinstance(argument.node, ast.Constant) and \
        argument.node.value is True


def _is_integer(node):
    """Is node an integer literal (`3`, `-3`)?"""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _first_call(fragments, methods):
    """The first call of one of methods in the first fragment that has one."""
    for fragment in fragments:
        calls = fragment.calls(methods)
        if calls:
            return calls[0]
    return None


# ---------------------------------------------------------------------- backward calls

@dataclass
class Backward:
    """A call that runs backward: the outputs' texts, the gradient text (None: implicit), and
    how it is spelled ("method" y.backward(g), "backward" autograd.backward, "grad" autograd.grad,
    "eval" the CLI's own pass with --grad); inputs: the texts of the inputs' elements,
    inputs_argument: the inputs as written (an Argument)."""
    outputs: list
    gradient: object
    form: str
    inputs: list = None
    inputs_argument: object = None
    output_root: str = None


def _backward_call(fragment, namespace):
    for call in fragment.calls({"backward", "grad"}):
        positional, keywords = call.positional, call.keywords
        last = call.receiver.split(".")[-1] if call.receiver else ""
        functional = call.method == "grad" or not call.receiver or last == "autograd"
        if call.method == "backward" and not functional:
            gradient = positional[0] if positional else keywords.get("gradient")
            return Backward([call.receiver], gradient and gradient.text, "method",
                            output_root=call.receiver_root)
        if call.method == "grad" and call.receiver and last != "autograd" and \
                _is_tensor(namespace, call.receiver_root):
            continue  # not a function call: some tensor's attribute
        outputs = positional[0] if positional else keywords.get(
            "outputs" if call.method == "grad" else "tensors")
        given = 2 if call.method == "grad" else 1
        gradient = positional[given] if len(positional) > given else keywords.get(
            "grad_outputs" if call.method == "grad" else "grad_tensors")
        inputs = (positional[1] if len(positional) > 1 else keywords.get("inputs")) \
            if call.method == "grad" else keywords.get("inputs")
        return Backward(outputs.elements if outputs else [], gradient and gradient.text,
                        call.method, inputs.elements if inputs else None, inputs)
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


def _in_place(method):
    return method.endswith("_") and not method.startswith("_") and method not in NOT_INPLACE


def _changes(fragment, namespace):
    """The in-place changes a fragment makes, in the order written: by assignment, then by
    the calls of methods ending in `_`."""
    found = fragment.assignments_in_place()
    for call in fragment.calls():
        if not _in_place(call.method):
            continue
        receiver, name = call.receiver, call.receiver_root
        if not receiver or not _is_tensor(namespace, name) and name in namespace:
            # torch.relu_(x): a function of the module, changing its first argument
            if not call.positional:
                continue
            target = call.positional[0]
            plain = f"{call.receiver}.{call.method[:-1]}" if receiver else call.method[:-1]
            bare = isinstance(target.node, ast.Name)
            replacement = f"{target.text} = {plain}({call.args})" if bare else None
            found.append(Change(root(target.node), target.text, call.text, replacement))
            continue
        bare = receiver == name
        oop = _out_of_place(receiver, call.method, call.args) if bare else None
        found.append(Change(name, receiver, call.text, f"{receiver} = {oop}" if oop else None))
    return found


def _program_changes(program, line, namespace):
    found = []
    for fragment in program_fragments(program, line):
        found += _changes(fragment, namespace)
    return found


def _leaf_hint(message, stmt, expr, namespace):
    changes = _changes(expr, namespace) or _changes(stmt, namespace)
    change = next((c for c in changes if _is_leaf(namespace, c.root)), None)
    if change is None and changes:
        change = changes[0]
    if change is None:  # a leaf named in the statement
        names = [n for n in stmt.names() if _is_leaf(namespace, n)]
        if names:
            change = Change(names[0], names[0], "")
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


def _version_hint(message, changes, namespace):
    m = _VERSION.search(message)
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

def hint_for(error_type, message, source_line="", namespace=None, *, column=None, program=None,
             line=None, output=None):
    """The hint for an error, or None when there is nothing useful to add.

    source_line: the failing line; column: where on it the failing expression starts (1-based);
    program: the text that ran (for changes made before the failing line), line: the failing
    line's number in it; output: the output the CLI itself was differentiating when the error
    was not raised by the program (its gradient is then --grad)."""
    namespace = namespace or {}
    stmt, expr = failing(source_line, column, program, line)
    if output is not None and line is None and column is None:
        stmt = expr = Fragment()  # raised by the CLI's own backward pass, not by a program line
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
        named = call.output_root if call is not None and call.form == "method" else None
        again = named if named in namespace else name
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
        changes = _program_changes(program, line, namespace) if program else \
            _program_changes(source_line or "", None, namespace)
        return _version_hint(message, changes, namespace)
    if message == messages.NUMPY_REQUIRES_GRAD:
        call = _first_call((expr, stmt), {"numpy"})
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
        call = _first_call((expr, stmt), {method})
        name = call.receiver if call and call.receiver else "the tensor"
        return (f"{name} does not require grad, so no gradient ever reaches it: compute it from "
                f"a tensor with requires_grad=True, or call {name}.requires_grad_() on a leaf")
    if message.startswith(messages.ONLY_LEAF_REQUIRES_GRAD):
        call = _first_call((expr, stmt), {"requires_grad_"})
        assigned, assigned_root = stmt.attribute_assigned("requires_grad")
        name = call.receiver if call and call.receiver else assigned or "the tensor"
        name_root = call.receiver_root if call and call.receiver else assigned_root or name
        if message == messages.ONLY_LEAF_REQUIRES_GRAD_FALSE:
            return (f"{name} is computed from other tensors (not a leaf): use "
                    f"{name_root}_const = {name}.detach() for a copy without the graph")
        return (f"{name} is computed from other tensors (not a leaf): its requires_grad "
                f"follows its inputs'")
    if error_type == "RuntimeError" and message.startswith(
            "Only Tensors of floating point and complex dtype can require gradients"):
        literal = next((call.positional[0] for call in stmt.calls()
                        if call.method.endswith("tensor") and call.positional
                        and _is_true(call.keywords.get("requires_grad"))), None)
        if literal is not None and _is_integer(literal.node):
            literal = literal.text
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
    if call is not None and call.inputs_argument is not None and index is not None:
        text = call.inputs_argument.text
        if isinstance(call.inputs_argument.node, (ast.List, ast.Tuple)):  # a display
            name = call.inputs[index] if index < len(call.inputs) else None
        elif index == 0 and _is_tensor(namespace, text):
            name = text
        else:
            name = f"{text}[{index}]"
    if name is None:
        name = "an input" if index is None else f"input {index}"
    return (f"{name} is not used to compute {target}: leave it out of the inputs, or pass "
            f"allow_unused=True to get None for its gradient (materialize_grads=True for zeros)")
