"""Specialised code for one- and two-input ops (most calls): the same steps as Op.apply,
Op._record/_save and OpNode.apply, with the op's constants bound in closures and the loops
unrolled (_specialised_apply, _specialised_vjp).  Anything unusual (other argument types,
dtypes to promote) takes the general path.  Also: the VJP callers for the usual parameter lists,
VJPs run on Python floats for 0-d float64 graphs, and marking a result as a view of its base."""

from weakref import WeakSet as _WeakSet

import numpy as np

from ..engine import dtypes, messages
from ..engine.backward import Donation
from ..engine.grad_mode import GradMode
from ..engine.graph import RELEASED, AnomalyMode, NodeRecorder, _sequence
from ..engine.saved import PackedTensor, SavedHooks
from ..engine.graph import tensor_gradient as _tensor_gradient
from ..engine.tangents import ForwardAD
from ..engine.tensor import Tensor
from . import formulas, unsigned
from .nodes import (ATTR, G, INPUT, RESULT, _F32, _F64, _INFERENCE, _PROMOTE, _Tensor, _UNARY,
                    _array, _asarray, _make, _ndarray, _new_node, _new_tensor, _pack_saved,
                    _passed_through, _reduce_to, passthrough)
from .forward_mode import _forward_ad


def float64_ufunc(op):
    """The NumPy ufunc that computes one-input op op on float64 values (its forward, or the
    ufunc its forward wraps, see elementwise._via_float64), or None."""
    f = op.forward
    if op.n_inputs != 1 or op.attr_names:
        return None
    if not isinstance(f, np.ufunc):
        f = getattr(f, "float64_ufunc", None)
    if isinstance(f, np.ufunc) and f.nin == 1 and f.nout == 1 and "d->d" in f.types:
        return f
    return None


def _save_plan(op, n):
    """For each combination of inputs having an edge (bit i: input i has one), what to save:
    (save input 0, [save input 1,] save the output)."""
    plan = []
    for mask in range(1 << n):
        has_edge = [bool(mask >> i & 1) for i in range(n)]
        row = [False] * n
        for j, readers in op.save_inputs:
            row[j] = readers is None or any(has_edge[i] for i in readers)
        readers = op.save_result
        row.append(readers is not False and (readers is None or any(has_edge[i] for i in readers)))
        plan.append(tuple(row))
    return tuple(plan)


def _specialised_apply(op, general=None, swapped=False):
    """(apply, call) for a one- or two-input op: apply(inputs, attrs) as Op.apply, and
    call(x, attrs) or call(a, b, attrs) taking the inputs as arguments (attrs defaulting to the
    op's defaults: operators and methods call it directly).  general: what handles the calls
    the specialised code does not (default: Op._apply_general); swapped: tell a recording that
    the program wrote the two inputs the other way round (Op.operator_variant)."""
    forward = op.forward
    # a forward wrapped only to translate its errors (arith.broadcasting) is called unwrapped,
    # and wrapped again only when it raises
    raw = getattr(forward, "__wrapped__", None) or forward
    checked = raw is not forward  # (inputs of different shapes go to the wrapped forward)
    # a NumPy ufunc without attributes, asked for an array even for 0-d results (out=...,
    # NumPy 2.1+; before, which is what Python 3.10 gets, its result is made an array)
    ufunc = isinstance(raw, np.ufunc) and not op.attr_names
    ufunc_out = ufunc and _UFUNC_OUT
    # a gradient the engine offers (engine.backward.Donation) is taken by the ufuncs of two
    # inputs whose result has their dtype
    takes_donation = ufunc and op.rule is _PROMOTE and op.n_inputs == 2
    if general is None:
        general = op._apply_general
    promote = op.rule is _PROMOTE
    # an op that computes in its input's dtype (or a comparison's promoted one) whose kernel
    # PyTorch lacks for wide unsigned dtypes (gradcli.ops.unsigned): unsigned inputs take the
    # general path, which refuses them after the forward's own checks (a promoting op takes
    # it for any dtype but float32 and float64: nothing to test for it here)
    refuses = not promote and unsigned.kernel_entry(op.name) is not None
    fixed = op.fixed_dtype
    view = op.view
    differentiable = op.differentiable
    node_cls = op.node_cls
    plan = _save_plan(op, op.n_inputs)
    no_saves = not any(any(row) for row in plan)
    defaults = op.default_attrs if op.default_attrs is not None else ()

    def observe(node, inputs, result):
        if NodeRecorder.callback is not None:
            if swapped:
                NodeRecorder.callback(node, inputs, (result,), swapped=True)
            else:
                NodeRecorder.callback(node, inputs, (result,))
        if AnomalyMode.enabled:
            node._anomaly = AnomalyMode.where(4)

    def attach(node, result, save_out, a, b):
        """The less usual end of recording a node (the calls below make the node and its
        result, and call this only when there is something to do): a view's base, the saved
        output, saved-tensor hooks and observers (b: _UNARY for a one-input op)."""
        if view:
            _mark_view(result, a)
        if save_out:
            vc = result._vc
            if vc is None:
                vc = result._vc = [0]
            node._saved_out = (result._data, 0, vc, vc[0])
        if SavedHooks.stack:
            _pack_saved(node, op, result)
        if NodeRecorder.callback is not None or AnomalyMode.enabled:
            observe(node, (a,) if b is _UNARY else (a, b), result)

    if op.n_inputs == 1:
        f64_ufunc = float64_ufunc(op)
        on_float = f64_ufunc if promote else None
        def call(x, attrs=defaults):
            if type(x) is not _Tensor:
                return general((x,), attrs)
            d = x._data
            if promote:
                out_dtype = d.dtype
                if out_dtype is not _F64 and out_dtype is not _F32:
                    return general((x,), attrs)
            elif refuses and d.dtype.kind == "u":
                return general((x,), attrs)
            else:
                out_dtype = fixed
            shape = d.shape
            if on_float is not None and out_dtype is _F64 and not shape and attrs is defaults:
                # a NumPy ufunc on a Python float: its 0-d loop (the same bits) without
                # the array machinery (a quarter of the time)
                out = _array(on_float(float(d)))
            elif ufunc:
                try:
                    out = raw(d, out=...) if ufunc_out else _asarray(raw(d))
                except ValueError:
                    out = forward(d)
            else:
                try:
                    out = raw(d, *attrs) if attrs else raw(d)
                except ValueError:
                    if raw is forward:
                        raise
                    out = forward(d, *attrs)
                if type(out) is not _ndarray:
                    out = _asarray(out)
            if out_dtype is not None and out.dtype is not out_dtype and out.dtype != out_dtype:
                out = out.astype(out_dtype)
            if not (x.requires_grad_flag and differentiable and GradMode.enabled):
                result = _make(out, None, 0, False)
                if view:
                    _mark_view(result, x)
                if ForwardAD.level is not None and x._fw is not None:
                    _forward_ad(op, (x,), attrs, (result,))
                return result
            # the node first, then its result with that history
            node = _new_node(node_cls)
            node._seq = next(_sequence)
            node._deps = 0
            fn = x.grad_fn
            if fn is None:
                fn = x._accumulator()
                nrs = _NRS0
            else:
                nr = x._output_nr
                nrs = (nr,) if nr else _NRS0
            node._next_fns = None  # (made from _fn_a by the backward pass: see _PairNode)
            node._fn_a = fn
            node._fn_b = _UNARY
            node._next_nrs = nrs
            if shape:
                node._meta = (shape, d.dtype)
            else:  # a 0-d input: one meta tuple per dtype, shared (see _SCALAR_META)
                meta = _SCALAR_META.get(d.dtype)
                node._meta = meta[4] if meta is not None else _scalar_meta(d.dtype, 4)
            node._attrs = attrs
            node._saved_out = node._held_state = None
            save_out = False
            if not no_saves:
                save_in, save_out = plan[1]
                if save_in:
                    node._held_state = 1
                    node._held_a = x
                    vc = x._vc
                    if vc is not None and vc[0]:
                        node._saved_ver = (vc[0],)
            result = (_make(out, node, 0, True) if promote or out.dtype.kind in "fc"
                      else _make(out, None, 0, False))  # (promote: the output is float)
            if view or save_out or SavedHooks.stack or (
                    NodeRecorder.callback is not None or AnomalyMode.enabled):
                attach(node, result, save_out, x, _UNARY)
            if ForwardAD.level is not None and x._fw is not None:
                _forward_ad(op, (x,), attrs, (result,))
            return result

        def apply(inputs, attrs):
            if len(inputs) != 1:
                return general(inputs, attrs)
            return call(inputs[0], attrs)
        return apply, call

    on_floats = op.on_floats if promote else None  # (its result is float64, the inputs' dtype)

    def call(a, b, attrs=defaults):
        ta = type(a)
        tb = type(b)
        if ta is _Tensor:
            da = a._data
            in_dtype = da.dtype
            shape = da.shape
            if tb is _Tensor:
                db = b._data
                if db.dtype is not in_dtype:
                    return general((a, b), attrs)
                if checked and db.shape != shape:  # a broadcast: within the element limit?
                    return general((a, b), attrs)
                need_grad = a.requires_grad_flag or b.requires_grad_flag
            elif tb is float or tb is int:
                db = b
                need_grad = a.requires_grad_flag
            else:
                return general((a, b), attrs)
        elif tb is _Tensor and (ta is float or ta is int):
            da = a
            db = b._data
            in_dtype = db.dtype
            shape = db.shape
            need_grad = b.requires_grad_flag
        else:
            return general((a, b), attrs)
        if promote:
            if in_dtype is not _F64 and in_dtype is not _F32:
                return general((a, b), attrs)
            out_dtype = in_dtype
        elif refuses and in_dtype.kind == "u":
            return general((a, b), attrs)
        else:
            out_dtype = fixed
        out = None
        if (on_floats is not None and in_dtype is _F64 and not shape
                and (attrs is defaults or attrs == defaults)):
            try:
                out = _array(on_floats(float(da), float(db)))
            except ArithmeticError:  # x / 0., a number too large for a float: NumPy's way
                pass
        if out is None:
            if ufunc:
                try:
                    if Donation.tensor is not None and takes_donation and (
                            Donation.tensor is a or Donation.tensor is b):
                        out = _into_donation(raw, a, da, db)
                    else:
                        out = raw(da, db, out=...) if ufunc_out else _asarray(raw(da, db))
                except ValueError:
                    out = forward(da, db)
            else:
                try:
                    out = raw(da, db, *attrs) if attrs else raw(da, db)
                except ValueError:
                    if raw is forward:
                        raise
                    out = forward(da, db, *attrs)
                if type(out) is not _ndarray:
                    out = _asarray(out)
            if out_dtype is not None and out.dtype is not out_dtype and out.dtype != out_dtype:
                out = out.astype(out_dtype)
        if not (need_grad and differentiable and GradMode.enabled):
            result = _make(out, None, 0, False)
            if view:
                _mark_view(result, a)
            if ForwardAD.level is not None and ((ta is _Tensor and a._fw is not None)
                                                or (tb is _Tensor and b._fw is not None)):
                _forward_ad(op, (a, b), attrs, (result,))
            return result
        # the node first, then its result with that history (in_dtype, shape: those of the
        # first tensor input; both inputs' dtype, and their shape unless a broadcast was let
        # through)
        node = _new_node(node_cls)
        node._seq = next(_sequence)
        node._deps = 0
        if type(a) is _Tensor:
            fa = a.grad_fn
            na = 0 if fa is None else a._output_nr
            if fa is None and a.requires_grad_flag:
                ref = a._accum_ref  # the leaf's AccumulateGrad, while alive
                fa = (ref() if ref is not None else None) or a._accumulator()
            sa = shape
            dta = in_dtype
        else:
            fa = sa = dta = None
            na = 0
        if type(b) is _Tensor:
            sb = shape if checked or sa is None else b._data.shape
            dtb = in_dtype
            fb = b.grad_fn
            nb = 0 if fb is None else b._output_nr
            if fb is None and b.requires_grad_flag:
                ref = b._accum_ref
                fb = (ref() if ref is not None else None) or b._accumulator()
        else:
            fb = sb = dtb = None
            nb = 0
        node._next_fns = None
        node._fn_a = fa
        node._fn_b = fb
        node._next_nrs = (na, nb) if na or nb else _NRS00
        if shape or sb:
            node._meta = (sa, dta, sb, dtb)
        else:  # 0-d inputs: one meta tuple per dtype and operand kinds, shared
            meta = _SCALAR_META.get(in_dtype)
            kind = (sa is not None) | (sb is not None) << 1
            node._meta = meta[kind] if meta is not None else _scalar_meta(in_dtype, kind)
        node._attrs = attrs
        node._saved_out = node._held_state = None
        save_out = False
        if not no_saves:
            save_a, save_b, save_out = plan[(fa is not None) | (fb is not None) << 1]
            node._held_a = a if save_a else None
            node._held_b = b if save_b else None
            if save_a or save_b:
                node._held_state = 1
                va = a._vc if save_a and type(a) is _Tensor else None
                vb = b._vc if save_b and type(b) is _Tensor else None
                if (va is not None and va[0]) or (vb is not None and vb[0]):
                    node._saved_ver = (0 if va is None else va[0], 0 if vb is None else vb[0])
        if type(out) is _ndarray and not out.ndim and (promote or out.dtype.kind in "fc"):
            # (Tensor._make inline for a 0-d float result, most results of a scalar graph:
            # a call fewer for two ops of three; promote: the output is float)
            result = _new_tensor(_Tensor)
            result._data = out
            result.requires_grad_flag = True
            result.grad_fn = node
            result._output_nr = 0
            result._vc = _INFERENCE.counter
        else:
            result = (_make(out, node, 0, True) if promote or out.dtype.kind in "fc"
                      else _make(out, None, 0, False))
        if view or save_out or SavedHooks.stack or (
                NodeRecorder.callback is not None or AnomalyMode.enabled):
            attach(node, result, save_out, a, b)
        if ForwardAD.level is not None and ((ta is _Tensor and a._fw is not None)
                                            or (tb is _Tensor and b._fw is not None)):
            _forward_ad(op, (a, b), attrs, (result,))
        return result

    def apply(inputs, attrs):
        if len(inputs) != 2:
            return general(inputs, attrs)
        a, b = inputs
        return call(a, b, attrs)
    return apply, call


def _into_donation(ufunc, a, da, db):
    """ufunc(da, db) computed into the array of the gradient the engine offers (engine.
    backward.Donation), operand a (array da) or the other (db), which it takes: unless the
    other operand would broadcast it."""
    dst, other = (da, db) if Donation.tensor is a else (db, da)
    Donation.tensor = None
    if type(other) is _ndarray and other.shape != dst.shape:
        return ufunc(da, db, out=...) if _UFUNC_OUT else _asarray(ufunc(da, db))
    return ufunc(da, db, out=dst)


def _ufunc_out_works():
    """NumPy 2.1+: a ufunc called with out=... returns an array, never a NumPy scalar."""
    try:
        return type(np.add(np.zeros(()), 1.0, out=...)) is np.ndarray
    except TypeError:
        return False


_UFUNC_OUT = _ufunc_out_works()


def _vjp_caller(entry):
    """A function (node, g) -> the VJP of entry = (fn, parameter kinds), for the usual
    parameter lists without going through OpNode._resolve.  g may be a float gradient (a
    Python float standing for a 0-d float64 tensor, see backward._run); the result may be one
    where the formula runs on Python floats (_on_floats), else it is a tensor."""
    if entry is None:
        return None
    fn, kinds = entry
    if fn is passthrough:
        return _passed_through
    if kinds == ((G, 0),):
        return lambda node, g: fn(g if type(g) is not float else _tensor_gradient(g))
    if len(kinds) == 2 and kinds[0] == (G, 0):
        kind, idx = kinds[1]
        methods = _float_formula(fn)  # (None: the tensor formula only)
        # (a _PairNode's saved input: _held_a or _held_b)
        if kind == INPUT and methods is not None:
            def call(node, g):
                x = node._held_b if idx else node._held_a
                tx = type(x)
                if tx is _Tensor:
                    vc = x._vc
                    if vc is not None and vc[0] != (0 if node._saved_ver is None
                                                    else node._saved_ver[idx]):
                        node._unpack(idx)  # raises PyTorch's error
                elif tx is not float and tx is not int:
                    if isinstance(x, Tensor) or tx is PackedTensor:
                        x = node._unpack(idx)
                    return fn(g if type(g) is not float else _tensor_gradient(g), x)
                if type(g) is not float:
                    gd = g._data  # (as _floatable, inline: a tensor gradient leaves here)
                    if (gd.shape or gd.dtype is not _F64 or type(g) is not _Tensor
                            or GradMode.enabled or ForwardAD.level is not None):
                        return fn(g, x)
                if tx is _Tensor:
                    xd = x._data
                    if xd.dtype is not _F64 or xd.shape:
                        return fn(_tensor_gradient(g), x)
                    xf = _FloatArg(xd) if methods else float(xd)
                else:
                    xf = x
                try:  # (_on_floats, inline)
                    r = fn(g if type(g) is float else float(g._data), xf)
                except ArithmeticError:
                    r = None
                return r if type(r) is float else fn(_tensor_gradient(g), x)
            return call
        if kind == ATTR and methods is False:  # (add's `grad if alpha == 1 else ...`)
            def call(node, g):
                a = node._attrs[idx]
                if type(g) is not float:
                    return fn(g, a)
                try:  # (_on_floats, inline)
                    r = fn(g, a)
                except ArithmeticError:
                    r = None
                return r if type(r) is float else fn(_tensor_gradient(g), a)
            return call
        if kind == RESULT and methods is not None:
            def call(node, g):
                r = node._unpack_result()
                result_data = r._data
                if (type(r) is _Tensor and result_data.dtype is _F64 and not result_data.shape
                        and _floatable(g)):
                    f = _on_floats(fn, g, _FloatArg(result_data) if methods
                                   else float(result_data))
                    if f is not None:
                        return f
                return fn(g if type(g) is not float else _tensor_gradient(g), r)
            return call
    methods = _float_formula(fn) if kinds and kinds[0] == (G, 0) else None
    if methods is not None:
        def call(node, g):
            if not _floatable(g):
                return fn(*node._resolve(kinds, g))
            args = node._resolve(kinds, g)
            floats = []
            for a in args[1:]:
                ta = type(a)
                if ta is _Tensor:
                    d = a._data
                    if d.dtype is not _F64 or d.shape:
                        break
                    floats.append(_FloatArg(d) if methods else float(d))
                elif ta is float or ta is int:
                    floats.append(a)
                else:
                    break
            else:
                r = _on_floats(fn, g, floats[0], floats[1:])
                if r is not None:
                    return r
            if type(g) is float:
                args[0] = _tensor_gradient(g)
            return fn(*args)
        return call
    return lambda node, g: fn(*node._resolve(
        kinds, g if type(g) is not float else _tensor_gradient(g)))


class _FloatArg(float):
    """A saved float64 value in a VJP run on Python floats (_on_floats), for formulas that call
    a method on it (`g * self.cos()`): its methods are the one-input ops that a NumPy ufunc
    computes (float64_ufunc), added by _float_method as formulas need them."""

    __slots__ = ()


def _float_method(name):
    """Give _FloatArg the method `name` if a one-input op of that name computes float64 values
    with a NumPy ufunc (what the op's own 0-d path calls); whether it has it."""
    if name in _FloatArg.__dict__:
        return True
    if name == "pow":  # (only x.pow(2) and x.pow(3): gradcli.ops.formulas)
        _FloatArg.pow = lambda self, k: float(self) * float(self) * (float(self) if k == 3
                                                                      else 1.0)
        return True
    from .entries import OPS, loaded
    from .registry import Op  # (the table built on this module: read at run time)
    op = loaded(OPS.get(name))
    uf = float64_ufunc(op) if isinstance(op, Op) and op.rule is _PROMOTE else None
    if uf is None or getattr(Tensor, name, None) is None:
        return False
    setattr(_FloatArg, name, lambda self: float(uf(float(self))))
    return True


def _float_formula(fn):
    """Whether VJP fn gives on Python floats what it gives on 0-d float64 tensors: made only
    of + - * / and unary - on its parameters and on int or float constants, and of methods of
    the saved values that are ufunc ops (`g * other`, `-g * self / (other * other)`,
    `g * self.cos()`).  On 0-d float64 tensors those operators compute on Python floats (an
    op's `on_floats`) and those methods call their ufunc on a Python float, so the bits are
    the same.  Read from the formula's expression tree (gradcli.ops.formulas): None when not
    (a global, a helper, `2 / x`, a method of a computed value, a function written by hand),
    else whether the formula calls methods (its saved value is then passed as a _FloatArg)."""
    return formulas.float_formula(fn, _float_method)


def _floatable(g):
    """Whether gradient g may be taken as a Python float: a float gradient, or a 0-d float64
    tensor outside create_graph and forward AD."""
    if type(g) is float:
        return True
    gd = g._data
    return not (gd.shape or gd.dtype is not _F64 or type(g) is not _Tensor or GradMode.enabled
                or ForwardAD.level is not None)


def _on_floats(fn, g, x, more=None):
    """VJP fn (see _float_formula) on Python floats, for a gradient g that may be one
    (_floatable) and the saved values x and *more as Python numbers (a saved tensor's value a
    _FloatArg when the formula calls its methods): the tensor formula's bits without an op
    call per operator.  The gradient as a float, or None where the tensor formula must run
    (x / 0: NumPy's inf or nan)."""
    gf = g if type(g) is float else float(g._data)
    try:
        r = fn(gf, x) if more is None else fn(gf, x, *more)
    except ArithmeticError:
        return None
    return r if type(r) is float else None


def _fit(node, i, gi, shape, dt):
    """Gradient gi for input i of the given shape and dtype, conformed to them (_conform); a
    float gradient stays one for a 0-d float64 input (the callers call this only where
    something may have to be done)."""
    if type(gi) is float:
        if dt is _F64 and not shape:
            return gi
        gi = _tensor_gradient(gi)
    d = gi._data
    if d.shape != shape or (d.dtype is not dt and d.dtype != dt):
        gi = _conform(node, i, gi, shape, dt)
    return gi


def _conform(node, i, gi, shape, dt):
    """Gradient gi for input i reduced to its shape and cast to its dtype (PyTorch's
    validate_outputs)."""
    if gi._data.shape != shape:
        gi = _reduce_to(node, i, gi, shape)
    d = gi._data.dtype
    if d is not dt and d != dt:
        gi = gi.to(dtypes.from_numpy_dtype(dt))
    return gi


def _specialised_vjp(op):
    """(apply, apply_f) for the node class of a one- or two-input op.  apply(node, grads):
    the node's gradients for its inputs, as Node.apply; apply_f(node, g, free): the same for
    the engine loop (backward._run), which passes a float gradient as it is and takes one back
    where the formula ran on Python floats (a gradient of a scalar graph then stays a float from
    node to node, without a tensor per node), and with free true has the node release what it
    saved once its formulas have run (_PairNode.release, inline: a call fewer per node)."""
    if op.n_inputs == 1:
        call = _vjp_caller(op.vjps[0])

        def apply_f(self, g, free=False):
            state = self._held_state
            if state is RELEASED:
                raise RuntimeError(messages.BACKWARD_TWICE)
            gi = None
            if self._next_fns[0] is not None and call is not None:
                gi = call(self, g)
                meta = self._meta
                if gi is not None and (
                        meta[0] or meta[1] is not _F64 if type(gi) is float else
                        gi._data.shape != meta[0] or gi._data.dtype is not meta[1]):
                    gi = _fit(self, 0, gi, meta[0], meta[1])
            if free and (state is not None or self._saved_out is not None):
                self._held_state = RELEASED
                self._held_a = self._saved_out = None
            return [gi]
    else:
        vjps = op.vjps + (None,) * (2 - len(op.vjps))
        call_a, call_b = _vjp_caller(vjps[0]), _vjp_caller(vjps[1])

        # PyTorch's order where the formulas make nodes (a create_graph pass, see OpNode.apply):
        # by the inputs' names, `other` before `self`; else the inputs' order
        other_first = op.formula_order == (1, 0)

        def apply_f(self, g, free=False):
            state = self._held_state
            if state is RELEASED:
                raise RuntimeError(messages.BACKWARD_TWICE)
            fa, fb = self._next_fns
            meta = self._meta
            ga = gb = None
            b_first = other_first and GradMode.enabled
            if b_first and fb is not None and call_b is not None:
                gb = call_b(self, g)
                if gb is not None and (
                        meta[2] or meta[3] is not _F64 if type(gb) is float else
                        gb._data.shape != meta[2] or gb._data.dtype is not meta[3]):
                    gb = _fit(self, 1, gb, meta[2], meta[3])
            if fa is not None and call_a is not None:
                ga = call_a(self, g)
                if ga is not None and (
                        meta[0] or meta[1] is not _F64 if type(ga) is float else
                        ga._data.shape != meta[0] or ga._data.dtype is not meta[1]):
                    ga = _fit(self, 0, ga, meta[0], meta[1])
            if not b_first and fb is not None and call_b is not None:
                gb = call_b(self, g)
                if gb is not None and (
                        meta[2] or meta[3] is not _F64 if type(gb) is float else
                        gb._data.shape != meta[2] or gb._data.dtype is not meta[3]):
                    gb = _fit(self, 1, gb, meta[2], meta[3])
            if free and (state is not None or self._saved_out is not None):
                self._held_state = RELEASED
                self._held_a = self._held_b = self._saved_out = None
            return [ga, gb]

    if op.check_result:  # (a saved output written in place since: PyTorch's error, see
        unchecked = apply_f  # Op.check_result)

        def apply_f(self, g, free=False):
            saved = self._saved_out
            if (saved is not None and type(saved[0]) is not PackedTensor
                    and saved[2][0] != saved[3]):
                self._unpack_result()
            return unchecked(self, g, free)

    def apply(self, grads):
        out = apply_f(self, grads[0])
        for i, gi in enumerate(out):
            if type(gi) is float:
                out[i] = _tensor_gradient(gi)
        return out
    return apply, apply_f


_NRS0 = (0,)
# dtype -> the `_meta` tuples of nodes of 0-d inputs, shared by all of them: indexed by which of
# two operands is a tensor (bit 0: the first, bit 1: the second), 4 for a one-input op.  In a
# graph of scalars, a tuple of its own per node would be one more object per node for the
# cyclic garbage collector to count and visit.
_SCALAR_META = {}


def _scalar_meta(in_dtype, kind):
    _SCALAR_META[in_dtype] = (None, ((), in_dtype, None, None), (None, None, (), in_dtype),
                              ((), in_dtype, (), in_dtype), ((), in_dtype))
    return _SCALAR_META[in_dtype][kind]
_NRS00 = (0, 0)


def _mark_view(result, base):
    if isinstance(base, Tensor):
        vc = result._counter = base._counter
        result._base = base._base if base._base is not None else base
        if base._multi_output_view:
            result._multi_output_view = True
        if not GradMode.enabled:
            # PyTorch: a view made in no_grad mode still requires grad when its base does (a
            # leaf of its own for gradients) and may not be written in place with grad mode on
            if not (base.requires_grad_flag and result._data.dtype.kind in "fc"):
                return
            result.requires_grad_flag = True
            result._no_grad_view = True
        elif base._no_grad_view:  # (so is a view of such a view, made in any mode)
            result._no_grad_view = True
        # its history is regenerated (or, made in no_grad mode, made stale) when the base is
        # written through another alias (gradcli.ops.views.regenerate)
        if len(vc) == 1:
            vc.append(_WeakSet())
        vc[1].add(result)
