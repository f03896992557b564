"""torch.save and torch.load on a store in memory: gradcli writes and reads no file.

A program computes and prints, nothing else (README, "Safety and limits"), so `torch.save(obj,
f)` keeps a copy of obj under the path f in the running session's store (`Session`: a REPL
session keeps it across statements, `:reset` forgets it, a one-shot run at its exit; the Python
API has one store for its process), and `torch.load(f)` gives a fresh copy back, as PyTorch's
pickling round trip does: new tensors whose storages are shared as the saved ones' were (a view
saved with its base shares the loaded base's memory), at version 1, without grad or grad_fn
(a non-leaf comes back a leaf that requires grad); Parameters stay Parameters, an OrderedDict
an OrderedDict, and containers shared or cyclic stay so.  With `weights_only=True` (the default
of PyTorch 2.13) load refuses what PyTorch's weights-only unpickler refuses: a whole Module, an
object of the program's own class, a function, a NumPy array.  `io.BytesIO()` (gradcli's, a
facade holding copies rather than bytes) stands for a file in memory.

A directory is not modelled: any parent directory exists (no program can make one); a path
names a file unless it is empty or names a directory (`.`, `..`, a trailing `/`)."""

import collections
import os
import types

import numpy as np

from .engine import dtypes
from .engine.storage import geometry, root
from .engine.tensor import Tensor, _init, check_numel
from .engine.torch_classes import Device, Layout, Size
from .engine.torch_classes import TorchClass

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals"]


class UnpicklingError(Exception):
    """pickle's UnpicklingError, as torch.load raises it."""


UnpicklingError.__module__ = "_pickle"

WEIGHTS_ONLY = ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, do those steps only if you trust the source of the checkpoint.")
WEIGHTS_ONLY_EOF = ("Weights only load failed. In PyTorch 2.6, we changed the default value of "
                    "the `weights_only` argument in `torch.load` from `False` to `True`. "
                    "Re-running `torch.load` with `weights_only` set to `False` will likely "
                    "succeed, but it can result in arbitrary code execution. Do it only if you "
                    "got the file from a trusted source.")
NOT_A_FILE = ("expected 'f' to be string, path, or a file-like object with a 'write' "
              "attribute")
NOT_SEEKABLE = ("'{name}' object has no attribute 'seek'. You can only torch.load from a file "
                "that is seekable. Please pre-load the data into a buffer like io.BytesIO and "
                "try to load from it instead.")
CUDA_LOCATION = ("Attempting to deserialize object on a CUDA device but "
                 "torch.cuda.is_available() is False. If you are running on a CPU-only machine, "
                 "please use torch.load with map_location=torch.device('cpu') to map your "
                 "storages to the CPU.")


# ---------------------------------------------------------------------- the store

class Store:
    """The files of one session: a path's snapshot (a copy no program holds).  note(text) is
    told once, at the first save, that the files live in memory (PyTorch prints nothing, so
    neither does the program's output: the session's note goes to standard error)."""

    def __init__(self, note=None):
        self.files = {}
        self.note = note
        self.safe = []   # the classes and functions weights_only loads too (add_safe_globals)

    def keep(self, f, snapshot):
        if not self.files and self.note is not None:
            self.note(f"note: torch.save({f!r}) keeps the file in this session's memory "
                      f"(gradcli programs write no file)")
        self.files[_key(f)] = snapshot


def _stderr_note(text):
    import sys
    print(text, file=sys.stderr)


# the store save and load use: the running session's (Session sets it), else the process's
CURRENT = [Store(_stderr_note)]


def _key(f):
    """The store's key for the path f: its normal form ('./x.pt' and 'x.pt' are one file)."""
    return os.path.normpath(f)


def _is_directory(f):
    return f.endswith("/") or os.path.basename(_key(f)) in (".", "..") or _key(f) == "/"


# ---------------------------------------------------------------------- safe globals

def add_safe_globals(safe_globals):
    """Classes (and functions) whose objects torch.load(weights_only=True) loads too, in the
    running session (PyTorch's are its process's)."""
    safe = CURRENT[0].safe
    for item in list(safe_globals):
        if isinstance(item, tuple) and len(item) == 2:   # ((class, "its.full.name"))
            item = item[0]
        if item not in safe:
            safe.append(item)


def clear_safe_globals():
    CURRENT[0].safe.clear()


def get_safe_globals():
    return list(CURRENT[0].safe)


class safe_globals(metaclass=TorchClass):  # noqa: N801  (PyTorch's name)
    """`with torch.serialization.safe_globals([Box]):` add_safe_globals for the block."""

    _torch_name = "torch.serialization.safe_globals"

    def __init__(self, safe_globals):
        self._safe = list(safe_globals)
        self._before = None

    def __enter__(self):
        self._before = get_safe_globals()
        add_safe_globals(self._safe)

    def __exit__(self, *exc):
        CURRENT[0].safe[:] = self._before
        return False


# ---------------------------------------------------------------------- in-memory files

class BytesIO(metaclass=TorchClass):
    """io.BytesIO as programs have it: a file in memory that torch.save writes and torch.load
    reads, holding the saved copies themselves rather than their bytes (a program reads no
    bytes of it: `seek` to the start or the end, `close`)."""

    _torch_name = "_io.BytesIO"

    def __init__(self, initial_bytes=None):
        if initial_bytes is not None:
            raise TypeError("gradcli's io.BytesIO holds what torch.save writes: it takes no "
                            "initial bytes")
        self._records = []
        self._position = 0
        self._closed = False

    def _check_open(self):
        if self._closed:
            raise ValueError("I/O operation on closed file.")

    def seek(self, offset, whence=0):
        self._check_open()
        if whence not in (0, 1, 2):
            raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
        if offset != 0 or whence == 1:
            raise ValueError("gradcli's io.BytesIO seeks to its start (seek(0)) or its end "
                             "(seek(0, 2)) only")
        self._position = 0 if whence == 0 else len(self._records)
        return 0

    def seekable(self):
        self._check_open()
        return True

    def close(self):
        self._closed = True
        self._records = []

    @property
    def closed(self):
        return self._closed

    def __repr__(self):
        return f"<_io.BytesIO object at {id(self):#x}>"


# ---------------------------------------------------------------------- save and load

def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """torch.save: a copy of obj kept under the path f (or in the io.BytesIO f)."""
    if isinstance(f, BytesIO):
        f._check_open()
        snapshot = _Copier(for_load=False).copy(obj)
        del f._records[f._position:]
        f._records.append(snapshot)
        f._position = len(f._records)
        return None
    if isinstance(f, os.PathLike):
        f = os.fspath(f)
    if not isinstance(f, str):
        raise AttributeError(NOT_A_FILE)
    if not f or _is_directory(f):
        raise RuntimeError(f"[enforce fail at inline_container.cc:720] . invalid file name: {f}")
    snapshot = _Copier(for_load=False).copy(obj)
    CURRENT[0].keep(f, snapshot)
    return None


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """torch.load: a fresh copy of what save kept under the path f (or in the io.BytesIO f)."""
    weights_only = True if weights_only is None else bool(weights_only)
    unknown = set(pickle_load_args) - {"encoding", "errors"}
    if unknown:
        raise TypeError(f"load() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    _check_location(map_location)
    if isinstance(f, BytesIO):
        if mmap:
            raise ValueError("f must be a file path in order to use the mmap argument")
        f._check_open()
        if f._position >= len(f._records):
            if weights_only:
                raise UnpicklingError(WEIGHTS_ONLY_EOF)
            raise EOFError()
        snapshot = f._records[f._position]
        f._position += 1
    else:
        if isinstance(f, os.PathLike):
            f = os.fspath(f)
        if not isinstance(f, str):
            raise AttributeError(NOT_SEEKABLE.format(name=type(f).__name__))
        if f and _is_directory(f):
            raise IsADirectoryError(21, "Is a directory", f)
        files = CURRENT[0].files
        if not f or _key(f) not in files:
            raise FileNotFoundError(2, "No such file or directory", f)
        snapshot = files[_key(f)]
    if weights_only and _refused(snapshot, CURRENT[0].safe) is not None:
        raise UnpicklingError(WEIGHTS_ONLY)
    return _Copier(for_load=True).copy(snapshot)


def _check_location(location):
    """map_location: the CPU (None, 'cpu', torch.device('cpu'), a dict, a function) is where
    gradcli's tensors are; a CUDA device is refused as PyTorch refuses it without CUDA."""
    if location is None or callable(location) and not isinstance(location, (str, Device)):
        return
    if isinstance(location, dict):
        for target in location.values():
            _check_location(target)
        return
    if isinstance(location, Device):
        return
    if isinstance(location, str):
        if location.split(":")[0] == "cuda":
            raise RuntimeError(CUDA_LOCATION)
        if location != "cpu":
            raise RuntimeError(f"gradcli runs on the CPU only: no device '{location}'")
        return
    raise TypeError(f"map_location should be a string, a torch.device, a dict or a function, "
                    f"not {type(location).__name__}")


# ---------------------------------------------------------------------- copies

ATOMS = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis), range, slice,
         dtypes.dtype, Device, Layout, types.FunctionType, types.BuiltinFunctionType, type)
# what PyTorch's weights-only unpickler takes (besides tensors and Parameters)
WEIGHTS = frozenset({type(None), bool, int, float, complex, str, bytes, bytearray, list, tuple,
                     dict, collections.OrderedDict, set, Size, dtypes.dtype, Device, Layout})


class _Copier:
    """A deep copy as a pickling round trip makes it: memoised (shared and cyclic objects stay
    so), tensors rebuilt on copied storages (one copy of each storage), only the types listed
    here (anything else: pickle's `cannot pickle 'X' object`)."""

    def __init__(self, for_load):
        self.for_load = for_load
        self.memo = {}
        self.storages = {}   # id(saved storage) -> (saved storage, its copy)

    def copy(self, obj):
        try:
            return self._copy(obj)
        except RecursionError:
            raise RecursionError("maximum recursion depth exceeded while pickling an "
                                 "object") from None

    def _copy(self, obj):
        cls = type(obj)
        if cls in ATOMS or isinstance(obj, type) or _by_reference(obj):
            return obj
        found = self.memo.get(id(obj))
        if found is not None:
            return found[1]
        if isinstance(obj, Tensor):
            new = self._tensor(obj)
        elif cls is list:   # (plain loops: a C call that pulls a generator would recurse
            new = self._remember(obj, [])   # in C, where deep nesting overflows the stack)
            for item in obj:
                new.append(self._copy(item))
        elif cls is dict or cls is collections.OrderedDict:
            new = self._remember(obj, cls())
            for key, value in obj.items():
                new[self._copy(key)] = self._copy(value)
        elif cls is tuple or cls is Size:
            items = []
            for item in obj:
                items.append(self._copy(item))
            found = self.memo.get(id(obj))   # (a tuple in a cycle: made once its items are)
            if found is not None:
                return found[1]
            new = cls(items)
        elif cls is set or cls is frozenset:
            items = []
            for item in obj:
                items.append(self._copy(item))
            new = cls(items)
        elif cls is bytearray:
            new = bytearray(obj)
        elif cls is np.ndarray:
            new = self._array(obj)
        elif isinstance(obj, np.generic):
            return obj
        elif cls is types.MethodType:
            new = types.MethodType(obj.__func__, self._copy(obj.__self__))
        elif _copies_by_state(obj):
            new = self._remember(obj, object.__new__(cls))
            state = self._copy(obj.__dict__)
            new.__dict__.update(state)
            return new
        else:
            raise TypeError(f"cannot pickle '{_pickled_name(obj)}' object")
        return self._remember(obj, new)

    def _remember(self, obj, new):
        self.memo[id(obj)] = (obj, new)   # (obj kept: its id stays its own)
        return new

    def _array(self, array):
        """A copy of array laid out in a copy of its storage as it was in the saved one (the
        arrays of one storage share the copy)."""
        base = root(array)
        entry = self.storages.get(id(base))
        if entry is None:
            check_numel(base.shape)
            dense = base.flags.c_contiguous or base.flags.f_contiguous
            entry = self.storages[id(base)] = (base, base.copy(order="K") if dense else None)
        copied = entry[1]
        if copied is not None and copied.strides == base.strides:
            place = geometry(array, base)
            if place is not None:
                offset, strides = place
                flat = copied.reshape(-1, order="A")   # (its memory in order: a view)
                size = array.itemsize
                return np.ndarray(array.shape, array.dtype, flat, offset * size,
                                  tuple(s * size for s in strides))
        return array.copy(order="K")

    def _tensor(self, t):
        if type(t).__name__ == "BatchedSample":
            raise RuntimeError("torch.save cannot save a tensor that depends on the inputs "
                               "torch.func.vmap maps over")
        data = self._array(t._data)
        new = object.__new__(type(t))   # (a Parameter stays one, a program's subclass too)
        _init(new, data, None, 0, t.requires_grad)
        new._vc = [1] if self.for_load else [0]   # (load sets each tensor's storage: version 1)
        if self.for_load and data.base is not None:   # (in a copy of its storage: its offset)
            new.__dict__["_storage"] = root(data)
        self._remember(t, new)
        for key, value in t.__dict__.items():   # (a program's attributes, a Buffer's mark)
            if not key.startswith("_") or key == "_gradcli_buffer_persistent":
                new.__dict__[key] = self._copy(value)
        return new


def _by_reference(obj):
    """A function gradcli gives programs for PyTorch's or Python's (an op of the table, `max`,
    the session's `print`): kept, as pickle keeps a function by its name (copied, print's
    would have been the session itself: "cannot pickle 'Session' object")."""
    cls = type(obj)
    if cls is types.MethodType:
        cls = type(obj.__self__)
    elif not callable(obj):
        return False
    return isinstance(cls.__module__, str) and cls.__module__.startswith(("gradcli.ops",
                                                                         "gradcli.lang"))


def _parameter_class():
    from .nn.parameter import Parameter
    return Parameter


def _copies_by_state(obj):
    """Objects copied as pickle copies them, by their attributes: modules, optimizers, and
    objects of classes that are not gradcli's (a program's own)."""
    cls = type(obj)
    if cls.__new__ is not object.__new__ or not hasattr(obj, "__dict__"):
        return False
    if not cls.__module__.startswith("gradcli"):
        return True
    from .nn.module import Module
    from .optim import Optimizer
    return isinstance(obj, (Module, Optimizer))


def _pickled_name(obj):
    if isinstance(obj, types.ModuleType) or type(obj).__name__ in ("Facade", "LazyFacade"):
        return "module"
    cls = type(obj)
    return cls.__dict__.get("_torch_name", cls.__name__)


def _refused(snapshot, safe=()):
    """The first object of the snapshot that PyTorch's weights-only unpickler refuses (but an
    object of a class of `safe`, whose attributes it reads on, and what `safe` lists), or
    None."""
    safe_ids = {id(item) for item in safe}
    seen = set()
    todo = [snapshot]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        cls = type(obj)
        if cls is Tensor or cls is _parameter_class():
            todo.extend(obj.__dict__.values())
            continue
        if id(obj) in safe_ids:
            continue
        if id(cls) in safe_ids and hasattr(obj, "__dict__"):
            todo.extend(vars(obj).values())
            continue
        if cls not in WEIGHTS:
            return obj
        if cls is dict or cls is collections.OrderedDict:
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif cls in (list, tuple, set):
            todo.extend(obj)
    return None
