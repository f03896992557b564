"""The Tensor: a NumPy array with PyTorch's autograd metadata.

Operations (arithmetic, math, reductions, shape, linear algebra) are attached as methods and
operators by the op table in `gradcli.ops`; this module holds only what is not an operation.
"""

import math
import types
import warnings
import weakref

import numpy as np

from . import dtypes, messages
from .dtypes import dtype as _dtype_cls
from .grad_mode import INFERENCE_REQUIRES_GRAD, INFERENCE_VERSION, InferenceCounter, InferenceMode
from .graph import AccumulateGrad, _add_hook, bind_tensor_class
from .random import Vmap
from .torch_classes import Device, Size, TorchClass, strided


class ElementLimit:
    """Tensors larger than this many elements are refused (runaway programs)."""
    limit = 100_000_000


def set_element_limit(n):
    ElementLimit.limit = int(n)


# The check of the tensors one op makes at once, a Python object each (unbind, split, chunk:
# as many as list(t) makes): the language's item limit, GRADCLI_MAX_ITEMS, when a session runs
# (gradcli.lang.limits.apply_element_limit)
PIECES_CHECK = [None]


def check_pieces(n):
    if PIECES_CHECK[0] is not None:
        PIECES_CHECK[0](n)
    return n


def check_numel(shape):
    n = _product(shape)
    if n > ElementLimit.limit:
        raise RuntimeError(messages.ELEMENT_LIMIT.format(numel=n, limit=ElementLimit.limit))
    return n


INT64_MAX = 2 ** 63 - 1


def _product(sizes):
    return math.prod(map(int, sizes))


def _overflows_int64(sizes):
    """Whether c10's safe_multiply_u64 of the sizes (unsigned 64 bits, in order) overflows on
    the way (a later 0 does not undo that) or ends past INT64_MAX."""
    n = 1
    for s in sizes:
        n *= int(s)
        if n >= 2 ** 64:
            return True
    return n > INT64_MAX


def check_new_sizes(shape, itemsize):
    """PyTorch's checks of a new contiguous tensor's sizes (empty, zeros, rand, ...): its
    storage's bytes, then its strides, each the product of the sizes after it (at least 1),
    in 64 bits; then gradcli's element limit and what NumPy holds."""
    if _overflows_int64((*shape, itemsize)):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    if _product(max(s, 1) for s in shape[1:]) > INT64_MAX:  # (the largest stride)
        raise RuntimeError("Stride calculation overflowed")
    check_holdable(shape, itemsize)


def check_numel_overflow(shape):
    """PyTorch's numel of a view's sizes (expand, view, reshape): 64 bits."""
    if _overflows_int64(shape):
        raise RuntimeError("numel: integer multiplication overflow")


def check_holdable(shape, itemsize):
    """The element limit, then what a NumPy array holds: its non-empty sizes' product in bytes
    within 2 ** 63 - 1 (PyTorch holds an empty tensor of sizes past that, gradcli cannot)."""
    check_numel(shape)
    if itemsize * _product(int(s) or 1 for s in shape) > INT64_MAX:
        raise RuntimeError(f"an empty tensor of size {list(shape)} is more than gradcli holds "
                           f"(a NumPy array's sizes span at most {INT64_MAX} bytes)")


def index_result_size(shape, key):
    """The elements of `a[key]` for an array of that shape (NumPy's indexing: the index arrays
    broadcast together, slices take their lengths, integers drop their dimension); None when
    NumPy will refuse the key itself."""
    key = key if type(key) is tuple else (key,)
    try:
        entries = [k if k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer))
                   else np.asarray(k) for k in key]
        used = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else
                   0 if k is None or k is Ellipsis else 1 for k in entries)
        size, dim, arrays = 1, 0, []
        for k in entries:
            if k is None:
                continue
            if k is Ellipsis:
                rest = max(len(shape) - used, 0)
                size *= _product(shape[dim:dim + rest])
                dim += rest
            elif dim >= len(shape):
                return None
            elif isinstance(k, slice):
                size *= len(range(*k.indices(shape[dim])))
                dim += 1
            elif isinstance(k, np.ndarray) and k.dtype == np.bool_:
                arrays.append((int(np.count_nonzero(k)),))
                dim += k.ndim
            elif isinstance(k, np.ndarray):
                arrays.append(k.shape)
                dim += 1
            else:
                dim += 1
        size *= _product(shape[dim:])
        if arrays:
            size *= _product(np.broadcast_shapes(*arrays))
        return size
    except (ValueError, TypeError, IndexError, OverflowError):
        return None  # (a key NumPy refuses: it says why)


def _vmap_refuses(message):
    """What PyTorch's vmap raises when its function reads a batched tensor's value."""
    raise RuntimeError(message)


def batched(t):
    """Whether t depends on the inputs a running vmap maps over (a BatchedTensor)."""
    return Vmap.levels and type(t) is BatchedSample


class Tensor(metaclass=TorchClass):
    """A multi-dimensional array that records the operations applied to it for autograd."""

    _torch_name = "torch.Tensor"

    # The five attributes every tensor sets are slots; the rest live in the instance dict with
    # these class-level defaults, so that making a tensor in an op is cheap.  The version counter
    # (`_vc`, a one-element list shared by views) is made on first use: most tensors are never
    # modified in place, and a tensor without one is at version 0.
    __slots__ = ("_data", "requires_grad_flag", "grad_fn", "_output_nr", "_vc", "__dict__",
                 "__weakref__")
    _grad = None
    _retains_grad = False
    _accum_ref = None
    _leaf_hooks = None
    _post_acc_hooks = None
    _fw = None
    _base = None
    _no_grad_view = False  # a view made in no_grad mode (PyTorch's CreationMeta::NO_GRAD_MODE)
    _multi_output_view = False  # an output of unbind/split, or a view of one (MULTI_OUTPUT_NODE)
    _grad_count = 0
    __array_priority__ = 1000

    def __init__(self, *args):
        """The legacy constructor: `Tensor([[1., 2.]])` (default dtype) or `Tensor(2, 3)`
        (uninitialised in PyTorch; zeros here)."""
        default = dtypes.get_default_dtype()
        if len(args) == 1 and not isinstance(args[0], int):
            data = to_array(args[0], default, legacy=True)
        else:
            check_numel(args)
            data = np.zeros(args, default.np)
        _init(self, data, None, 0, False)

    @staticmethod
    def _make(data, grad_fn, output_nr, requires_grad):
        """A tensor of data (every op's result): _init's checks and fields, without the call."""
        if type(data) is not np.ndarray:
            raise _not_storage(data)
        if data.size > ElementLimit.limit:
            check_numel(data.shape)
        t = _new_tensor(Tensor)
        t._data = data
        t.requires_grad_flag = requires_grad
        t.grad_fn = grad_fn
        t._output_nr = output_nr
        t._vc = InferenceMode.counter
        return t

    @property
    def _counter(self):
        """The version counter, shared with views: `_counter[0]` counts in-place changes."""
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
        return vc

    @_counter.setter
    def _counter(self, counter):
        self._vc = counter

    @property
    def _version(self):
        """How many in-place changes this tensor (or a view sharing its data) has had, as
        PyTorch's `x._version` shows it."""
        vc = self._vc
        if type(vc) is InferenceCounter:
            raise RuntimeError(INFERENCE_VERSION)
        return 0 if vc is None else vc[0]

    def is_inference(self):
        """Made in inference mode (or a view of such a tensor)."""
        return type(self._vc) is InferenceCounter

    # ------------------------------------------------------------------ autograd metadata
    @property
    def requires_grad(self):
        return self.requires_grad_flag

    @requires_grad.setter
    def requires_grad(self, value):
        if value and self.dtype.category < 2:
            raise RuntimeError(messages.ONLY_FLOAT_REQUIRES_GRAD)
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Set requires_grad in place on a leaf; returns self."""
        requires_grad = bool(requires_grad)
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(messages.ONLY_LEAF_REQUIRES_GRAD_FALSE)
        if requires_grad and self.dtype.category < 2:
            raise RuntimeError(messages.ONLY_FLOAT_REQUIRES_GRAD_METHOD)
        if requires_grad and type(self._vc) is InferenceCounter and not InferenceMode.enabled:
            raise RuntimeError(INFERENCE_REQUIRES_GRAD)
        self.requires_grad_flag = requires_grad
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(messages.NONLEAF_GRAD_ACCESS, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(messages.GRAD_ASSIGN_SIZE.format(
                    got=list(value._data.shape), expected=list(self._data.shape)))
            if value.dtype is not self.dtype:
                raise RuntimeError(messages.GRAD_ASSIGN_DTYPE.format(
                    got=dtypes.cpp_name(value),
                    expected=self.dtype.short))
        self._grad = value
        self._grad_count = 0 if value is None else self._grad_count

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in `.grad` during backward."""
        if not self.requires_grad:
            raise RuntimeError(messages.RETAIN_GRAD_NO_GRAD)
        if self.grad_fn is None or self._retains_grad:
            return
        self.grad_fn._retain(self._output_nr, weakref.ref(self))
        self._retains_grad = True

    @property
    def output_nr(self):
        return self._output_nr

    def _accumulator(self):
        """The leaf's AccumulateGrad node (None for a view made in no_grad mode: PyTorch gives
        it no gradient edge, so gradients stop there)."""
        if self._no_grad_view:
            return None
        acc = self._existing_accumulator()
        if acc is None:
            acc = AccumulateGrad(self)
            if self._leaf_hooks is not None:
                acc._set_leaf_hooks(self._leaf_hooks)
            if self._post_acc_hooks is not None:
                acc._hooked = True
            self._accum_ref = weakref.ref(acc)
        return acc

    def _existing_accumulator(self):
        return self._accum_ref() if self._accum_ref is not None else None

    def register_hook(self, hook):
        """Call hook(grad) whenever a gradient for this tensor is computed; the hook may return
        a replacement gradient.  Returns a handle whose remove() unregisters it."""
        if not self.requires_grad:
            raise RuntimeError(messages.HOOK_ON_NO_GRAD)
        if self.grad_fn is not None:
            return _add_hook(self.grad_fn._tensor_hook_dict(self._output_nr), hook)
        if self._leaf_hooks is None:
            self._leaf_hooks = {}
            acc = self._existing_accumulator()
            if acc is not None:
                acc._set_leaf_hooks(self._leaf_hooks)
        return _add_hook(self._leaf_hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call hook(tensor) after each backward pass that reaches this leaf, once its `.grad`
        is updated; the hook must return None.  Returns a handle whose remove() unregisters it."""
        if not self.requires_grad:
            raise RuntimeError(messages.HOOK_ON_NO_GRAD)
        if self.grad_fn is not None:
            raise RuntimeError(messages.POST_ACC_HOOK_NON_LEAF)
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
            acc = self._existing_accumulator()
            if acc is not None:
                acc._hooked = True
        return _add_hook(self._post_acc_hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the `.grad` of the graph's leaves."""
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A tensor sharing data and version counter with this one, outside the graph."""
        t = Tensor._make(self._data, None, 0, False)
        t._counter = self._counter
        if type(self) is BatchedSample:
            t.__class__ = BatchedSample
        return t

    def detach_(self):
        """Make this tensor a leaf that does not require grad, in place."""
        if self._base is not None:
            raise RuntimeError(messages.DETACH_VIEW_INPLACE)
        self.grad_fn = None
        self._output_nr = 0
        self.requires_grad_flag = False
        return self

    @property
    def data(self):
        t = Tensor._make(self._data, None, 0, False)
        if type(self._vc) is InferenceCounter:
            t._vc = self._vc
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        if self.requires_grad_flag and value._data.dtype.kind not in "fc":
            raise RuntimeError(messages.DATA_SET_NOT_FLOATING)
        self._data = value._data

    # ------------------------------------------------------------------ forward-mode AD
    @property
    def is_dual(self):
        return self._fw is not None

    # ------------------------------------------------------------------ metadata
    @property
    def dtype(self):
        return dtypes.BY_NUMPY.get(self._data.dtype) or dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_contiguous(self, memory_format=None):
        return self._data.flags.c_contiguous

    def stride(self, dim=None):
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    @property
    def device(self):
        return Device("cpu")

    @property
    def is_cuda(self):
        return False

    def cpu(self):
        return self

    @property
    def layout(self):
        return strided

    def storage_offset(self):
        """Where the tensor starts in its base's storage, in elements (0 for a base); for a
        view whose data (or whose base's data) was replaced, in its own storage."""
        base = self._base
        storage = (self if base is None else base).__dict__.get("_storage")
        if storage is not None:  # (a tensor torch.load made, or a view of one: its storage's)
            from .storage import geometry
            found = geometry(self._data, storage)
            if found is not None:
                return found[0]
        if base is None:
            return 0
        from .storage import geometry, own_geometry
        found = geometry(self._data, base._data)
        return (found if found is not None else own_geometry(self._data))[0]

    def data_ptr(self):
        """The address of the tensor's first element (0 for an empty tensor): tensors that
        share memory (`x.detach()`, a view at offset 0) share it, a clone has its own.  The
        storage's address is a fake one, the offset in it the real one (storage.fake_address:
        no program learns where the process's memory is)."""
        if not self._data.size:
            return 0
        from .storage import fake_address
        return fake_address(self._data)

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def type(self, dtype=None):
        """The tensor type name (`torch.FloatTensor`), or a copy converted to dtype."""
        if dtype is None:
            return "torch." + self.dtype.tensor_type
        types = {("torch." + d.tensor_type): d for d in dtypes.ALL}
        if isinstance(dtype, str):
            if dtype not in types:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = types[dtype]
        elif not isinstance(dtype, _dtype_cls):  # a legacy constructor: torch.DoubleTensor
            dtype = types.get(f"torch.{getattr(dtype, 'name', '')}", dtype)
        return self.to(dtype)

    # ------------------------------------------------------------------ conversion to Python
    def item(self):
        if batched(self):
            _vmap_refuses(messages.VMAP_ITEM)
        if self._data.size != 1:
            raise RuntimeError(messages.ITEM_NOT_ONE_ELEMENT.format(numel=self._data.size))
        return self._data.reshape(()).item()

    def tolist(self):
        if batched(self):
            _vmap_refuses(messages.VMAP_NO_STORAGE)
        return self._data.tolist()

    def numpy(self, force=False):
        """The tensor's data as a NumPy array sharing memory with it."""
        if batched(self):
            _vmap_refuses(messages.VMAP_NO_STORAGE)
        if self.requires_grad and not force:
            raise RuntimeError(messages.NUMPY_REQUIRES_GRAD)
        return self._data

    def __array__(self, dtype=None, copy=None):
        if batched(self):  # (NumPy reads the memory: `np.asarray(x)`, `x + a`, `np.sin(x)`)
            _vmap_refuses(messages.VMAP_NO_STORAGE)
        if self.requires_grad:
            raise RuntimeError(messages.NUMPY_REQUIRES_GRAD)
        return self._data if dtype is None else self._data.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """NumPy's result of a ufunc that met a tensor (`np.sin(t)`; `t + a` of an array a,
        which Tensor's operators leave to NumPy) back as a tensor, as PyTorch wraps it: a
        leaf sharing the array's memory, NumPy's dtype (bool as uint8, PyTorch's workaround),
        0-d results too.  (PyTorch's takes the array alone, which NumPy 2 warns about, a
        DeprecationWarning about PyTorch's code, not the program's: not repeated here.)"""
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        dtypes.from_numpy_dtype(array.dtype)  # (TypeError for a dtype PyTorch has not)
        return Tensor._make(array, None, 0, False)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError(messages.LEN_ZERO_DIM)
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError(messages.ZERO_DIM_ITER)
        return iter(self.unbind(0))  # as PyTorch: the rows share one UnbindBackward0

    def __bool__(self):
        if batched(self):
            _vmap_refuses(messages.VMAP_CONTROL_FLOW)
        if self._data.size != 1:
            raise RuntimeError(messages.BOOL_AMBIGUOUS)
        return bool(self._data.reshape(()).item())

    def _scalar(self, warn=True):
        """The one element, for float(), int() and complex() (PyTorch's wording; float() and
        complex() warn about requires_grad, int() does not)."""
        if batched(self):
            _vmap_refuses(messages.VMAP_ITEM)
        if warn and self.requires_grad_flag and not Tensor._warned_scalar:
            Tensor._warned_scalar = True  # a C++ warning PyTorch gives once per process
            warnings.warn(messages.SCALAR_REQUIRES_GRAD, UserWarning, stacklevel=3)
        if self._data.size != 1:
            raise ValueError(messages.SCALAR_NOT_ONE_ELEMENT)
        return self._data.reshape(()).item()

    _warned_scalar = False

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar(warn=False))

    def __complex__(self):
        return complex(self._scalar())

    def __index__(self):
        if batched(self):
            _vmap_refuses(messages.VMAP_ITEM)
        if self.dtype.category != 1 or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()).item())

    __hash__ = object.__hash__

    def __contains__(self, element):
        """`element in t`, of a tensor (which broadcasts: compared by the op, whose result the
        element limit checks) or a number, as PyTorch's."""
        if batched(self):
            _vmap_refuses(messages.VMAP_ITEM)
        if isinstance(element, Tensor):
            return bool((element == self).any())  # (PyTorch's order: its error names element a)
        if not isinstance(element, (bool, int, float, complex, np.bool_, np.number)):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element)}.")
        return bool((self._data == element).any())

    # ------------------------------------------------------------------ printing
    def __repr__(self):
        from .printing import format_tensor
        try:
            fn = self.grad_fn
            name = None if fn is None else fn.name().rsplit("::", 1)[-1]
        except RuntimeError:  # a stale view made in no_grad mode: PyTorch prints this
            name = "Invalid"
        tangent = self._fw._data if self._fw is not None else None
        return format_tensor(self._data, dtype_name=self.dtype.name,
                             default_dtype_name=dtypes.get_default_dtype().name,
                             requires_grad=self.requires_grad_flag, grad_fn_name=name,
                             tangent=tangent)

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        if spec:  # object.__format__, as PyTorch falls back to
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)


def _not_storage(data):
    """(A tensor's memory is a NumPy array, whatever reached the constructors: a program's
    object posing as a tensor must not become one.)"""
    return TypeError(f"expected a tensor's data to be an array, not {type(data).__name__}")


_new_tensor = object.__new__


def _init(t, data, grad_fn, output_nr, requires_grad):
    """A tensor's fields (the constructors'; Tensor._make does the same inline): its data
    checked to be an array within the element limit (each op checks its result's size before
    it makes it; this is the net under them)."""
    if type(data) is not np.ndarray:
        raise _not_storage(data)
    if data.size > ElementLimit.limit:
        check_numel(data.shape)
    t._data = data
    t.requires_grad_flag = requires_grad
    t.grad_fn = grad_fn
    t._output_nr = output_nr
    t._vc = InferenceMode.counter


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _infer_dtype(value):
    """The dtype torch.tensor() gives nested Python data (bool < int < float)."""
    kind = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Tensor):
            return None
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, bool):
            continue
        elif isinstance(v, int):
            kind = max(kind, 1)
        elif isinstance(v, complex):
            kind = 3
        else:
            kind = max(kind, 2)
    return (dtypes.bool_, dtypes.int64, dtypes.get_default_dtype(),
            dtypes.complex64 if dtypes.get_default_dtype() is not dtypes.float64
            else dtypes.complex128)[kind]


def to_array(data, dtype=None, legacy=False):
    """Convert Python data, NumPy arrays or tensors to an array of dtype (inferred like
    torch.tensor when None)."""
    if isinstance(data, Tensor):
        arr = data._data
        return arr.astype(dtype.np) if dtype is not None else arr.copy()
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        arr = np.asarray(data)
        d = dtype or dtypes.from_numpy_dtype(arr.dtype)
        check_numel(arr.shape)
        return np.array(arr, dtype=d.np)
    if isinstance(data, (str, bytes)) or data is None or isinstance(data, dict):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, (list, tuple)):
        _check_nested(data)
    elif not isinstance(data, (int, float, bool, complex)):
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if dtype is None:
        dtype = _infer_dtype(data)
        if dtype is None:  # a sequence of tensors
            return _from_tensor_sequence(data)
    try:
        return np.array(_python_values(data), dtype=dtype.np)
    except OverflowError:
        if dtype.np.kind == "u":
            return dtypes.wrapped_unsigned(_python_values(data), dtype)
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow") from None



def _python_values(data):
    if isinstance(data, Tensor):
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.reshape(()).item()
    if isinstance(data, (list, tuple)):
        return [_python_values(v) for v in data]
    return data


def _from_tensor_sequence(data):
    values = _python_values(data)
    arr = np.array(values)
    kinds = [t.dtype for t in _flat_tensors(data)]
    d = kinds[0]
    for k in kinds[1:]:
        d = dtypes.promote_types(d, k)
    return arr.astype(d.np)


def _flat_tensors(data):
    if isinstance(data, Tensor):
        return [data]
    out = []
    for v in data:
        out.extend(_flat_tensors(v)) if isinstance(v, (list, tuple, Tensor)) else None
    return out


def _check_nested(data):
    """Ragged lists get PyTorch's ValueError instead of NumPy's object arrays."""
    def shape_of(v, depth):
        if isinstance(v, (list, tuple)):
            if depth > 64:
                raise ValueError("too many dimensions")
            inner = [shape_of(x, depth + 1) for x in v]
            for s in inner[1:]:
                if s != inner[0]:
                    if not s or not inner[0]:
                        raise TypeError("not a sequence")
                    raise ValueError(f"expected sequence of length {inner[0][0]} at dim "
                                     f"{depth + 1} (got {s[0]})")
            return (len(v),) + (inner[0] if inner else ())
        if isinstance(v, Tensor):
            return tuple(v._data.shape) if v._data.ndim else ()
        if isinstance(v, (int, float, bool, complex, np.generic)):
            return ()
        raise TypeError(f"new(): invalid data type '{type(v).__name__}'")
    check_numel(shape_of(data, 0))


def install_attribute(name, value):
    """Give Tensor the attribute `name`: the one way the layers above the engine add to it
    (gradcli.ops.install gives it every op's method and operator and the hand-written ones of
    gradcli.ops.tensor_methods); what the engine itself defines is in the class body, and is
    not replaced."""
    if name in ENGINE_ATTRIBUTES:
        raise TypeError(f"Tensor.{name} is the engine's own")
    if type(value) is types.FunctionType and not value.__qualname__.startswith("Tensor."):
        # (printed as a method of Tensor, `<bound method Tensor.sin of tensor(...)>`, not as
        # the factory that made it; an alias keeps the name of the method it shares)
        value.__qualname__ = f"Tensor.{name}"
        if value.__name__ == "method":
            value.__name__ = name
    setattr(Tensor, name, value)
    INSTALLED.add(name)


ENGINE_ATTRIBUTES = frozenset(Tensor.__dict__)  # the class body's
INSTALLED = set()  # the names install_attribute gave Tensor
bind_tensor_class(Tensor)  # (the tensors a float gradient becomes: graph.tensor_gradient)


class BatchedSample(Tensor):
    """A sample, inside torch.func.vmap, of a tensor that depends on the mapped inputs (what
    PyTorch's BatchedTensor is): reading its value is refused, as PyTorch refuses it.  vmap
    marks its inputs' samples so (mark_batched), and an op that reads one marks its results
    (gradcli.ops.registry), so tensors that do not depend on the mapped inputs stay readable."""

    _torch_name = "torch.Tensor"

    __slots__ = ()


BatchedSample.__name__ = BatchedSample.__qualname__ = "Tensor"


def check_batched_write(self, values):
    """An in-place write of a batched tensor into one that is not: PyTorch's vmap refuses it
    (self would have to grow a batch dimension)."""
    if Vmap.levels and type(self) is not BatchedSample and any(
            type(v) is BatchedSample for v in values):
        raise RuntimeError(messages.VMAP_INPLACE)


def mark_batched(tensors, inputs=None):
    """Make the plain tensors among `tensors` BatchedSamples (all of them, or, given `inputs`,
    when one of those is)."""
    if inputs is not None and not any(type(x) is BatchedSample for x in inputs):
        return
    for t in tensors:
        if type(t) is Tensor:
            t.__class__ = BatchedSample


def unmark_batched(tensors):
    for t in tensors:
        if type(t) is BatchedSample:
            t.__class__ = Tensor
