"""An op's backward node and what it saves: OpNode (and the slotted _PairNode classes of one-
and two-input ops), the saved values PyTorch's nodes show (`_saved_self`, `_raw_saved_self`,
RawSavedTensor), packing them for saved_tensors_hooks, and the kinds of value a derivative
formula reads (G, INPUT, RESULT, ATTR, SHAPE, DTYPE, SHAPES) that the dispatcher and the
forward mode share.  Imports nothing of the op table (gradcli.ops.registry builds on it)."""

import ast
import numbers

import numpy as np

from ..engine import dtypes, messages
from ..engine.grad_mode import GradMode, InferenceMode
from ..engine.graph import RELEASED, UNARY as _UNARY, Node
from ..engine.saved import PackedTensor, version_error
from ..engine.tangents import ForwardAD, set_tangent as _set_tangent
from ..engine.tensor import Tensor
from ..engine.torch_classes import TorchClass, torch_repr
from . import derivatives


G, INPUT, RESULT, ATTR, SHAPE, DTYPE, SHAPES = range(7)
# dtype rules: promote the inputs (PyTorch's result_type), a fixed dtype, or the forward's own
_PROMOTE, _FIXED, _AS_IS = "promote", "fixed", "as is"


def _pack_saved(node, op, result):
    """Hand what node saved to the pack hook of the innermost saved_tensors_hooks, in PyTorch's
    order (the order the formulas name them), and keep what it returns instead."""
    saved = node._saved_in
    names = [n.lstrip("*") for n in op.inputs]
    for name in op.saves:
        if name == "result":
            if node._saved_out is not None:
                _put_packed(node, RESULT, 0, PackedTensor(result, output=True))
        elif saved is not None and saved is not RELEASED:
            for j in (range(len(saved)) if op.variadic else (names.index(name),)):
                if isinstance(saved[j], Tensor):
                    _put_packed(node, INPUT, j, PackedTensor(saved[j]))


def _put_packed(node, kind, index, packed):
    """Keep PackedTensor packed in place of node's saved output (kind RESULT) or its saved
    input index.  Its unpack hook runs when the node does: the engine's slow path (_hooked)."""
    node._hooked = True
    if kind == RESULT:
        node._saved_out = (packed, node._saved_out[1], None, None)
    else:
        values = list(node._saved_in)
        values[index] = packed
        node._saved_in = tuple(values)
_Tensor = Tensor
_new_tensor = Tensor.__new__
_make = Tensor._make  # (a result: data, grad_fn, output_nr, requires_grad)
_INFERENCE = InferenceMode  # (its counter: None, or inference tensors' in inference mode)
_array = np.array
_new_node = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray
_BOOL = np.dtype(np.bool_)
_LONG = np.dtype(np.int64)
_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)


_INTERNAL_SAVED = frozenset(("_saved_in", "_saved_out", "_saved_ver",   # (not in dir())
                             "_savedvalue", "_savedvalue_input"))


def saved_value_properties(op):
    """The `_saved_<name>` (and, for tensors, `_raw_saved_<name>`) properties of op's node
    class: one per parameter its formulas read, named as PyTorch's nodes name them."""
    names = [n.lstrip("*") for n in op.inputs]
    props = {}
    for entry in op.vjps:
        for kind, idx in (entry[1] if entry is not None else ()):
            name = ("_saved_" + names[idx] if kind == INPUT else
                    ("_saved_result" if op.n_outputs == 1 else "_saved_result0")
                    if kind == RESULT else "_saved_" + op.attr_names[idx] if kind == ATTR
                    else "_saved_" + names[idx] + "_sym_sizes" if kind == SHAPE else None)
            if name is None or name in props or name[7:] in op.hidden_saved:
                continue
            props[name] = property(lambda node, n=name, k=kind, i=idx: node._savedvalue(n, k, i))
            if kind in (INPUT, RESULT):
                props["_raw" + name] = property(
                    lambda node, k=kind, i=idx: RawSavedTensor(node, k, i))
    for name, fn in op.extra_saved.items():
        props[name] = property(fn)
    props["_exposed_saved"] = frozenset(props)
    return props


class RawSavedTensor(metaclass=TorchClass):
    """`grad_fn._raw_saved_<name>`: one tensor a node saved, to give hooks of its own
    (register_hooks(pack_hook, unpack_hook): pack_hook runs at once, unpack_hook whenever the
    saved tensor is read)."""

    _torch_name = "torch._C._autograd.SavedTensor"
    __slots__ = ("_node", "_kind", "_index")

    def __init__(self, node, kind, index):
        self._node, self._kind, self._index = node, kind, index

    __repr__ = torch_repr

    def _kept(self):
        """What the node keeps for this saved tensor: the tensor (or number), the saved output's
        array, a PackedTensor once hooks packed it, None where it saved nothing, RELEASED after
        a backward pass freed it."""
        node = self._node
        saved = node._saved_in
        if saved is RELEASED:
            return RELEASED
        if self._kind == RESULT:
            out = node._saved_out
            return None if out is None else out[0]
        return None if saved is None else saved[self._index]

    @property
    def data(self):
        """The saved tensor as the node keeps it, without unpacking: what pack_hook returned
        once hooks packed it; a saved output's data without autograd history; None where
        nothing was saved or after a backward pass freed it (PyTorch's SavedTensor.data)."""
        value = self._kept()
        if value is RELEASED or value is None:
            return None
        if type(value) is PackedTensor:
            return value.value
        if self._kind == RESULT:
            return Tensor._make(value, None, 0, False)
        if self._node.op.variadic:  # (einsum's operands: all of them, as _saved_operands)
            return list(self._node._saved_in)
        if isinstance(value, Tensor):
            return value
        return self._node._savedvalue_input(self._index)  # a number: as _saved_<name> shows it

    @property
    def unpack_hook(self):
        """The unpack hook of the hooks that packed this saved tensor, or None."""
        value = self._kept()
        return value.unpack_hook if type(value) is PackedTensor else None

    def unpack(self):
        """The saved tensor, unpacked as the backward pass unpacks it (version check, unpack
        hook).  PyTorch cannot unpack a saved output without its node here, and says so with
        the error of a tensor detached in place; a freed one is the error of a second
        backward pass."""
        if self._kind != RESULT:
            return self._node._savedvalue_input(self._index)
        value = self._kept()
        if value is RELEASED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        if value is not None:
            raise RuntimeError(messages.RAW_SAVED_OUTPUT_UNPACK)
        return None

    def register_hooks(self, *hooks):
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {', '.join(map(repr, (self,) + hooks))}")
        node = self._node
        value = self._kept()
        if value is RELEASED:
            raise RuntimeError(messages.RAW_SAVED_FREED)
        if type(value) is PackedTensor:
            raise RuntimeError(messages.RAW_SAVED_HOOKS_TWICE)
        if value is None:
            raise RuntimeError(messages.RAW_SAVED_NONE)
        # pack_hook gets the saved tensor's data (no autograd history), as PyTorch's does
        if self._kind == RESULT:
            packed = PackedTensor(node._unpack_result().detach(), output=True, hooks=hooks)
        else:
            tensor = node._savedvalue_input(self._index)  # (a number: its wrapped tensor)
            packed = PackedTensor(tensor.detach(), hooks=hooks, place=tensor)
        _put_packed(node, self._kind, self._index, packed)


# ops whose `dim` is a list in PyTorch's schema (int[1]? dim): `_saved_dim` shows a tuple
_DIM_LISTS = frozenset(("sum.dim_IntList", "mean.dim", "amax", "amin", "var", "std", "logsumexp",
                        "linalg_vector_norm", "std_mean", "var_mean", "nansum", "nanmean",
                        "count_nonzero"))


POINTWISE = frozenset({"elementwise", "binary"})   # the kinds of ops whose output is their
#                                                    inputs broadcast


def _reduced(shape, dim, keepdim):
    """The shape a reduction over dim (None or () for all, an int or a list) leaves."""
    n = len(shape)
    dims = range(n) if dim is None or dim == () or dim == [] else \
        [dim] if isinstance(dim, int) else list(dim)
    dims = {d % n if n else 0 for d in dims}
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


class OpNode(Node):
    """The grad_fn of an op's outputs; one subclass per op, named like PyTorch's.

    `_saved_in` holds the saved inputs aligned with the op's inputs (None where nothing is
    saved; RELEASED after a backward pass), `_saved_ver` their versions when one was not 0,
    `_saved_out` the saved output as (array, output_nr, version counter, version), `_meta` the
    shape and dtype of each input, flat.  (The nodes of one- and two-input ops keep their edges
    and saved inputs in slots: _PairNode.)"""

    __slots__ = ("_attrs", "_meta", "_saved_in", "_saved_out")
    num_outputs = 1
    _saved_ver = None
    # an op in place on a view that saved its output (exp_): a weak reference to the view,
    # whose history the saved output takes when unpacked (PyTorch's is_inplace_on_view
    # SavedVariable: the view's grad_fn, AsStridedBackward0 after the write, not this node)
    _result_view = None

    def output_meta(self, nr):
        """(shape, NumPy dtype) of output nr where the node tells it without keeping it (PyTorch
        keeps every output's, its input_metadata): the result it saved, or a pointwise op's
        inputs broadcast, when they share a dtype; None otherwise."""
        saved = self._saved_out
        if saved is not None and saved[1] == nr and type(saved[0]) is np.ndarray:
            return saved[0].shape, saved[0].dtype
        op, meta = self.op, self._meta
        if nr or meta is None:
            return None
        attrs = dict(zip(op.attr_names, self._attrs or ()))
        if op.kind == "reduction" and ("keepdim" in attrs or op.name.endswith(".default")):
            dtype = attrs.get("dtype")
            return (_reduced(meta[0], attrs.get("dim"), attrs.get("keepdim", False)),
                    meta[1] if dtype is None else dtype.np)
        if op.kind not in POINTWISE or op.dtype_rule not in ("promote", "same", "float"):
            return None
        shapes = [s for s in meta[0::2] if s is not None]
        kinds = {d for d in meta[1::2] if d is not None}
        if not shapes or len(kinds) != 1:
            return None
        return np.broadcast_shapes(*shapes), kinds.pop()

    def release(self):
        if self._saved_in is not None or self._saved_out is not None:
            self._saved_in = RELEASED
            self._saved_out = None

    def saved_values(self):
        """The values saved for backward, by name (for display and `_saved_*` inspection)."""
        if self._saved_in is RELEASED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        names = [n.lstrip("*") for n in self.op.inputs]
        out = {}
        if self._saved_in is not None:
            if self.op.variadic:
                out[names[0]] = self._unpack_all()
            else:
                for i, name in enumerate(names):
                    if self._saved_in[i] is not None:
                        out[name] = self._unpack(i)
        if self._saved_out is not None:
            out["result"] = self._unpack_result()
        return out

    # `grad_fn._saved_<name>` and `_raw_saved_<name>` are properties of each op's node class
    # (saved_value_properties), not a __getattr__: a class with __getattr__ makes CPython look
    # up every attribute of its instances the slow way, and nodes are read on every op
    _exposed_saved = frozenset()

    def _savedvalue(self, name, kind, idx):
        """PyTorch's `grad_fn._saved_<name>`: what the op's formulas read, by their parameter
        names: a saved input (`_saved_self`, `_saved_other`: the tensor itself, a Python
        number as PyTorch's wrapped 0-d tensor, None where this node did not need to save
        it), the saved output (`_saved_result`), an attribute (`_saved_dim`,
        `_saved_exponent`), an input's shape (`_saved_self_sym_sizes`).  Saved tensors are
        gone after a backward pass without retain_graph; attributes and shapes stay."""
        if kind == INPUT:
            return self._savedvalue_input(idx)
        if kind == RESULT:
            if self._saved_in is RELEASED:
                raise RuntimeError(messages.BACKWARD_TWICE)
            return None if self._saved_out is None else self._unpack_result()
        if kind == ATTR:
            value = self._attrs[idx]
            if name == "_saved_dim" and self.op.name in _DIM_LISTS and isinstance(value, int):
                value = (value,)
            if self.op.shown_saved is not None:
                value = self.op.shown_saved(name, self._attrs, value)
            return value
        return self._meta[2 * idx]  # SHAPE

    def saved_attribute(self, name):
        """node.<name> for a `_saved_*` or `_raw_saved_*` name this node has (the sandbox's
        way to it), else PyTorch's AttributeError."""
        if name not in self._exposed_saved:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) - _INTERNAL_SAVED)

    def _savedvalue_input(self, i):
        saved = self._saved_in
        if saved is RELEASED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        if saved is None:
            return None
        if self.op.variadic:
            return self._unpack_all()
        x = saved[i]
        if x is None:
            return None
        if isinstance(x, Tensor) or type(x) is PackedTensor:
            return self._unpack(i)
        if "Scalar" in self.op.name:  # a Scalar argument of PyTorch's (pow.Tensor_Scalar)
            return x
        # a number for a Tensor argument: the 0-d tensor PyTorch wraps it in (int64, float64)
        return Tensor._make(np.asarray(x), None, 0, False)

    def _unpack(self, i):
        """Saved input i, checked against in-place changes since it was saved."""
        x = self._saved_in[i]
        if type(x) is PackedTensor:  # (saved_tensors_hooks: no version check, as PyTorch's)
            return x.unpack()
        if type(x) is _Tensor or isinstance(x, Tensor):
            vc = x._vc
            if vc is not None:
                saved = 0 if self._saved_ver is None else self._saved_ver[i]
                if vc[0] != saved:
                    raise version_error(x.dtype.tensor_type, x._data.shape, x.grad_fn,
                                        x._output_nr, vc[0], saved)
        return x

    def _unpack_all(self):
        return [self._unpack(i) for i in range(len(self._saved_in))]

    def _unpack_result(self):
        """The saved output, as a tensor whose grad_fn is this node (made anew: the node does not
        keep its own output alive, which would be a reference cycle)."""
        data, nr, vc, saved, *tangent = self._saved_out
        if type(data) is PackedTensor:
            return data.unpack(self)
        if vc[0] != saved:
            raise version_error(dtypes.from_numpy_dtype(data.dtype).tensor_type, data.shape,
                                self, nr, vc[0], saved)
        t = _new_tensor(_Tensor)
        t._data = data
        t.grad_fn = self
        t._output_nr = nr
        if self._result_view is not None:
            view = self._result_view()
            if view is not None and view.grad_fn is not None:
                t.grad_fn, t._output_nr = view.grad_fn, view._output_nr
        t.requires_grad_flag = True
        t._vc = vc
        if tangent and ForwardAD.level is not None:  # forward-over-reverse: a dual output
            _set_tangent(t, tangent[0])
        return t

    def _resolve(self, kinds, g):
        args = []
        for kind, idx in kinds:
            if kind == G:
                args.append(g)
            elif kind == INPUT:
                args.append(self._unpack_all() if self.op.variadic else self._unpack(idx))
            elif kind == RESULT:
                args.append(self._unpack_result())
            elif kind == ATTR:
                args.append(self._attrs[idx])
            elif kind == SHAPE:
                args.append(self._meta[2 * idx])
            elif kind == DTYPE:
                args.append(dtypes.from_numpy_dtype(self._meta[2 * idx + 1]))
            else:
                args.append(list(self._meta[0::2]))
        return args

    def apply(self, grads):
        op = self.op
        if self._saved_in is RELEASED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        if op.n_outputs == 1:
            g = grads[0]
        else:
            g = list(grads) if op.undefined_grads else [
                gr if gr is not None else _zeros_for(self, nr) for nr, gr in enumerate(grads)]
        fns = self._next_fns if op.edge_index is None else self._input_fns
        if op.per_input:
            saved = self._saved_out
            if (op.check_result and saved is not None and type(saved[0]) is not PackedTensor
                    and saved[2][0] != saved[3]):
                self._unpack_result()  # (raises PyTorch's error: see Op.check_result)
            vjps = op.vjps
            n = min(len(fns), len(vjps))
            out = [None] * n
            # PyTorch's order, its derivatives' names sorted, when the formulas make nodes (a
            # create_graph backward: the order of their sequence numbers); else the inputs'
            # order, in which PyTorch unpacks what the node saved (saved_tensors_hooks' unpack
            # hooks, the first version-counter error)
            for i in op.formula_order if GradMode.enabled else range(n):
                entry = vjps[i] if i < n else None
                if entry is not None and fns[i] is not None:
                    fn, kinds = entry
                    out[i] = fn(*self._resolve(kinds, g))
        else:
            fn, kinds = op.vjps[0]
            out = fn(*self._resolve(kinds, g))
            if not op.variadic and len(fns) == 1:
                out = [out]
            else:
                out = list(out)
        meta = self._meta
        for i, gi in enumerate(out):
            if gi is None:
                continue
            if fns[i] is None:
                out[i] = None
                continue
            d = gi._data
            shape = meta[2 * i]
            if d.shape != shape:
                gi = _reduce_to(self, i, gi, shape)
                d = gi._data
            dt = meta[2 * i + 1]
            if d.dtype is not dt and d.dtype != dt:
                gi = gi.to(dtypes.from_numpy_dtype(dt))
            out[i] = gi
        if op.edge_index is not None:
            return [out[i] for i in op.edge_index]
        return out



class _PairNode(OpNode):
    """The node of a one- or two-input op with one output (most nodes), made so that a node
    of a long graph is one object for Python's cyclic garbage collector instead of three: each
    full collection walks every tracked object, and along a 100,000-op chain the tuples of
    child nodes and of saved inputs were two thirds of them.  The fast path of the forward
    pass (`_specialised_apply`) leaves `_next_fns` None and keeps the child nodes in `_fn_a`,
    `_fn_b` (`_fn_b` is `_UNARY` for a one-input op); the backward pass's first walk (or
    backward._run_by_sequence, reaching the node), or `next_functions`, makes the tuple when
    it is needed (the collector is paused during a pass).  Saved inputs live in `_held_a`,
    `_held_b`, read only when `_held_state` is 1 (None: nothing saved; RELEASED: freed by a
    backward pass); `_saved_in` gives and takes the tuple the generic code uses."""

    __slots__ = ("_fn_a", "_fn_b", "_held_a", "_held_b", "_held_state")

    def _get_saved(self):
        st = self._held_state
        if st is None or st is RELEASED:
            return st
        return (self._held_a,) if self._one_input else (self._held_a, self._held_b)

    def _set_saved(self, saved):
        if saved is None or saved is RELEASED:
            self._held_state = saved
            self._held_a = self._held_b = None
        else:
            self._held_state = 1
            self._held_a = saved[0]
            self._held_b = saved[1] if len(saved) > 1 else None

    _saved_in = property(_get_saved, _set_saved)

    def _build_edges(self):
        fb = self._fn_b
        return (self._fn_a,) if fb is _UNARY else (self._fn_a, fb)

    def release(self):
        if self._held_state is not None or self._saved_out is not None:
            self._held_state = RELEASED
            self._held_a = self._held_b = self._saved_out = None

    _takes = None  # per node class: whether each input's formula takes its gradient

    def takes_gradient(self):
        """Whether the one formula of this node that runs (one input has an edge) may be
        offered its gradient's array (engine.backward.Donation): it reads the gradient once,
        as an operand of + - * /, or returns it as it is (takes_gradient)."""
        cls = type(self)
        takes = cls._takes
        if takes is None:
            takes = cls._takes = tuple(entry is not None and takes_gradient(entry[0])
                                       for entry in self.op.vjps)
        fns = self._next_fns
        if len(fns) == 1 or fns[1] is None:
            return fns[0] is not None and takes[0]
        return fns[0] is None and len(takes) > 1 and takes[1]

    def refers_to(self, array):
        """Whether the node's formulas may have been given `array` (Node.refers_to): a saved
        input's or output's array or its base, an attribute; yes for values packed by saved
        tensors hooks (their unpack hook may give anything), and once released."""
        st = self._held_state
        if st is RELEASED:
            return True
        if st == 1:
            if _holds(self._held_a, array) or (not self._one_input
                                                and _holds(self._held_b, array)):
                return True
        out = self._saved_out
        if out is not None and _holds(out[0], array):
            return True
        return _holds(self._attrs, array)


def _holds(value, array):
    """Whether a saved value or attribute is, or may give, `array`: a tensor or array when it
    or its base is `array`, a tuple or list when an item does, anything but a number, a
    string or a dtype may."""
    tv = type(value)
    if tv is float or tv is int or tv is bool or tv is str or value is None:
        return False
    if tv is _ndarray or isinstance(value, Tensor):
        d = value if tv is _ndarray else value._data
        return d is array or d.base is array
    if tv is tuple or tv is list:
        return any(_holds(v, array) for v in value)
    return not isinstance(value, (numbers.Number, np.dtype, dtypes.dtype))


class _UnaryNode(_PairNode):
    """The node of a one-input op (sin, exp, sum, ...)."""

    __slots__ = ()
    _one_input = True


class _BinaryNode(_PairNode):
    """The node of a two-input op (add, mul, matmul, ...)."""

    __slots__ = ()
    _one_input = False


def _zeros_for(node, nr):
    """A zero gradient for an output that received none (multi-output ops)."""
    shape, in_dtype = node._out_meta[nr]
    return Tensor._make(np.zeros(shape, in_dtype), None, 0, False)


def _reduce_to(node, i, g, shape):
    """g summed to shape, or PyTorch's error when g's shape is not shape broadcast (the
    engine's validate_outputs; custom Functions' gradients go through it too)."""
    try:
        ok = np.broadcast_shapes(g._data.shape, shape) == g._data.shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(messages.INVALID_GRADIENT_SHAPE.format(
            node=node.name(), index=i, got=list(g._data.shape), expected=list(shape)))
    return g.sum_to_size(shape)


def passthrough(g):
    """The derivative formula `grad` itself (d/dself of self + other, of clone, …)."""
    return g


def _passed_through(node, g):
    return g


_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def takes_gradient(fn):
    """Whether VJP fn may compute into its gradient's array (engine.backward.Donation): fn
    returns the gradient as it is (passthrough), or reads it once, as an operand of + - * /
    (`grad * self.cos()`), the operator that takes the array then, after which nothing reads
    the gradient.  Read from the formula's expression tree (gradcli.ops.derivatives); a
    function written by hand does not take it."""
    if fn is passthrough:
        return True
    formula = getattr(fn, "derivative", None)
    if formula is None or not formula.params:
        return False
    grad = formula.params[0]
    nodes = list(ast.walk(formula.tree))
    reads = [n for n in nodes if isinstance(n, ast.Name) and n.id == grad]
    if len(reads) != 1 or any(isinstance(n, (ast.Lambda, ast.comprehension, ast.NamedExpr))
                              for n in nodes):
        return False
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, _ARITHMETIC)
               and (n.left is reads[0] or n.right is reads[0]) for n in nodes)


def zeros_like_grad(g):
    """PyTorch's `zeros_like(grad)` in a derivative formula: zeros without a graph (g * 0 would
    be -0. where g is negative and nan where it is infinite)."""
    return Tensor._make(np.zeros_like(g._data), None, 0, False)


derivatives.helper(zeros_like_grad, name="zeros_like")
