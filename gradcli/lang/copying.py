"""`import copy`: copy.copy and copy.deepcopy of what a program holds, as PyTorch copies it
(tensors by their own protocol: a leaf's clone, its grad and attributes, a non-leaf refused
with PyTorch's RuntimeError; Parameters as Parameters; modules, optimizers, schedulers and the
program's objects attribute by attribute; lists, tuples, dicts and sets item by item), and
nothing else: what Python could not pickle (a generator, a graph node, a module) is refused with
Python's TypeError, and so is every other object of the engine's, whose copy Python would make
by calling its class without its constructor.

Python's own copy.deepcopy is not called: it would reach each object's `__reduce_ex__`,
`__deepcopy__` and `__setstate__`, and keep the originals of everything it copied in its memo,
which a program's memo would hand back (a module's parameter registry among them)."""

import collections

import numpy as np

from .allowed import FUNCTION_TYPES, OPAQUE_TYPES, PROGRAM_CLASSES, HiddenClass


NON_LEAF = ("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
            "because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/103001")
SUBCLASS = ("The default implementation of __deepcopy__() for non-wrapper subclasses only works "
            "for subclass types that implement new_empty() and for which that function returns "
            "another instance of the same subclass. You should either properly implement "
            "new_empty() for your subclass or override __deepcopy__() if it is intended behavior "
            "for new_empty() to return an instance of a different type.")
ATOMIC = (type(None), bool, int, float, complex, str, bytes, type, range, slice,
          type(Ellipsis), type(NotImplemented), HiddenClass, np.generic, np.dtype,
          *FUNCTION_TYPES)
CONTAINERS = (list, tuple, dict, set, frozenset)


class Error(Exception):
    """copy.Error, as Python's copy module has it."""


Error.__module__ = "copy"


def _engine():
    """The classes copies are made of by their attributes, and Tensor and Parameter (torch.nn
    and torch.optim load at their first use: before that, nothing is an instance of theirs)."""
    import sys
    from ..engine.dtypes import dtype
    from ..engine.tensor import Tensor
    from ..engine.torch_classes import Device, Layout, Size
    classes = []
    for module, name in (("gradcli.nn.module", "Module"), ("gradcli.optim", "Optimizer"),
                         ("gradcli.optim.lr_scheduler", "LRScheduler")):
        loaded = sys.modules.get(module)
        if loaded is not None:
            classes.append(getattr(loaded, name))
    parameter = sys.modules.get("gradcli.nn.parameter")
    return (Tensor, getattr(parameter, "Parameter", ()), tuple(classes),
            (dtype, Device, Layout, Size))   # (immutable: copied as themselves)


def _refused(x):
    from .namespace import Facade
    return TypeError(f"cannot pickle '{'module' if isinstance(x, Facade) else type(x).__name__}' "
                     f"object")


def _by_attributes(x, engine_classes):
    """Is x copied attribute by attribute?  A module, an optimizer, a scheduler (the engine's or
    a program's subclass), or an object of a class the program made of its own classes alone
    (a copy of anything else of the engine's, a graph node, a PackedSequence, would be an
    object its constructor never checked)."""
    cls = type(x)
    if isinstance(x, BaseException) or not hasattr(x, "__dict__"):
        return False
    return isinstance(x, engine_classes) or \
        all(c in PROGRAM_CLASSES or c is object for c in cls.__mro__)


def copy(x):
    """copy.copy(x): a shallow copy."""
    cls = type(x)
    tensor, _, by_attributes, singletons = _engine()
    if isinstance(x, ATOMIC) or cls in OPAQUE_TYPES or isinstance(x, singletons) or \
            cls in (tuple, frozenset):
        return x
    if cls in (list, dict, set, collections.OrderedDict):
        return cls(x)
    if cls is collections.defaultdict:
        return collections.defaultdict(x.default_factory, x)
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, tensor):   # (PyTorch's shares the memory, a leaf)
        new = x.detach()
        new.requires_grad_(x.requires_grad)
        new.__dict__.update(_attributes(x))
        return new
    if isinstance(x, BaseException) and type(x).__module__ == "builtins" or \
            cls in PROGRAM_CLASSES and isinstance(x, BaseException):
        new = cls(*x.args)
        new.__dict__.update(vars(x))
        return new
    if _by_attributes(x, by_attributes):
        new = cls.__new__(cls)
        new.__dict__.update(vars(x))
        return new
    raise _refused(x)


def deepcopy(x, memo=None):
    """copy.deepcopy(x) (a memo of the program's is not taken: the copy keeps its own)."""
    if memo is not None:
        raise TypeError("copy.deepcopy(x, memo) is not supported in gradcli programs (call "
                        "copy.deepcopy(x))")
    return _Copier().copy(x)


class _Copier:
    """One deepcopy: the copies made so far, by the id of their original (kept alive here)."""

    def __init__(self):
        self.memo = {}
        self.originals = []
        self.tensor, self.parameter, self.by_attributes, self.singletons = _engine()

    def copy(self, x):
        found = self.memo.get(id(x))
        if found is not None:
            return found
        cls = type(x)
        if isinstance(x, ATOMIC) or cls in OPAQUE_TYPES or isinstance(x, self.singletons):
            return x
        if cls in CONTAINERS or cls in (collections.OrderedDict, collections.defaultdict):
            new = self.container(x)
        elif isinstance(x, np.ndarray):
            new = x.copy()
        elif isinstance(x, self.tensor):
            new = self.tensor_copy(x)
        elif isinstance(x, BaseException) and (cls.__module__ == "builtins" or
                                               cls in PROGRAM_CLASSES):
            new = cls(*self.copy(x.args))
            self.remember(x, new)
            new.__dict__.update(self.copy(vars(x)))
        elif _by_attributes(x, self.by_attributes):
            new = cls.__new__(cls)
            self.remember(x, new)
            new.__dict__.update(self.copy(vars(x)))
        else:
            raise _refused(x)
        return self.remember(x, new)

    def remember(self, x, new):
        self.memo[id(x)] = new
        self.originals.append(x)
        return new

    def container(self, x):
        cls = type(x)
        if cls is tuple or cls is frozenset:
            items = [self.copy(item) for item in x]
            found = self.memo.get(id(x))  # (a tuple that holds itself through a list)
            if found is not None:
                return found
            return x if all(a is b for a, b in zip(items, x)) else cls(items)
        if cls is list:
            new = self.remember(x, [])
            new.extend(self.copy(item) for item in x)
            return new
        if cls is set:
            return self.remember(x, {self.copy(item) for item in x})
        new = self.remember(x, collections.defaultdict(x.default_factory)
                            if cls is collections.defaultdict else cls())
        for key, value in x.items():
            new[self.copy(key)] = self.copy(value)
        return new

    def tensor_copy(self, x):
        """Tensor.__deepcopy__ (Parameter.__deepcopy__ for a Parameter: no grad)."""
        from ..engine.grad_mode import no_grad
        if not x.is_leaf:
            raise RuntimeError(NON_LEAF)
        with no_grad():
            data = x.clone()
        cls = type(x)
        if self.parameter and isinstance(x, self.parameter):
            new = cls.__new__(cls)
            self.parameter.__init__(new, data, x.requires_grad)
        elif cls in PROGRAM_CLASSES:
            raise RuntimeError(SUBCLASS)
        else:
            new = data
            new.requires_grad_(x.requires_grad)
        self.remember(x, new)
        if x.grad is not None and not isinstance(x, self.parameter or ()):
            new.grad = self.copy(x.grad)
        new.__dict__.update(self.copy(_attributes(x)))
        return new


def _attributes(tensor):
    """A tensor's attributes of Python (a program's, a buffer's mark), not the engine's state
    that its `__dict__` keeps (`_grad`, hooks, a view's base)."""
    return {k: v for k, v in vars(tensor).items() if not k.startswith("_")}


def facade_members():
    return {"copy": copy, "deepcopy": deepcopy, "Error": Error}
