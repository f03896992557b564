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
