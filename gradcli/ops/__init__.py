"""The op table.  Importing this package declares every op and attaches the Tensor methods,
operators and in-place variants derived from it."""

import re
from weakref import ref as _weakref

from numpy import ndarray

from ..engine import messages
from ..engine.grad_mode import GradMode, no_grad
from ..engine.tensor import Tensor, check_batched_write, install_attribute
from .arguments import method_words
from .entries import Pending
from .registry import ALIASES, OPS, Op, Overload, Sample

from . import arith, shape, creation, views  # noqa: E402,F401
from . import tensor_methods  # noqa: E402
# the other op modules (the reductions, PyTorch's backward functions, sorting, linalg, ...) load
# at their first use: gradcli.ops.lazy

# Python operator -> (op name, reflected).  PyTorch's __radd__ is __add__ and its __rmul__ is
# __mul__ (`2 * x` is mul(x, 2)); "swapped" says the program wrote the operands the other way
# round, which the node's recording notes for explain (`2 * x`, not `x * 2`)
OPERATORS = {
    "__add__": ("add", False), "__radd__": ("add", "swapped"),
    "__sub__": ("sub", False), "__rsub__": ("rsub", False),
    "__mul__": ("mul", False), "__rmul__": ("mul", "swapped"),
    "__truediv__": ("div", False), "__rtruediv__": ("rdiv", False),
    "__floordiv__": ("floor_divide", False), "__rfloordiv__": ("floor_divide", True),
    "__mod__": ("remainder", False), "__rmod__": ("remainder", True),
    "__pow__": ("pow", False), "__rpow__": ("pow", True),
    "__matmul__": ("matmul", False), "__rmatmul__": ("matmul", True),
    "__neg__": ("neg", False), "__pos__": ("positive", False), "__abs__": ("abs", False),
    "__invert__": ("bitwise_not", False),
    "__eq__": ("eq", False), "__ne__": ("ne", False), "__lt__": ("lt", False),
    "__le__": ("le", False), "__gt__": ("gt", False), "__ge__": ("ge", False),
    "__and__": ("bitwise_and", False), "__or__": ("bitwise_or", False),
    "__xor__": ("bitwise_xor", False), "__rand__": ("bitwise_and", True),
    "__ror__": ("bitwise_or", True), "__rxor__": ("bitwise_xor", True),
    "__getitem__": ("getitem", False),
}
INPLACE_OPERATORS = {"__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_",
                     "__itruediv__": "div_", "__ipow__": "pow_", "__ifloordiv__": "floor_divide_",
                     "__imod__": "remainder_", "__iand__": "bitwise_and_",
                     "__ior__": "bitwise_or_", "__ixor__": "bitwise_xor_"}


def _plain_call(op):
    """Whether calling op with all its inputs positionally and no attributes is exactly
    `op.apply(inputs, op.default_attrs)` (so methods and operators may go there directly)."""
    return (isinstance(op, Op) and type(op).__call__ is Op.__call__ and not op.variadic
            and op.default_attrs is not None)


def _method_error(e, name=None):
    """A TypeError raised for a method call, its argument positions counted without self as
    PyTorch counts them (`x.add('a')`: position 1), under the method's name if given (`add_`)."""
    text = re.sub(r"^(\w+)(\(\): argument '\w+' \(position )(\d+)\)",
                  lambda m: f"{name or m.group(1)}{m.group(2)}{int(m.group(3)) - 1})", str(e))
    text = method_words(text, name)
    return TypeError(text) if text != str(e) else e


def _refuse(e, op, name, args, kwargs):
    """Raise the error of a method call `tensor.name(*args, **kwargs)` that raised e: PyTorch's
    TypeError if its argument parser refuses the arguments (gradcli.ops.arg_errors), else e
    (a TypeError's argument positions counted as a method's)."""
    from .arg_errors import method_error
    error = method_error(op, name, args, kwargs, e)
    if error is e and isinstance(e, TypeError):
        error = _method_error(e, name if name != op.name else None)
    if error is e:
        raise e
    raise error from None


def _method(op):
    plain = _plain_call(op)
    if plain and op.n_inputs == 1:
        call, apply, defaults = op.call, op.apply, op.default_attrs
        if call is None:
            def call(a, attrs):
                return apply((a,), attrs)

        def method(self, *args, **kwargs):
            if args or kwargs:
                try:
                    return op(self, *args, **kwargs)
                except Exception as e:
                    _refuse(e, op, op.name, args, kwargs)
            return call(self, defaults)
    elif plain and op.n_inputs == 2:
        call, apply, defaults = op.call, op.apply, op.default_attrs
        if call is None:
            def call(a, b, attrs):
                return apply((a, b), attrs)

        def method(self, *args, **kwargs):
            try:
                if len(args) != 1 or kwargs:
                    return op(self, *args, **kwargs)
                return call(self, args[0], defaults)
            except Exception as e:
                _refuse(e, op, op.name, args, kwargs)
    else:
        def method(self, *args, **kwargs):
            try:
                return op(self, *args, **kwargs)
            except Exception as e:
                _refuse(e, op, op.name, args, kwargs)
    method.__name__ = op.name
    method.__doc__ = op.doc
    return method


def _operator(op, reflected):
    operator = _operator_of(op, reflected)
    return _array_as_tensor(operator) if op.name == "eq" else operator


def _operator_of(op, reflected):
    """The Python operator of op.  A binary operator that meets an operand it cannot take
    returns NotImplemented, as PyTorch's do, so Python says `unsupported operand type(s)`."""
    plain = _plain_call(op)
    if reflected == "swapped":
        if plain and op.n_inputs == 2 and op.operator_call is not None:
            return op.operator_variant(swapped=True)
        reflected = False
    if plain and op.n_inputs == 2 and not reflected and op.operator_call is not None:
        return op.operator_call  # operator_call(self, other, attrs=defaults): no wrapper
    if plain and op.n_inputs == 2:
        call, apply, defaults = op.call, op.apply, op.default_attrs
        if call is None:
            def call(a, b, attrs):
                return apply((a, b), attrs)
        if reflected:
            def operator(self, other):
                try:
                    return call(other, self, defaults)
                except TypeError:
                    return NotImplemented
        else:
            def operator(self, other):
                try:
                    return call(self, other, defaults)
                except TypeError:
                    return NotImplemented
    elif plain and op.n_inputs == 1 and not reflected:
        call, apply, defaults = op.call, op.apply, op.default_attrs
        if call is not None:
            return call  # call(self, attrs=defaults)
        else:
            def operator(self):
                return apply((self,), defaults)
    elif isinstance(op, Overload):  # `x / y`, `1 - x`, `x ** 2`: pick the op, call it directly
        callers = {}

        def operator(self, other):
            a, b = (other, self) if reflected else (self, other)
            try:
                chosen = op.choose(a, b)
                caller = callers.get(chosen)
                if caller is None:
                    caller = callers[chosen] = _binary_caller(chosen)
                return caller(a, b)
            except TypeError:
                return NotImplemented
    elif reflected:
        def operator(self, other):
            try:
                return op(other, self)
            except TypeError:
                return NotImplemented
    else:
        def operator(self, *args):
            if len(args) == 1:
                try:
                    return op(self, *args)
                except TypeError:
                    return NotImplemented
            return op(self, *args)
    return operator


def _array_as_tensor(operator):
    """PyTorch's `t == a` of a NumPy array a compares t with a as torch.from_numpy makes it (its
    dtype kept; an array of a dtype PyTorch has not is no tensor, and Python compares them as
    objects); its other operators leave an array to NumPy (which gives its result back through
    Tensor.__array_wrap__)."""
    from .creation import from_numpy

    def eq(self, other):
        if isinstance(other, ndarray):
            try:
                other = from_numpy(other)
            except TypeError:
                return NotImplemented
        return operator(self, other)
    return eq


def _not_implemented_on_type_error(method):
    """An in-place operator (`t += a`) from the in-place method: an operand it cannot take
    makes it return NotImplemented, as PyTorch's, so Python tries `t + a` (an array, which
    NumPy then adds) or says `unsupported operand type(s) for +=`."""
    def operator(self, other):
        try:
            return method(self, other)
        except TypeError:
            return NotImplemented
    return operator


def _binary_caller(op):
    """f(a, b): op on two inputs at its default attributes, by its fastest path."""
    if _plain_call(op) and op.n_inputs == 2:
        op.prepare()
        call, apply, defaults = op.call, op.apply, op.default_attrs
        if call is None:
            return lambda a, b: apply((a, b), defaults)
        return lambda a, b: call(a, b, defaults)
    return op


def _inplace(op, name=None):
    """The in-place variant `name_` (Tensor's attribute, by default the op's name and `_`):
    compute out of place, write the result into self, bump the version counter and make the
    op's node self's grad_fn (PyTorch's rebase_history)."""
    name = name or (op.name if op.name.endswith("_") else op.name + "_")

    def method(self, *args, **kwargs):
        try:
            return write(self, *args, **kwargs)
        except Exception as e:
            _refuse(e, op, name, args, kwargs)

    def write(self, *args, **kwargs):
        # (a loop, not any(): this module's globals hold the op table, `any` included)
        recording = False
        if GradMode.enabled:
            recording = self.requires_grad_flag
            for a in args:
                if isinstance(a, Tensor) and a.requires_grad_flag:
                    recording = True
        for a in args:
            if isinstance(a, Tensor) and a is not self:
                assert_no_partial_overlap(self._data, a._data)
        if recording:
            error = None
            base = self._base
            if self._no_grad_view:
                from .views import no_grad_view_error
                error = no_grad_view_error(self)
            elif self._multi_output_view:
                error = views.multi_output_view_error(self)
            elif self.grad_fn is None and self.requires_grad_flag:
                error = RuntimeError(messages.LEAF_INPLACE)
            elif base is not None and base.grad_fn is None and base.requires_grad_flag:
                error = RuntimeError(messages.VIEW_OF_LEAF_INPLACE)
            if error is not None:
                if isinstance(op, Op):  # (PyTorch parses the arguments first: a TypeError)
                    op.bind((self,) + args, dict(kwargs))
                raise error
            # (a composed op, square_ = pow_(2), saves what its ops save: self, maybe)
            keep = "self" in op.saves or getattr(op, "derived", False)
            source = Tensor._make(self._data.copy() if keep else self._data,
                                  self.grad_fn, self._output_nr, self.requires_grad_flag)
            source._fw = self._fw
            result = op(source, *args, **kwargs)
            if keep and source.requires_grad_flag:
                _save_original_self(result.grad_fn, source)
        else:
            with no_grad():
                result = op(self, *args, **kwargs)
        check_batched_write(self, args)
        _write_into(self, result, op.name)
        views.take_result(self, result, recording)
        if recording:
            node = result.grad_fn
            if getattr(node, "_saved_out", None) is not None:
                # the node saved its output (sigmoid_, exp_): that is self now
                vc = self._counter
                node._saved_out = (self._data, node._saved_out[1], vc, vc[0])
            if self._base is not None:  # a view: its base's history is rebased (CopySlices)
                views.rebase(self, result)
                if getattr(node, "_saved_out", None) is not None:
                    node._result_view = _weakref(self)
        views.regenerate(self, self if recording and self._base is not None else None)
        return self
    method.__name__ = name
    method.__doc__ = f"In-place {op.name}."
    return method


def _save_original_self(node, source):
    """PyTorch's original_self: an in-place op whose node saved self (its formula reads the
    input before the write: sin_, mul_, pow_, clamp_, hardtanh_, ...) saves `self.clone()`,
    made just after the node.  The node's edge stays self's node before the op; the saved self
    (a copy of the data before the write, `source`) becomes the clone: `_saved_self` shows
    grad_fn=<CloneBackward0>, and a double backward goes through that CloneBackward0."""
    saved = node._saved_in if node is not None else None
    if type(saved) is tuple and saved and saved[0] is source:
        original = OPS["clone"](source)
        source.grad_fn, source._output_nr = original.grad_fn, 0


def _write_into(self, result, name):
    out = result._data
    if out.shape != self._data.shape:
        try:
            import numpy as np
            if np.broadcast_shapes(out.shape, self._data.shape) != self._data.shape:
                raise ValueError
        except ValueError:
            raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the "
                               f"broadcast shape {list(out.shape)}") from None
    if out.dtype != self._data.dtype:
        src, dst = result.dtype, self.dtype
        if src.category > dst.category:
            raise RuntimeError(f"result type {src.short} can't be cast to the desired output "
                               f"type {dst.short}")
    data = self._data
    if not data.flags.writeable:
        data = _expanded_target(data, name)
    data[...] = out


INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.")


PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the "
                   "written-to tensor refer to a single memory location. Please clone() the "
                   "tensor before performing the operation.")


def assert_no_partial_overlap(a, b):
    """PyTorch's check before an op writes array a while it reads array b
    (assert_no_partial_overlap): refused when both are dense and non-overlapping, in the same
    memory, and share some elements but not all of them in the same order (the result would
    depend on the order the elements are written); anything harder to tell is let through,
    as PyTorch lets it through."""
    if a.size == 0 or b.size == 0 or not (_dense(a) and _dense(b)) or _owner(a) is not _owner(b):
        return
    from ..engine.storage import _address
    a_begin, b_begin = _address(a), _address(b)
    a_end, b_end = a_begin + a.nbytes, b_begin + b.nbytes
    if (a_begin, a_end) == (b_begin, b_end):
        if a.strides == b.strides or a.itemsize != b.itemsize:
            return
        raise RuntimeError(PARTIAL_OVERLAP)
    if a_begin < b_end and b_begin < a_end:
        raise RuntimeError(PARTIAL_OVERLAP)


def _owner(array):
    """The array that owns array's memory (the end of its chain of bases)."""
    while array.base is not None and hasattr(array.base, "base"):
        array = array.base
    return array if array.base is None else array.base


def _dense(array):
    """Whether array's elements fill a block of memory, each once (PyTorch's
    is_non_overlapping_and_dense): its strides, smallest first, are those of a contiguous
    array of its sizes in some order (axes of length 1 aside)."""
    size = array.itemsize
    axes = sorted((s, n) for n, s in zip(array.shape, array.strides) if n > 1)
    expected = size
    for stride, n in axes:
        if stride != expected:
            return False
        expected *= n
    return True


def _expanded_target(data, name):
    """Where an in-place op writes an expanded tensor (a read-only np.broadcast_to view): as
    PyTorch, refused when elements share memory (a stride 0 over more than one element), but
    for fill_ and zero_, which PyTorch lets write every alias with the one value; written
    through a writeable alias of the same memory otherwise."""
    overlap = 0 in [st if n > 1 else 1 for st, n in zip(data.strides, data.shape)]
    if overlap and name.split(".")[0] not in ("fill", "fill_", "zero"):
        raise RuntimeError(INTERNAL_OVERLAP)
    return writeable_alias(data)


def writeable_alias(data):
    """A writeable array over the memory of `data`, a read-only view (an expanded tensor's):
    through the first writeable array it views, at the same place."""
    import numpy as np
    base = data.base
    while isinstance(base, np.ndarray) and not base.flags.writeable:
        base = base.base
    if (isinstance(base, np.ndarray)
            and base.__array_interface__["data"][0] == data.__array_interface__["data"][0]):
        return np.lib.stride_tricks.as_strided(base, data.shape, data.strides)
    raise RuntimeError(INTERNAL_OVERLAP)


class _FirstUse:
    """A Tensor method or operator made at its first use, which then takes this placeholder's
    place on Tensor (so later calls find the function itself: no cost after the first).
    Making all ~600 of them, and preparing their ops, at import would cost a one-shot
    `gradcli eval` more than its parse and evaluation together."""

    __slots__ = ("name", "make")

    def __init__(self, name, make):
        self.name, self.make = name, make

    def __get__(self, obj, cls=None):
        install_attribute(self.name, self.make())
        return getattr(Tensor if obj is None else obj, self.name)

    def renamed(self, name):
        return _FirstUse(name, self.make)


RICH_COMPARISONS = frozenset(("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"))


def _FirstCall(name, make):  # noqa: N802  (a placeholder, as _FirstUse)
    """A comparison operator made at its first call rather than its first lookup: Python turns
    an error in the lookup of `__lt__` & co. (a program's RecursionError, Ctrl-C) into
    NotImplemented, and the program would meet "'<' not supported between instances of
    'Tensor' and 'int'"."""
    def first(self, other):
        install_attribute(name, make())
        return getattr(self, name)(other)
    first.__name__ = first.__qualname__ = name
    return first


def _made_with(factory, target, *args):
    """factory(target, *args), made once (aliases share the function, as `is` shows)."""
    made = []

    def make():
        if not made:
            if isinstance(target, Op):
                target.prepare()
            made.append(factory(target, *args))
        return made[0]
    return make


def _copy_attribute(source, name):
    """Tensor.name = Tensor.source, still made at first use if source is not made yet."""
    value = Tensor.__dict__[source]
    install_attribute(name, value.renamed(name) if isinstance(value, _FirstUse) else value)


def install(ops=None, aliases=None):
    """Attach methods, operators and in-place variants to Tensor from the table's entries
    `ops` and `aliases` (by default all that are declared; each made at its first use), and
    the first time the hand-written methods of tensor_methods: every Tensor attribute that is
    not the engine's own is installed here (a lazy op module's, when it loads: lazy.load)."""
    first = ops is None
    if first:
        ops = {name: op for name, op in OPS.items() if not isinstance(op, Pending)}
        aliases = ALIASES
    installed = set()

    def give(name, value):
        install_attribute(name, value)
        installed.add(name)
    for name, op in ops.items():
        if op.method:  # a function: the method's own argument order (Tensor.where)
            give(name, op.method if callable(op.method)
                 else _FirstUse(name, _made_with(_method, op)))
        if op.inplace:  # may name an op of its own: PyTorch's in-place node differs (fill_)
            target = op.inplace if isinstance(op.inplace, (Op, Overload)) else op
            give(name + "_", _FirstUse(name + "_", _made_with(
                _inplace if isinstance(target, Op) else _method_inplace, target, name + "_")))
    for name, target in aliases.items():
        for attr in (target, target + "_"):
            if attr in Tensor.__dict__:
                _copy_attribute(attr, attr.replace(target, name))
                installed.add(attr.replace(target, name))
    for dunder, (name, reflected) in OPERATORS.items():
        if name in ops:
            first_use = _FirstCall if dunder in RICH_COMPARISONS else _FirstUse
            install_attribute(dunder, first_use(dunder, _made_with(_operator, OPS[name],
                                                                  reflected)))
    for dunder, name in INPLACE_OPERATORS.items():
        if name in installed:
            install_attribute(dunder, _FirstUse(dunder, _made_with(
                lambda name: _not_implemented_on_type_error(getattr(Tensor, name)), name)))
    if not first:
        return
    for name, value in tensor_methods.hand_written(_FirstUse).items():
        if name in Tensor.__dict__:  # (one definition of each: the table's or the hand's)
            raise TypeError(f"Tensor.{name} is both an op's method and written by hand")
        install_attribute(name, value)


def _method_inplace(overload, name=None):
    def method(self, *args, **kwargs):
        op = overload.choose(self, *args, **kwargs)
        return _inplace(op, name)(self, *args, **kwargs)
    return method


install()
from . import lazy  # noqa: E402
if lazy.EAGER:
    lazy.load_all()
else:
    lazy.install_pending()

PUBLIC = {name: op for name, op in OPS.items() if op.public and op.function}
PUBLIC.update({name: OPS[target] for name, target in ALIASES.items()})
__all__ = ["OPS", "PUBLIC", "Op", "Overload", "Sample", "OPERATORS"] + list(PUBLIC)
globals().update(PUBLIC)
