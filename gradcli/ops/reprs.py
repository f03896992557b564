"""How the op table's entries print: as PyTorch prints the function of each name."""

# How PyTorch prints the table's public functions: most are its C++ bindings, methods of
# torch._C._VariableFunctionsClass (`<built-in method sin of type object at 0x...>`); these are
# Python functions (torch's and torch.nn.functional's), torch._C._nn's functions (printed without
# an address) and legacy tensor classes.
PYTHON_FUNCTIONS = frozenset({
    "broadcast_tensors", "cdist", "einsum", "get_rng_state", "initial_seed", "manual_seed",
    "meshgrid", "norm", "seed", "set_rng_state", "split", "tensordot", "unique",
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "fold", "interpolate", "max_unpool1d", "max_unpool2d", "pad", "unfold"})
NN_FUNCTIONS = frozenset({"avg_pool2d", "avg_pool3d", "gelu", "one_hot", "softplus"})
LEGACY_CLASSES = frozenset({"BoolTensor", "DoubleTensor", "FloatTensor", "IntTensor",
                            "LongTensor"})


class _VariableFunctionsClass:
    """(What PyTorch's bindings are methods of: the address their repr shows.)"""


def printed(name, entry):
    """An op as PyTorch prints the function of that name (see PYTHON_FUNCTIONS)."""
    if name in PYTHON_FUNCTIONS:
        return f"<function {name} at {id(entry):#x}>"
    if name in NN_FUNCTIONS:
        return f"<built-in function {name}>"
    if name in LEGACY_CLASSES:
        return f"<class 'torch.{name}'>"
    return f"<built-in method {name} of type object at {id(_VariableFunctionsClass):#x}>"


# Tensor's methods that PyTorch writes in Python (torch/_tensor.py): a program's `x.backward`
# prints as a bound method; every other method of Tensor is its C binding's, which prints
# `<built-in method sin of Tensor object at 0x...>` (bound) and `<method 'sin' of
# 'torch._C.TensorBase' objects>` (Tensor.sin)
PYTHON_TENSOR_METHODS = frozenset({
    "backward", "dim_order", "eig", "index", "is_shared", "istft", "lstsq", "lu", "module_load",
    "norm", "register_hook", "register_post_accumulate_grad_hook", "reinforce", "resize",
    "resize_as", "share_memory_", "solve", "split", "stft", "storage", "storage_type",
    "symeig", "to_sparse_coo", "unflatten", "unique", "unique_consecutive"})


class Shown:
    """A value that prints as PyTorch prints what it stands for."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    __str__ = __repr__


def tensor_method_text(value):
    """How PyTorch prints value if it is a method of Tensor (bound to a tensor, or Tensor's
    own attribute) that is a C binding in PyTorch; else None."""
    from ..engine.tensor import Tensor
    name = getattr(value, "__name__", None)
    if not isinstance(name, str) or name.startswith("_") or name in PYTHON_TENSOR_METHODS:
        return None
    owner = getattr(value, "__self__", None)
    function = getattr(value, "__func__", value)
    while getattr(function, "__wrapped__", None) is not None:  # (a program's metered method)
        function = function.__wrapped__
    if getattr(Tensor, name, None) is not function and Tensor.__dict__.get(name) is not function:
        return None
    if isinstance(owner, Tensor):
        return f"<built-in method {name} of Tensor object at {id(owner):#x}>"
    if owner is None:
        return f"<method '{name}' of 'torch._C.TensorBase' objects>"
    return None


def builtin_method_text(value):
    """How PyTorch prints value if it is a method of a C++ object of PyTorch's: a tensor's
    (tensor_method_text), a graph node's (`<built-in method name of SumBackward0 object at
    0x...>`) or a torch.Size's; else None."""
    from ..engine.graph import Node
    from ..engine.torch_classes import Size
    owner = getattr(value, "__self__", None)
    name = getattr(value, "__name__", "")
    if isinstance(owner, (Node, Size)) and not name.startswith("_"):
        kind = "torch.Size" if isinstance(owner, Size) else type(owner).__name__
        return f"<built-in method {name} of {kind} object at {id(owner):#x}>"
    return tensor_method_text(value)


def printable(value):
    """value, or what prints as PyTorch prints it where Python's text would differ (a method
    of a tensor, a graph node, a torch.Size)."""
    if callable(value) and not isinstance(value, type):
        text = builtin_method_text(value)
        if text is not None:
            return Shown(text)
    return value
