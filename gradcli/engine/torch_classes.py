"""How the engine's classes print (under the names of PyTorch's classes), and PyTorch's small
classes that describe a tensor: torch.Size, torch.device and torch.layout."""

import math
import operator


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


class Size(tuple, metaclass=TorchClass):
    """torch.Size: a tuple of ints printed as `torch.Size([2, 2])`; its slices, sums and
    repetitions are sizes too."""

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        if all(type(s) is int for s in sizes):
            return super().__new__(cls, sizes)
        return super().__new__(cls, map(_size_item, enumerate(sizes)))

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "torch.Size")
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, times):
        return Size(tuple(self) * times)

    __rmul__ = __mul__

    _torch_name = "torch.Size"

    def __repr__(self):
        return f"torch.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def numel(self):
        return math.prod(self)


def _size_item(numbered):
    i, s = numbered
    try:
        return operator.index(s)
    except TypeError:
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                        f"'{type(s).__name__}')") from None


class Device(metaclass=TorchClass):
    """torch.device; gradcli computes on the CPU only."""

    _torch_name = "torch.device"

    def __init__(self, kind="cpu", index=None):
        if isinstance(kind, Device):
            kind, index = kind.type, kind.index if index is None else index
        self.type, _, given = str(kind).partition(":")
        if self.type != "cpu":
            raise RuntimeError("gradcli runs on the CPU only: no device '" + str(kind) + "'")
        if given and index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was "
                               f"passed explicitly: {kind}")
        if given:
            if not given.isdigit():
                raise RuntimeError(f"Invalid device string: '{kind}'")
            index = int(given)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return str(self) == str(other)

    __hash__ = object.__hash__


class Layout(metaclass=TorchClass):
    """torch.layout: tensors here are all strided."""

    _torch_name = "torch.layout"

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


strided = Layout("strided")
