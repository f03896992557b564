"""One `hint:` line after an autograd error, naming the user's own variables (SPEC §5).
Shown on a terminal only; piped output keeps PyTorch's line alone."""

import difflib
import re

from ..engine import messages
from ..engine.tensor import Tensor


def _receiver(source_line, method):
    m = re.search(r"([A-Za-z_][\w.]*)\s*\.\s*" + method + r"\s*\(", source_line or "")
    return m.group(1) if m else None


def hint_for(error_type, message, source_line="", namespace=None):
    """The hint for an error, or None when there is nothing useful to add."""
    namespace = namespace or {}
    line = source_line or ""
    if message.startswith(messages.BACKWARD_TWICE[:40]):
        name = _receiver(line, "backward") or "the output"
        return (f"{name} was already backpropagated; call {name}.backward(retain_graph=True) the "
                f"first time, or recompute {name}")
    if message == messages.IMPLICIT_GRAD_NOT_SCALAR:
        name = _receiver(line, "backward") or "the output"
        shape = ""
        t = namespace.get(name)
        if isinstance(t, Tensor):
            shape = f" has shape {list(t.shape)}; it"
        return (f"{name}{shape} is not a scalar: pass a gradient of its shape, "
                f"{name}.backward(torch.ones_like({name})), or reduce it first, {name}.sum().backward()")
    if message == messages.LEAF_INPLACE or message == messages.VIEW_OF_LEAF_INPLACE:
        name = re.match(r"\s*([A-Za-z_]\w*)", line)
        name = name.group(1) if name else "the leaf"
        return (f"{name} is a leaf that requires grad: change it under `with torch.no_grad():`, "
                f"or compute a new tensor ({name} = {name} + …) instead of changing it in place")
    if message.startswith("one of the variables needed for gradient computation"):
        return ("a tensor saved for backward was changed in place after it was used; use an "
                "out-of-place operation (b = b * 2 instead of b.mul_(2)) or clone() it first")
    if message == messages.NUMPY_REQUIRES_GRAD:
        name = _receiver(line, "numpy") or "t"
        return f"call {name}.detach().numpy() to get the values without the graph"
    if message.startswith("element 0 of tensors does not require grad"):
        name = _receiver(line, "backward") or "the output"
        return (f"{name} does not require grad: no input of it was created with "
                f"requires_grad=True (or it was computed under no_grad / from detached tensors)")
    if message.startswith("One of the differentiated Tensors appears to not have been used"):
        return "an input is not used to compute the output; pass allow_unused=True to get None for it"
    if error_type == "NameError":
        m = re.search(r"name '(\w+)' is not defined", message)
        names = sorted(k for k in namespace if not k.startswith("_"))
        if m:
            close = difflib.get_close_matches(m.group(1), names, n=3)
            if close:
                return f"did you mean {', '.join(close)}?"
            user = [k for k, v in namespace.items() if isinstance(v, Tensor)]
            if user:
                return f"your tensors: {', '.join(sorted(user))}"
    return None
