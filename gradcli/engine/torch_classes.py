"""How the engine's classes print: under the names of PyTorch's classes."""


class TorchClass(type):
    """Metaclass of the engine classes a program can reach.  `repr(cls)` names PyTorch's class
    (`<class 'torch.Tensor'>`) while `cls.__module__` stays gradcli's: the sandbox tells the
    engine's classes by it.  A class gives PyTorch's name in `_torch_name`; one that does not
    prints its bare name, as PyTorch's graph nodes (C++ classes) do: `<class 'MulBackward0'>`;
    a class a program derives prints as Python prints it."""

    def __repr__(cls):
        if not cls.__module__.startswith("gradcli."):
            return type.__repr__(cls)
        return f"<class '{cls.__dict__.get('_torch_name', cls.__qualname__)}'>"


def torch_repr(obj):
    """`<torch.autograd.graph.saved_tensors_hooks object at 0x...>`: an engine object's default
    repr under its class's PyTorch name."""
    cls = type(obj)
    return f"<{cls.__dict__.get('_torch_name', cls.__qualname__)} object at {id(obj):#x}>"
