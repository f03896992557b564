"""Arithmetic: + - * / // % ** and their named forms."""

import ast
import operator

import numpy as np

from ..engine.grad_mode import GradMode
from ..engine.tensor import Tensor, check_numel
from .derivatives import helper, show_local
from .registry import (OPS, Composed, Op, Overload, Sample, _camel, alias, elementwise_samples,
                       register)

BINARY = elementwise_samples(unary=False)
POSITIVE = elementwise_samples(0.5, 2.0, unary=False)
SCALAR_OTHER = [Sample((), None, values={1: 1.5}), Sample((3,), None, values={1: 2.0}),
                Sample((2, 3), None, values={1: -0.75})]


def broadcast_error(*shapes):
    """PyTorch's message for shapes that do not broadcast (None if they do)."""
    try:
        np.broadcast_shapes(*shapes)
        return None
    except ValueError:
        pass
    n = max(len(s) for s in shapes)
    padded = [(1,) * (n - len(s)) + tuple(s) for s in shapes]
    for i in range(n - 1, -1, -1):
        sizes = [s[i] for s in padded if s[i] != 1]
        if len(set(sizes)) > 1:
            a, b = (s[i] for s in padded if s[i] != 1) if len(sizes) == 2 else sizes[:2]
            return (f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                    f"non-singleton dimension {i}")
    return None


def check_broadcast(*arrays):
    """Refuse a broadcast result past the element limit before NumPy allocates it."""
    shapes = [a.shape for a in arrays if isinstance(a, np.ndarray)]
    if len(shapes) > 1 and any(s != shapes[0] for s in shapes):
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            return  # the op reports shapes that do not broadcast
        check_numel(shape)


def broadcasting(fn):
    """Wrap a NumPy forward so that operands that do not broadcast raise PyTorch's error."""
    def forward(*args):
        check_broadcast(*args)
        try:
            return fn(*args)
        except ValueError:
            message = broadcast_error(*[np.shape(a) for a in args if isinstance(a, np.ndarray)])
            if message is None:
                raise
            raise RuntimeError(message) from None
    forward.__name__ = getattr(fn, "__name__", "forward")
    forward.__wrapped__ = fn  # the op table calls fn itself and this only when fn raises
    return forward


def _integral(*values):
    """Whether the computation runs in an integer (or bool) dtype."""
    arrays = [v for v in values if isinstance(v, np.ndarray)]
    return all(a.dtype.kind in "biu" for a in arrays) and not any(
        isinstance(v, float) for v in values)


def _check_alpha(a, b, alpha):
    if isinstance(alpha, float) and _integral(a, b):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


@broadcasting
def _add(a, b, alpha):
    if alpha == 1:
        return np.add(a, b)
    _check_alpha(a, b, alpha)
    return np.add(a, np.multiply(b, alpha))


@broadcasting
def _sub(a, b, alpha):
    if getattr(a, "dtype", None) == np.bool_ and getattr(b, "dtype", None) == np.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if alpha == 1:
        return np.subtract(a, b)
    _check_alpha(a, b, alpha)
    return np.subtract(a, np.multiply(b, alpha))


register(Op(
    "add", _add, ("self: grad", "other: grad if alpha == 1 else _mul_s(grad, alpha)"),
    inputs=("self", "other"), attrs=(("alpha", 1),), jvp="elementwise", inplace=True,
    on_floats=operator.add, doc="self + alpha * other",
    samples=BINARY + [Sample((2, 3), (3,), attrs={"alpha": 2.5})], kind="binary"))

register(Op(
    "sub", _sub, ("self: grad", "other: -grad if alpha == 1 else _mul_s(-grad, alpha)"),
    inputs=("self", "other"), attrs=(("alpha", 1),), jvp="elementwise", inplace=True,
    on_floats=operator.sub, doc="self - alpha * other",
    samples=BINARY + [Sample((3,), (), attrs={"alpha": -2})], kind="binary"))


def _rsub(a, b, alpha):
    return _sub(b, a, alpha)


def _rsub_floats(a, b):
    return b - a


rsub_tensor = Op(
    "rsub.Tensor", _rsub, ("self: -grad if alpha == 1 else grad * -alpha", "other: grad"),
    inputs=("self", "other"), attrs=(("alpha", 1),), jvp="elementwise", grad_fn="RsubBackward0",
    on_floats=_rsub_floats, method=False, public=False, doc="other - alpha * self (tensors)",
    samples=BINARY, kind="binary")
rsub_scalar = Op(
    "rsub.Scalar", _rsub, ("self: -grad if alpha == 1 else grad * -alpha",),
    inputs=("self", "other"), attrs=(("alpha", 1),), jvp="elementwise", grad_fn="RsubBackward1",
    edges=("self",), on_floats=_rsub_floats,
    method=False, public=False, doc="other - alpha * self (other a number: the reflected `-`)",
    samples=SCALAR_OTHER, kind="binary")
register(rsub_tensor)
register(rsub_scalar)
register(Overload(
    "rsub", lambda self=None, other=None, *a, **k: rsub_tensor if isinstance(other, Tensor)
    else rsub_scalar, (rsub_tensor, rsub_scalar), method=False, kind="binary",
    doc="other - alpha * self (`2 - x` is RsubBackward1)"))

register(Op(
    "mul", broadcasting(np.multiply), ("self: grad * other", "other: grad * self"),
    inputs=("self", "other"), inplace=True, on_floats=operator.mul, doc="self * other",
    samples=BINARY, kind="binary"))

_ZERO_DIVISION = "ZeroDivisionError"


def _check_int_division(a, b):
    """Integer division (//, %, fmod, rounding div) by zero raises, as in PyTorch."""
    if _integral(a, b) and np.any(np.asarray(b) == 0):
        raise RuntimeError(_ZERO_DIVISION)


@broadcasting
def _div(a, b, rounding_mode=None):
    if rounding_mode is None:
        return np.true_divide(a, b)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    _check_int_division(a, b)
    if rounding_mode == "floor":
        return np.floor_divide(a, b)
    if _integral(a, b):
        return _int_trunc_div(a, b)
    return np.trunc(np.true_divide(a, b))


def _int_trunc_div(a, b):
    q = np.floor_divide(a, b)
    return np.where((np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)),
                    q + 1, q)


@helper
def _div_jvp(t, other, result):
    """PyTorch's forward derivative of division, (self_t - other_t * result) / other, an
    absent tangent being PyTorch's zero tensor (0 - x is -x, x - 0 is x; t: the tangents of
    self and other)."""
    self_t, other_t = t
    if other_t is None:
        return self_t / other
    return (-(other_t * result) if self_t is None else self_t - other_t * result) / other


div_tensor = Op(
    # PyTorch's div_tensor_other_backward, -grad * ((self / other) / other): rounded in this
    # order, float32 gradients are PyTorch's to the bit
    "div.Tensor", _div, ("self: grad / other", "other: -grad * (self / other / other)"),
    inputs=("self", "other"), inplace=True, dtype="float", grad_fn="DivBackward0", method=False,
    public=False, on_floats=operator.truediv, doc="self / other",
    jvp="result: _div_jvp(tangents, other, result)",
    elementwise_jvp=True,
    samples=[Sample(a, b, low=0.5, high=2.0) for a, b in
             [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3))]], kind="binary")
@helper
def _div_mode_backward(grad, other, rounding_mode):
    """div_tensor_self_backward / div_tensor_other_backward with a rounding mode: zeros (the
    formulas read self and other, so the node saves them, as PyTorch's)."""
    return OPS["zeros_like"](grad)


div_mode = Op(
    "div.Tensor_mode", _div, ("self: _div_mode_backward(grad, other, rounding_mode)",
                              "other: _div_mode_backward(grad, self, rounding_mode)"),
    inputs=("self", "other"),
    attrs=("rounding_mode",), inplace=True, grad_fn="DivBackward2", method=False, public=False,
    doc="self / other rounded ('trunc' or 'floor')",
    samples=[Sample(a, b, low=0.3, high=0.9, attrs={"rounding_mode": m}) for (a, b), m in
             [(((), ()), "floor"), (((3,), (3,)), "trunc"), (((2, 3), (3,)), "floor")]],
    kind="binary")
register(div_tensor)
register(div_mode)


def _choose_div(self=None, other=None, *args, rounding_mode=None, **kwargs):
    return div_mode if (args and args[0] is not None) or rounding_mode is not None else div_tensor


register(Overload("div", _choose_div, (div_tensor, div_mode), kind="binary",
                  doc="self / other (rounding_mode=None, 'trunc' or 'floor')"))
for _alias, _target in {"divide": "div", "true_divide": "div", "multiply": "mul",
                        "subtract": "sub"}.items():
    alias(_alias, _target)


def _rdiv_compose(self, other):
    return self.reciprocal() * other


register(Composed(
    "rdiv", _rdiv_compose, via=("reciprocal", "mul"), inputs=("self", "other"),
    method=False, public=False, dtype="float",
    doc="other / self (the reflected `/`: PyTorch computes reciprocal(self) * other)",
    samples=[Sample(s, None, low=0.5, high=2.0, values={1: v}) for s, v in
             [((), 2.0), ((3,), 2.0), ((2, 3), -1.5)]], kind="binary"))


def _neg(a):
    if a.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return np.negative(a)


_neg.float64_ufunc = np.negative  # (on float64 values: dispatch.float64_ufunc)


register(Op(
    "neg", _neg, "self: -grad", inplace=True, doc="-self", dtype="same",
    samples=elementwise_samples()))
alias("negative", "neg")
register(Op(
    "positive", lambda a: a, None, method=True, doc="+self", dtype="same", kind="elementwise"))


@helper
def _pow_scalar_tensor_exponent(g, self, result):
    if self == 0:
        return g * (result * 0).masked_fill(result != result, 0.0)
    return g * (result * float(np.log(self)))


def _np_pow(a, b):
    try:
        return np.power(a, b)
    except ValueError as e:
        shapes = [np.shape(v) for v in (a, b) if isinstance(v, np.ndarray)]
        raise RuntimeError(broadcast_error(*shapes) or str(e)) from None


def _pow_tensor_scalar(a, exponent):
    """PyTorch's CPU kernel for a floating tensor to a number: x*x, x*x*x, 1/(x*x), sqrt,
    1/sqrt and 1/x for the exponents 2, 3, -2, 0.5, -0.5 and -1 (x ** 3 is two roundings, not
    pow's one), else pow."""
    if isinstance(a, np.ndarray) and a.dtype.kind == "f" and type(exponent) in (int, float):
        if exponent == 2:
            return a * a
        if exponent == 3:
            return a * a * a
        if exponent == -2:
            return 1 / (a * a)
        if exponent == 0.5:
            return np.sqrt(a)
        if exponent == -0.5:
            return 1 / np.sqrt(a)
        if exponent == -1:
            return 1 / a
    return _np_pow(a, exponent)


pow_tensor_scalar = Op(
    # (pow_backward's `exp * self.pow(exp - 1)` is C++'s Scalar multiply: MulBackward1)
    "pow.Tensor_Scalar", _pow_tensor_scalar, ("self: zeros_like(grad) if exponent == 0 else "
                                            "grad * _mul_s(self ** (exponent - 1), exponent)",),
    inputs=("self", "exponent"),
    grad_fn="PowBackward0", method=False, public=False, inplace=True, edges=("self",),
    doc="self ** exponent (number)",
    samples=[Sample((3,), None, low=0.5, high=2.0, values={1: 3}),
             Sample((2, 3), None, low=0.5, high=2.0, values={1: -1.5}),
             Sample((), None, values={1: 2})], kind="binary")


def _np_pow_broadcast(a, b):
    check_broadcast(a, b)  # (the result's size, before NumPy makes it)
    return _np_pow(a, b)


pow_tensor_tensor = Op(
    # (pow_backward_self and pow_backward_exponent)
    "pow.Tensor_Tensor", _np_pow_broadcast,
    ("self: where(exponent == 0.0, 0.0, grad * (exponent * self.pow(_sub_s(exponent, 1))))",
     "exponent: grad * where((self == 0) & (exponent >= 0), 0.0, result * self.log())"),
    inputs=("self", "exponent"), grad_fn="PowBackward1", method=False, public=False,
    inplace=True, doc="self ** exponent (tensor)",
    samples=POSITIVE, kind="binary")
pow_scalar_tensor = Op(
    "pow.Scalar", _np_pow, ("exponent: _pow_scalar_tensor_exponent(grad, self, result)",),
    inputs=("self", "exponent"),
    grad_fn="PowBackward2", method=False, public=False, edges=("exponent",),
    doc="number ** exponent",
    samples=[Sample(None, s, values={0: 2.0}) for s in [(), (3,), (2, 3)]], kind="binary")
for _op in (pow_tensor_scalar, pow_tensor_tensor, pow_scalar_tensor):
    register(_op)


def _choose_pow(self, exponent=None, **kwargs):
    if not isinstance(self, Tensor):
        return pow_scalar_tensor
    return pow_tensor_tensor if isinstance(exponent, Tensor) else pow_tensor_scalar


register(Overload("pow", _choose_pow, (pow_tensor_scalar, pow_tensor_tensor, pow_scalar_tensor),
                  doc="self ** exponent (also written ^ in gradcli)", kind="binary"))


@broadcasting
def _floor_divide(a, b):
    _check_int_division(a, b)
    return np.floor_divide(a, b)


class NoDerivative(Op):
    """An op PyTorch has no derivative for but records a node on (floor_divide): its output
    requires grad when an input does, under a NotImplemented node whose backward raises
    "derivative for aten::<name> is not implemented" (name_ for the in-place variant)."""

    def apply(self, inputs, attrs):
        result = super().apply(inputs, attrs)
        if GradMode.enabled and any(isinstance(x, Tensor) and x.requires_grad_flag
                                    for x in inputs):
            node = self.__dict__.get("_failing")
            if node is None:
                from .sorting import FailingNode
                node = self._failing = FailingNode(
                    "NotImplemented", f"derivative for aten::{self.name} is not implemented",
                    inputs=self.inputs, error=RuntimeError)
            node.attach(inputs, (result,))
        return result


register(NoDerivative(
    "floor_divide", _floor_divide, None, inputs=("self", "other"),
    inplace=NoDerivative("floor_divide_", _floor_divide, None, inputs=("self", "other"),
                         method=False, function=False, public=False, kind="binary",
                         doc="floor(self / other) in place (not differentiable)"),
    doc="floor(self / other) (not differentiable)", kind="binary"))


@broadcasting
def _remainder(a, b):
    _check_int_division(a, b)
    if _integral(a, b):
        return np.remainder(a, b)
    # PyTorch's kernel: fmod, then moved into the divisor's sign unless it is zero, so a zero
    # keeps the dividend's sign (2. % -2. is 0., NumPy's remainder gives -0.)
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((np.asarray(b) < 0) != (mod < 0)), mod + b, mod)


@broadcasting
def _fmod(a, b):
    _check_int_division(a, b)
    return np.fmod(a, b)


DIVISOR_SAMPLES = [Sample((), (), low=0.3, high=0.9), Sample((3,), (3,), low=0.3, high=0.9),
                   Sample((2, 3), (3,), low=0.3, high=0.9), Sample((2, 1), (1, 3), low=0.3, high=0.9)]
BY_NUMBER = [Sample((), None, values={1: 0.7}), Sample((3,), None, values={1: 0.7}),
             Sample((2, 3), None, values={1: -0.7})]

remainder_scalar = Op(
    "remainder.Scalar", _remainder, ("self: grad",), inputs=("self", "other"), inplace=True,
    grad_fn="RemainderBackward0", method=False, public=False, edges=("self",),
    doc="self - floor(self / other) * other (other a number)",
    samples=BY_NUMBER, kind="binary")
remainder_tensor = Op(
    "remainder.Tensor", _remainder,
    ("self: grad", "other: -grad * self.div(other, rounding_mode='floor')"),
    inputs=("self", "other"), inplace=True, grad_fn="RemainderBackward1", method=False,
    public=False, doc="self - floor(self / other) * other",
    samples=DIVISOR_SAMPLES, kind="binary")
fmod_scalar = Op(
    "fmod.Scalar", _fmod, ("self: grad",), inputs=("self", "other"), inplace=True,
    grad_fn="FmodBackward0", method=False, public=False, edges=("self",),
    doc="self - trunc(self / other) * other (other a number)",
    samples=BY_NUMBER, kind="binary")
fmod_tensor = Op(
    "fmod.Tensor", _fmod,
    ("self: grad", "other: -grad * self.div(other, rounding_mode='trunc')"),
    inputs=("self", "other"), inplace=True, grad_fn="FmodBackward1", method=False, public=False,
    doc="self - trunc(self / other) * other",
    samples=DIVISOR_SAMPLES, kind="binary")


def _by_other(scalar_op, tensor_op):
    def choose(self=None, other=None, *args, **kwargs):
        return tensor_op if isinstance(other, Tensor) else scalar_op
    return choose


for _name, _ops in [("remainder", (remainder_scalar, remainder_tensor)),
                   ("fmod", (fmod_scalar, fmod_tensor))]:
    for _op in _ops:
        register(_op)
    register(Overload(_name, _by_other(*_ops), _ops, kind="binary",
                      doc=_ops[1].doc))


def _square_compose(self):
    return OPS["pow"](self, 2)


register(Composed(
    "square", _square_compose, via=("pow.Tensor_Scalar",), inplace=True,
    grad_fn="PowBackward0",
    dtype="same", doc="self * self (PyTorch computes pow(self, 2))",
    samples=elementwise_samples(), kind="elementwise"))


# ------------------------------------------------------------------ C++'s Scalar arithmetic
# `x * 2`, `x + 1`, `x - 1` and `x / 3` in FunctionsManual.cpp call the Scalar overloads
# (MulBackward1, AddBackward1, SubBackward1, DivBackward1), not Python's wrapped-number ones.

def _scalar_op(name, ufunc, formula, doc, **kw):
    """`self <op> a number`, as PyTorch's C++ composites compute it (no function, no method)."""
    register(Op(
        f"{name}.Scalar", lambda a, other: ufunc(a, other), (formula,), inputs=("self", "other"),
        grad_fn=f"{_camel(name)}Backward1", method=False, public=False, edges=("self",),
        doc=doc, samples=SCALAR_OTHER, kind="binary", **kw))


_scalar_op("div", np.true_divide, "self: grad / other", "self / a number, as PyTorch's C++ "
           "composites divide (`x / 2` from Python is DivBackward0)", dtype="float")
# (its derivative is C++'s Scalar multiply too: MulBackward1 again in a double backward)
_scalar_op("mul", np.multiply, "self: _mul_s(grad, other)",
           "self * a number, as PyTorch's C++ composites multiply")
_scalar_op("add", np.add, "self: grad", "self + a number, as PyTorch's C++ composites add")
_scalar_op("sub", np.subtract, "self: grad",
           "self - a number, as PyTorch's C++ composites subtract")


@helper(shows=lambda t, s: ast.BinOp(s, ast.Mult(), t))  # (shown as `s * t`)
def _mul_s(t, s):
    # (a float: a formula run on Python floats, gradcli.ops.formulas.ARITHMETIC_HELPERS)
    return t * s if isinstance(t, (int, float)) else OPS["mul.Scalar"](t, s)


show_local("_mul_s", "{1}")


@helper(shows=lambda t, s: ast.BinOp(t, ast.Div(), s))  # (shown as `t / s`)
def _div_s(t, s):
    return t / s if isinstance(t, (int, float)) else OPS["div.Scalar"](t, s)


@helper(shows=lambda t, s: ast.BinOp(s, ast.Add(), t))  # (shown as `s + t`)
def _add_s(t, s):
    return t + s if isinstance(t, (int, float)) else OPS["add.Scalar"](t, s)


@helper(shows=lambda t, s: ast.BinOp(t, ast.Sub(), s))
def _sub_s(t, s):
    return t - s if isinstance(t, (int, float)) else OPS["sub.Scalar"](t, s)


@helper(shows=lambda s, t: ast.BinOp(s, ast.Sub(), t))
def _rsub_wrapped(s, t):
    """`s - t` with s a number in C++: a wrapped-number tensor, so SubBackward0 (not Rsub)."""
    return OPS["sub"](float(s), t)
