"""Elementwise math: one input (exp, sin, relu, …), clamp, maximum/minimum, where, lerp, the
in-place fills and copies, comparisons and logical ops."""

import math

import numpy as np

from ..engine import dtypes
from ..engine.dtypes import cpp_name, short_name
from ..engine.messages import not_implemented
from ..engine.tensor import Tensor
from .arith import broadcasting
from .numerics import erf as _erf, fma
from .derivatives import helper
from . import unsigned
from .arguments import _bad_argument
from .registry import (OPS, Op, Overload, Sample, _camel, alias, elementwise_samples, register)

ANY = elementwise_samples()
POSITIVE = elementwise_samples(0.5, 2.0)
UNIT = elementwise_samples(-0.9, 0.9)
BINARY = elementwise_samples(unary=False)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


_F32 = np.dtype(np.float32)


def _via_float64(fn):
    """fn computed in float64 for a float32 array, then rounded: PyTorch's float32 exp, sin,
    tanh, asin, … (SLEEF, within 1 ulp) agree with that rounding 2 to 300 times more often
    than with NumPy's own float32 loops, which shows in `.item()`.  Not log: PyTorch's and
    NumPy's float32 log both give log(e) == 1. (one unit above the rounded value)."""
    def forward(a):
        if a.dtype == _F32:
            return fn(a.astype(np.float64)).astype(_F32)
        return fn(a)
    forward.__name__ = fn.__name__
    forward.float64_ufunc = fn  # (float64 values: the ufunc itself, see dispatch.float64_ufunc)
    return forward


def unary(name, forward, derivative, doc, samples=ANY, **kw):
    """Declare a one-input elementwise op whose JVP is its VJP applied to the tangent."""
    kw.setdefault("dtype", "float")
    kw.setdefault("inplace", True)
    return register(Op(name, forward, derivative, doc=doc, samples=samples, **kw))


# ------------------------------------------------------------------ exponentials and logarithms

_exp = _via_float64(np.exp)  # (sigmoid's too)
unary("exp", _exp, "self: grad * result", "e^self")
unary("exp2", _via_float64(np.exp2), "self: _mul_s(grad * result, math.log(2.0))", "2^self")
unary("expm1", _via_float64(np.expm1), "self: grad * _add_s(result, 1)", "e^self - 1")
unary("log", np.log, "self: grad / self", "natural logarithm", POSITIVE)
unary("log2", _via_float64(np.log2), "self: grad / _mul_s(self, 0.6931471805599453)", "base-2 logarithm",
      POSITIVE)
unary("log10", _via_float64(np.log10), "self: grad / _mul_s(self, 2.3025850929940456)", "base-10 logarithm",
      POSITIVE)
unary("log1p", _via_float64(np.log1p), "self: grad / _add_s(self, 1)", "log(1 + self)",
      elementwise_samples(-0.5, 2.0), grad_fn="Log1PBackward0")
unary("sqrt", np.sqrt, "self: grad / _mul_s(result, 2)", "square root",
      POSITIVE)
unary("rsqrt", lambda a: 1 / np.sqrt(a), "self: _mul_s(grad, -0.5) * result.pow(3)",
      "1/sqrt(self)", POSITIVE)
@helper(shows="-(result * result)")
def _reciprocal_backward(grad, result):
    """PyTorch's `-grad * (result * result).conj()`, its right operand made first."""
    square = result * result
    return -grad * square


unary("reciprocal", lambda a: 1 / a, "self: _reciprocal_backward(grad, result)", "1/self",
      POSITIVE)

# ------------------------------------------------------------------ trigonometric and hyperbolic

unary("sin", _via_float64(np.sin), "self: grad * self.cos()", "sine")
unary("cos", _via_float64(np.cos), "self: grad * -self.sin()", "cosine")
unary("tan", np.tan, "self: grad * _add_s(result.pow(2), 1)", "tangent",
      elementwise_samples(-1.2, 1.2))
unary("asin", _via_float64(np.arcsin), "self: grad * _add_s(-self * self, 1).rsqrt()", "arcsine",
      UNIT)
unary("acos", _via_float64(np.arccos), "self: grad * -_add_s(-self * self, 1).rsqrt()", "arccosine",
      UNIT)
unary("atan", _via_float64(np.arctan), "self: grad / _add_s(self * self, 1)", "arctangent")
unary("sinh", _via_float64(np.sinh), "self: grad * self.cosh()", "hyperbolic sine")
unary("cosh", _via_float64(np.cosh), "self: grad * self.sinh()", "hyperbolic cosine")
unary("tanh", _via_float64(np.tanh), "self: tanh_backward(grad, result)", "hyperbolic tangent")
unary("asinh", np.arcsinh, "self: grad * (self * self + 1).rsqrt()",
      "inverse hyperbolic sine")
unary("acosh", np.arccosh, "self: grad * (self * self - 1).rsqrt()",
      "inverse hyperbolic cosine", elementwise_samples(1.2, 3.0))
unary("atanh", _via_float64(np.arctanh), "self: grad / (1 - self * self)", "inverse hyperbolic tangent",
      UNIT)
# PyTorch has no derivative for their in-place variants: acosh_ records AcoshBackward1 (nothing
# saved), whose backward raises NotImplementedError
for _name in ("asinh", "acosh", "atanh"):
    OPS[_name].inplace = Op(
        _name + "_", OPS[_name].forward,
        f"self: _not_implemented(\"the derivative for 'inplace version of {_name}' is not "
        f"implemented.\", NotImplementedError)",
        jvp=f"self: _not_implemented(\"Trying to use forward AD with {_name}_ that does not "
            f"support it because it has not been implemented yet.\\nPlease file an issue to "
            f"PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-request"
            f".yml so that we can prioritize its implementation.\", NotImplementedError)",
        dtype="float",
        grad_fn=_camel(_name) + "Backward1", method=False, function=False, public=False,
        doc=f"in-place {_name} (no derivative)", samples=())
for _alias, _target in {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
                        "arccosh": "acosh", "arctanh": "atanh"}.items():
    alias(_alias, _target)


@helper
def _atan2_backward(grad, self, other):
    """PyTorch's atan2_backward: 1 / (self^2 + other^2), 0 where that sum is 0, times
    grad * other (self's gradient) and grad * -self (other's)."""
    square = other * other  # (the right operand first, as compiled)
    denominator = self * self + square
    recip = denominator.reciprocal().masked_fill(denominator == 0, 0.0)
    return grad * other * recip, grad * -self * recip


register(Op(
    "atan2", broadcasting(np.arctan2),
    ("self, other: _atan2_backward(grad, self, other)",),
    jvp=("self: self_t * other / (self * self + other * other)",
         "other: other_t * -self / (self * self + other * other)"),
    inputs=("self", "other"), dtype="float", inplace=True, kind="binary",
    doc="the angle of the point (other, self)",
    samples=elementwise_samples(0.3, 2.0, unary=False)))
alias("arctan2", "atan2")


def _hypot(a, b):
    if np.result_type(a, b).kind not in "fc":
        raise not_implemented("hypot_cpu", np.result_type(a, b))
    return np.hypot(a, b)


register(Op(
    "hypot", broadcasting(_hypot),
    ("self: grad * self / result", "other: grad * other / result"),
    inputs=("self", "other"), inplace=True, kind="binary", doc="sqrt(self^2 + other^2)",
    samples=elementwise_samples(0.3, 2.0, unary=False)))

# ------------------------------------------------------------------ activations


unary("erf", _erf, "self: _mul_s((-self.pow(2)).exp(), 2.0 / math.sqrt(math.pi)) * grad",
      "the error function")
# (exp as the exp op computes it, then 1 / (1 + e) in the input's dtype: PyTorch's float32
# digits four times more often than NumPy's float32 exp)
unary("sigmoid", lambda a: 1 / (1 + _exp(-a)), "self: sigmoid_backward(grad, result)",
      "1/(1+e^-self)")


def _relu(a):
    return np.maximum(a, 0).astype(a.dtype, copy=False)


unary("relu", _relu, "self: threshold_backward(grad, result, 0)", "max(self, 0)",
      dtype="same")


def _leaky_relu(a, negative_slope):
    return np.where(a > 0, a, a * negative_slope).astype(a.dtype, copy=False)


_LEAKY = dict(attrs=(("negative_slope", 0.01),), method=False,
              doc="self if self > 0 else negative_slope * self")
leaky_relu = unary("leaky_relu", _leaky_relu, "self: leaky_relu_backward(grad, self, negative_slope, False)",
                   inplace=False,
                   samples=ANY + [Sample((2, 3), attrs={"negative_slope": 0.2})], **_LEAKY)
LEAKY_RELU_ = Op("leaky_relu_", _leaky_relu, "self: leaky_relu_backward(grad, result, negative_slope, True)", grad_fn="LeakyReluBackward1",
                 public=False, dtype="float", **_LEAKY)


def _elu(a, alpha):
    return np.where(a > 0, a, alpha * np.expm1(a)).astype(a.dtype, copy=False)


_ELU = dict(attrs=(("alpha", 1.0),), method=False,
            doc="self if self > 0 else alpha * (e^self - 1)")
unary("elu", _elu, "self: elu_backward(grad, self, alpha, 1, 1, False)", inplace=False,
      samples=ANY + [Sample((2, 3), attrs={"alpha": 0.5})], **_ELU)
ELU_ = Op("elu_", _elu, "self: elu_backward(grad, result, alpha, 1, 1, True)",
           grad_fn="EluBackward1", public=False, dtype="float", **_ELU)


def elu_saved(alpha=None, scale=1, input_scale=1):
    """The `_saved_*` values PyTorch's EluBackward nodes show and no formula reads (elu's
    scale and input_scale; selu's constants)."""
    shown = {"_saved_scale": lambda node: scale, "_saved_input_scale": lambda node: input_scale}
    if alpha is not None:
        shown["_saved_alpha"] = lambda node: alpha
    return shown


OPS["elu"].extra_saved = ELU_.extra_saved = elu_saved()


def _check_approximate(approximate):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _gelu(a, approximate):
    _check_approximate(approximate)
    if approximate == "tanh":
        return 0.5 * a * (1 + np.tanh(SQRT_2_OVER_PI * (a + 0.044715 * a ** 3)))
    return 0.5 * a * (1 + _erf(a * math.sqrt(0.5)))


unary("gelu", _gelu, "self: gelu_backward(grad, self, approximate)",
      "self * Phi(self) (approximate='tanh': the tanh formula)",
      attrs=(("approximate", "none"),), method=False,
      inplace=False, samples=ANY + [Sample((2, 3), attrs={"approximate": "tanh"}),
                                    Sample((3,), attrs={"approximate": "tanh"})])


def _softplus(a, beta, threshold):
    scaled = a * beta
    return np.where(scaled > threshold, a, np.log1p(np.exp(scaled)) / beta).astype(a.dtype, copy=False)


unary("softplus", _softplus, "self: softplus_backward(grad, self, beta, threshold)",
      "log(1 + e^(beta*self))/beta (self past threshold)",
      attrs=(("beta", 1), ("threshold", 20)),  # (ints, as PyTorch's defaults: _saved_beta)
      method=False, inplace=False,
      samples=ANY + [Sample((2, 3), attrs={"beta": 2.0, "threshold": 1.0})])


@helper(shows="sigmoid({1}) * (1 + {1} * (1 - sigmoid({1})))")
def _silu_backward(grad, self):
    """PyTorch's infinitely_differentiable_silu_backward (what a create_graph backward
    records): grad * sigmoid * (1.0 + self * (1.0 - sigmoid)), the right operand of each
    product made first, as the compiled C++ evaluates it (the nodes' sequence numbers)."""
    sigmoid = self.sigmoid()
    right = OPS["add.Scalar"](self * OPS["sub"](1.0, sigmoid), 1.0)  # (1.0 - t: SubBackward0)
    return (grad * sigmoid) * right


unary("silu", lambda a: a / (1 + np.exp(-a)),
      "self: _silu_backward(grad, self)", "self * sigmoid(self)",
      method=False, inplace=False)

# ------------------------------------------------------------------ rounding, sign, abs


def _keep_integers(fn):
    def forward(a):
        return a.copy() if a.dtype.kind in "biu" else fn(a)
    return forward


unary("abs", np.abs, "self: grad * self.sgn()", "absolute value",
      dtype="same")
alias("absolute", "abs")
def sign_of(a):
    """PyTorch's sign (and sgn of a real tensor): (0 < a) - (a < 0), so nan gives 0, not nan
    as NumPy's sign; a bool tensor is itself."""
    if a.dtype == np.bool_:
        return a.copy()
    if a.dtype.kind == "f":
        return (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)
    return np.sign(a)


unary("sign", sign_of, "self: zeros_like(grad)", "sign of self", dtype="same")
unary("floor", _keep_integers(np.floor), "self: zeros_like(grad)", "round down", dtype="same")
unary("ceil", _keep_integers(np.ceil), "self: zeros_like(grad)", "round up", dtype="same")
unary("trunc", _keep_integers(np.trunc), "self: zeros_like(grad)", "round toward zero",
      dtype="same")
alias("fix", "trunc")


def _frac(a):
    if a.dtype.kind not in "fc":
        raise not_implemented("frac_cpu", a.dtype)
    return a - np.trunc(a)


unary("frac", _frac, "self: grad", "self - trunc(self)", dtype="same")

round_default = Op(
    "round.default", _keep_integers(np.round), "self: zeros_like(grad)", dtype="same", inplace=True,
    method=False, public=False, grad_fn="RoundBackward0", doc="round half to even",
    samples=ANY)
round_decimals = Op(
    "round.decimals", lambda a, decimals: a.copy() if a.dtype.kind in "biu" else np.round(a, decimals),
    "self: zeros_like(grad)", attrs=("decimals",), dtype="same", inplace=True, method=False,
    public=False,
    grad_fn="RoundBackward1", doc="round half to even at `decimals` decimal places",
    samples=[Sample(s, attrs={"decimals": 1}) for s in [(), (3,), (2, 3)]])
register(round_default)
register(round_decimals)
register(Overload(
    "round", lambda self=None, *args, **kwargs: round_decimals if args or "decimals" in kwargs
    else round_default, (round_default, round_decimals),
    doc="round half to even (decimals=: at that many decimal places)"))

# ------------------------------------------------------------------ clamp


def _bound_dtype(a, low, high):
    """clamp's result dtype: an integer tensor clamped by float numbers becomes float."""
    if a.dtype.kind in "biu" and any(isinstance(v, float) for v in (low, high)):
        return a.astype(dtypes.get_default_dtype().np)
    return a


def _clamp(a, min, max):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    for bound in (min, max):
        if bound is not None and not isinstance(bound, (int, float)):
            raise TypeError(f"clamp(): argument 'min' must be Number, not {type(bound).__name__}")
    a = _bound_dtype(a, min, max)
    out = a if min is None else np.maximum(a, min)
    out = out if max is None else np.minimum(out, max)
    return out.astype(a.dtype, copy=out is a)


@helper
def _inside(self, min, max):
    mask = None
    if min is not None:
        mask = self >= min
    if max is not None:
        mask = self <= max if mask is None else mask & (self <= max)
    return mask


clamp_scalar = Op(
    "clamp.default", _clamp, "self: where(_inside(self, min, max), grad, 0.0)",
    attrs=(("min", None), ("max", None)), dtype="numpy", inplace=True, method=False,
    public=False, grad_fn="ClampBackward1", doc="self limited to [min, max] (numbers)",
    samples=[Sample((), attrs={"min": -0.5, "max": 0.5}), Sample((3,), attrs={"min": -0.5}),
             Sample((2, 3), attrs={"max": 0.3}), Sample((2, 3), attrs={"min": -1.0, "max": 1.0})])


class _TensorBounds(Op):
    """clamp with tensor bounds: a missing bound becomes an infinite 0-d tensor of self's dtype,
    which neither changes the result dtype nor takes a gradient."""

    def __call__(self, input=None, min=None, max=None, **kwargs):
        if input is None:
            input = kwargs.pop("self")
        if kwargs:
            raise TypeError(f"clamp() got an unexpected keyword argument '{next(iter(kwargs))}'")
        dt = input._data.dtype
        if unsigned.is_wide(dt):  # (PyTorch's missing kernel, named by the bounds given)
            unsigned.check(self, (input, min, max), ())
        if min is None:
            min = _unbounded(dt, -1)
        if max is None:
            max = _unbounded(dt, 1)
        return self.apply((input, min, max), ())


def _unbounded(np_dtype, sign):
    value = sign * np.inf if np_dtype.kind in "fc" else (
        np.iinfo(np_dtype).max if sign > 0 else np.iinfo(np_dtype).min) if np_dtype.kind in "iu" \
        else sign > 0
    return Tensor._make(np.array(value, dtype=np_dtype), None, 0, False)


clamp_tensor = _TensorBounds(
    "clamp.Tensor", broadcasting(lambda a, low, high: np.minimum(np.maximum(a, low), high)),
    ("self: where((self >= min) & (self <= max), grad, 0.0)",
     "min: where((self < min) & (min < max), grad, 0.0)",
     "max: where((self > max) | (max < min), grad, 0.0)"),
    inputs=("self", "min", "max"), inplace=True, method=False, public=False,
    grad_fn="ClampBackward0", kind="binary", doc="self limited to [min, max] (tensors)",
    samples=[Sample(*shapes) for shapes in
             [((), (), ()), ((3,), (3,), (3,)), ((2, 3), (3,), (2, 1))]])


def _choose_clamp(self=None, min=None, max=None, **kwargs):
    min = kwargs.get("min", min)
    max = kwargs.get("max", max)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return clamp_tensor
    return clamp_scalar


register(clamp_scalar)
register(clamp_tensor)
register(Overload("clamp", _choose_clamp, (clamp_scalar, clamp_tensor),
                  doc="self limited to [min, max] (numbers or tensors)"))
alias("clip", "clamp")


def _register_bound(name, scalar, tensor):
    """clamp_min / clamp_max: a number bound (…Backward0) or a tensor bound (…Backward1)."""
    key = name[len("clamp_"):]
    for op in (scalar, tensor):
        register(op)
    register(Overload(
        name, lambda self=None, bound=None, *a, **k: tensor if isinstance(
            k.get(key, bound), Tensor) else scalar, (scalar, tensor),
        doc=f"self limited to {'at least' if key == 'min' else 'at most'} {key}"))


BOUND_SAMPLES = [Sample(s, attrs={"min": 0.2}) for s in [(), (3,), (2, 3)]]
_register_bound(
    "clamp_min",
    Op("clamp_min.default", lambda a, min: np.maximum(_bound_dtype(a, min, None), min),
       "self: where(self >= min, grad, 0.0)", attrs=("min",), dtype="numpy", inplace=True,
       method=False, public=False, grad_fn="ClampMinBackward0", doc="max(self, min), min a number",
       samples=BOUND_SAMPLES),
    Op("clamp_min.Tensor", broadcasting(np.maximum),
       ("self: where(self >= min, grad, 0.0)", "min: where(self < min, grad, 0.0)"),
       inputs=("self", "min"), inplace=True, method=False, public=False,
       grad_fn="ClampMinBackward1", kind="binary", doc="max(self, min), min a tensor",
       samples=BINARY))
_register_bound(
    "clamp_max",
    Op("clamp_max.default", lambda a, max: np.minimum(_bound_dtype(a, max, None), max),
       "self: where(self <= max, grad, 0.0)", attrs=("max",), dtype="numpy", inplace=True,
       method=False, public=False, grad_fn="ClampMaxBackward0", doc="min(self, max), max a number",
       samples=[Sample(s, attrs={"max": 0.2}) for s in [(), (3,), (2, 3)]]),
    Op("clamp_max.Tensor", broadcasting(np.minimum),
       ("self: where(self <= max, grad, 0.0)", "max: where(self > max, grad, 0.0)"),
       inputs=("self", "max"), inplace=True, method=False, public=False,
       grad_fn="ClampMaxBackward1", kind="binary", doc="min(self, max), max a tensor",
       samples=BINARY))

# ------------------------------------------------------------------ maximum, minimum, where, lerp


class TensorsOnly(Op):
    """An op whose inputs must all be tensors (torch.maximum(x, 2), torch.logaddexp(x, 1.0) are
    TypeErrors)."""

    def apply(self, inputs, attrs):
        for i, x in enumerate(inputs):
            if not isinstance(x, Tensor):
                raise TypeError(_bad_argument(self, x, i))
        return super().apply(inputs, attrs)


@helper
def _tie_split(g, self, other, lose):
    """The gradient of maximum/minimum for one input: g where it wins, g/2 at ties, as
    derivatives.yaml writes it: at::where(self == other, grad / 2, grad).masked_fill_(lose, 0)."""
    return OPS["where"](self == other, OPS["div.Scalar"](g, 2), g).masked_fill(lose, 0.0)


register(TensorsOnly(
    "maximum", broadcasting(np.maximum),
    ("self: _tie_split(grad, self, other, self < other)",
     "other: _tie_split(grad, self, other, self > other)"),
    inputs=("self", "other"), kind="binary", doc="the larger of self and other, elementwise",
    samples=BINARY))
register(TensorsOnly(
    "minimum", broadcasting(np.minimum),
    ("self: _tie_split(grad, self, other, self > other)",
     "other: _tie_split(grad, self, other, self < other)"),
    inputs=("self", "other"), kind="binary", doc="the smaller of self and other, elementwise",
    samples=BINARY))


class _Where(Op):
    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs:  # torch.where(condition): nonzero(as_tuple=True)
            from .compare import nonzero
            return nonzero(args[0], as_tuple=True)
        return super().__call__(*args, **kwargs)

    def apply(self, inputs, attrs):
        condition = inputs[0]
        if isinstance(condition, Tensor) and condition._data.dtype != np.bool_:
            raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                               f"with dtype {short_name(condition._data.dtype)}")
        return super().apply(inputs, attrs)

    def result_dtype(self, tensors, scalars):
        # (the condition, first, takes no part: a bool would not promote with uint16, say)
        if len(tensors) > 1 and tensors[0].dtype is dtypes.bool_:
            tensors = tensors[1:]
        return super().result_dtype(tensors, scalars)


def _where_forward(condition, a, b):
    return np.where(condition.astype(bool, copy=False), a, b)


register(_Where(
    "where", broadcasting(_where_forward),
    ("self: where(condition, grad, 0.0)", "other: where(condition, 0.0, grad)"),
    inputs=("condition", "self", "other"), edges=("self", "other"), kind="binary",
    method=lambda self, condition, y: OPS["where"](condition, self, y),
    doc="self where condition is True, else other",
    samples=[Sample(None, s, t, values={0: np.array(c)}) for s, t, c in
             [((), (), True), ((3,), (3,), [True, False, True]),
              ((2, 3), (3,), [[True, False, True], [False, False, True]]),
              ((2, 3), (2, 3), [[True, False, True], [False, True, False]])]]))


def _lerp_forward(a, end, weight):
    if end.dtype != a.dtype:
        raise RuntimeError(f"expected dtype {cpp_name(a)} for `end` but got dtype "
                           f"{cpp_name(end)}")
    diff = end - a  # PyTorch's kernel, fused: self + weight * diff, or end - diff * (1 - weight)
    return np.where(np.abs(weight) < 0.5, fma(weight, diff, a), fma(-diff, 1 - weight, end)
                    ).astype(a.dtype, copy=False)


lerp_scalar = Op(
    "lerp.Scalar", broadcasting(_lerp_forward),
    ("self: _mul_s(grad, 1 - weight)", "end: _mul_s(grad, weight)"),
    inputs=("self", "end"), attrs=("weight",), dtype="same", inplace=True, method=False,
    public=False, grad_fn="LerpBackward0", kind="binary", doc="self + weight * (end - self)",
    samples=[Sample(a, b, attrs={"weight": w}) for (a, b), w in
             [(((), ()), 0.3), (((3,), (3,)), 0.7), (((2, 3), (3,)), -0.4)]])
lerp_tensor = Op(
    "lerp.Tensor", broadcasting(_lerp_forward),
    ("self: grad * _rsub_wrapped(1.0, weight)", "end: grad * weight",
     "weight: grad * (end - self)"),
    inputs=("self", "end", "weight"), dtype="same", inplace=True, method=False, public=False,
    grad_fn="LerpBackward1", kind="binary", doc="self + weight * (end - self), weight a tensor",
    samples=[Sample(*s) for s in [((), (), ()), ((3,), (3,), (3,)), ((2, 3), (3,), (2, 1))]])
register(lerp_scalar)
register(lerp_tensor)
register(Overload(
    "lerp", lambda self=None, end=None, weight=None, **k: lerp_tensor if isinstance(
        k.get("weight", weight), Tensor) else lerp_scalar, (lerp_scalar, lerp_tensor),
    kind="binary", doc="self + weight * (end - self)"))

# ------------------------------------------------------------------ masked_fill, fill_, zero_, copy_


def _check_mask(mask):
    if isinstance(mask, Tensor) and mask._data.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{cpp_name(mask)}")


class _MaskedFill(Op):
    def apply(self, inputs, attrs):
        _check_mask(inputs[1])
        value = inputs[2]
        if isinstance(value, Tensor) and value._data.ndim:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
        return super().apply(inputs, attrs)


def _masked_fill(a, mask, value):
    return np.where(mask, np.asarray(value).astype(a.dtype), a)


MASKS = [Sample((), None, None, values={1: np.array(True), 2: 0.5}),
         Sample((3,), None, None, values={1: np.array([True, False, True]), 2: 0.5}),
         Sample((2, 3), None, None, values={1: np.array([False, True, True]), 2: -1.0})]
masked_fill_scalar = _MaskedFill(
    "masked_fill.Scalar", broadcasting(_masked_fill),
    ("self: grad.masked_fill(mask, 0.0)",), inputs=("self", "mask", "value"),
    edges=("self",),
    dtype="same", inplace=True, method=False, public=False, grad_fn="MaskedFillBackward0",
    doc="self with value (a number) where mask is True",
    samples=MASKS)
masked_fill_tensor = _MaskedFill(
    "masked_fill.Tensor", broadcasting(_masked_fill),
    ("self: grad.masked_fill(mask, 0.0)", "value: grad.masked_select(mask).sum()"),
    jvp=("self: self_t.masked_fill(mask, 0.0)", "value: value_t * mask"),
    inputs=("self", "mask", "value"), edges=("self", "value"), dtype="same", inplace=True, method=False, public=False,
    grad_fn="MaskedFillBackward1", doc="self with value (a 0-d tensor) where mask is True",
    samples=[Sample(s, None, (), values={1: m}) for s, m in
             [((), np.array(False)), ((3,), np.array([True, False, True])),
              ((2, 3), np.array([False, True, True]))]])
register(masked_fill_scalar)
register(masked_fill_tensor)
register(Overload(
    "masked_fill", lambda self=None, mask=None, value=None, **k: masked_fill_tensor if isinstance(
        k.get("value", value), Tensor) else masked_fill_scalar,
    (masked_fill_scalar, masked_fill_tensor), doc="self with value where mask is True"))


def _fill(a, value):
    if isinstance(value, np.ndarray) and value.ndim:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.ndim} dimensions.")
    return np.full(a.shape, value, a.dtype)


def _fill_ops(scalar_node, tensor_node, inplace):
    scalar = Op(
        f"fill{'_' if inplace else ''}.Scalar", _fill, ("self: zeros_like(grad)",),
        inputs=("self", "value"), edges=("self",), dtype="same", method=False, public=False,
        grad_fn=scalar_node, kind="creation", doc="a tensor like self filled with a number",
        samples=[Sample(s, None, values={1: 2.5}) for s in [(), (3,), (2, 3)]])
    tensor = Op(
        f"fill{'_' if inplace else ''}.Tensor", _fill, ("self: zeros_like(grad)",
                                                        "value: grad.sum()"),
        inputs=("self", "value"), dtype="same", method=False, public=False,
        grad_fn=tensor_node, kind="creation", doc="a tensor like self filled with a 0-d tensor",
        samples=[Sample(s, ()) for s in [(), (3,), (2, 3)]])
    return Overload(
        "fill", lambda self=None, value=None, **k: tensor if isinstance(
            k.get("value", value), Tensor) else scalar, (scalar, tensor), method=False,
        kind="creation", doc="a tensor like self filled with value (fill_: in place)")


fill = register(_fill_ops("FillBackward0", "FillBackward1", inplace=False))
FILL_ = _fill_ops("FillBackward2", "FillBackward3", inplace=True)
for _op in fill.ops + FILL_.ops:
    register(_op)
fill.inplace = FILL_

register(Op(
    "zero", np.zeros_like, "self: zeros_like(grad)", method=False, function=False, public=False,
    inplace=True, dtype="same", grad_fn="ZeroBackward0", kind="creation",
    doc="a tensor of zeros like self (zero_: in place)",
    samples=[Sample(s) for s in [(), (3,), (2, 3)]]))


def _copy(a, src, non_blocking):
    out = np.empty(a.shape, a.dtype)
    try:
        if np.broadcast_shapes(np.shape(src), a.shape) != a.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(_copy_broadcast_error(a.shape, np.shape(src))) from None
    out[...] = src
    return out


def _copy_broadcast_error(shape, src_shape):
    from .arith import broadcast_error
    return broadcast_error(shape, src_shape) or (
        f"output with shape {list(shape)} doesn't match the broadcast shape "
        f"{list(np.broadcast_shapes(shape, src_shape))}")


copy = register(Op(
    "copy", _copy, ("self: zeros_like(grad)", "src: grad"), inputs=("self", "src"),
    attrs=(("non_blocking", False),), method=False, function=False, public=False, inplace=True,
    dtype="same", grad_fn="CopyBackwards", kind="creation",
    doc="src (broadcast and converted to self's dtype) written into self (copy_)",
    samples=[Sample(a, b) for a, b in [((), ()), ((3,), (3,)), ((2, 3), (3,))]]))
copy.node_cls.name = lambda self: "torch::autograd::CopyBackwards"


def _nan_to_num(a, nan, posinf, neginf):
    if a.dtype.kind not in "fc":
        return a.copy()
    return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)


unary("nan_to_num", _nan_to_num, "self: grad * self.isfinite()",
      "self with nan, +inf and -inf replaced by numbers",
      attrs=(("nan", 0.0), ("posinf", None), ("neginf", None)), dtype="same")

# ------------------------------------------------------------------ tests of values, comparisons


def classification(name, forward, doc):
    return register(Op(name, forward, None, dtype="bool", doc=doc, kind="comparison"))


classification("isnan", np.isnan, "self is nan")
classification("isinf", np.isinf, "self is +inf or -inf")
classification("isfinite", np.isfinite, "self is neither inf nor nan")
classification("isposinf", np.isposinf, "self is +inf")
classification("isneginf", np.isneginf, "self is -inf")


def _promoted(fn):
    """Compare in PyTorch's promoted dtype, not NumPy's: a 0-d float64 tensor does not promote
    a float32 vector, a float32 tensor meeting an int64 one (or an int64 one meeting a float)
    compares in float32."""
    def forward(a, b):
        tensors = [_Shim(v) for v in (a, b) if isinstance(v, np.ndarray)]
        if len(tensors) == 2 and a.dtype == b.dtype:
            return fn(a, b)
        common = dtypes.result_type(tensors, [v for v in (a, b) if isinstance(v, SCALARS)]).np
        a, b = (v.astype(common, copy=False) if isinstance(v, np.ndarray) else
                _wrapped(v, common) for v in (a, b))
        return fn(a, b)
    return broadcasting(forward)


def _wrapped(scalar, dtype):
    """A Python int compared with an integer tensor, as PyTorch reads it: cast to the tensor's
    dtype, wrapping (`uint64_tensor == -1` compares with 2 ** 64 - 1, `uint8_tensor > -1` with
    255), where NumPy compares the values themselves."""
    if type(scalar) is not int or dtype.kind not in "iu" or not -2 ** 63 <= scalar < 2 ** 64:
        return scalar
    info = np.iinfo(dtype)
    return dtype.type((scalar - int(info.min)) % (int(info.max) - int(info.min) + 1)
                      + int(info.min))


SCALARS = (bool, int, float, complex)


class _Shim:
    """An array as dtypes.result_type reads a tensor."""

    def __init__(self, array):
        self._data, self.dtype = array, dtypes.from_numpy_dtype(array.dtype)


def comparison(name, forward, doc):
    return register(Op(name, _promoted(forward), None, inputs=("self", "other"), dtype="bool",
                       doc=doc, kind="comparison", inplace=False))


comparison("eq", np.equal, "self == other")
comparison("ne", np.not_equal, "self != other")
comparison("lt", np.less, "self < other")
comparison("le", np.less_equal, "self <= other")
comparison("gt", np.greater, "self > other")
comparison("ge", np.greater_equal, "self >= other")
comparison("logical_and", np.logical_and, "self and other, elementwise")
comparison("logical_or", np.logical_or, "self or other, elementwise")
comparison("logical_xor", np.logical_xor, "self xor other, elementwise")
for _alias, _target in {"greater": "gt", "greater_equal": "ge", "less": "lt",
                        "less_equal": "le", "not_equal": "ne"}.items():
    alias(_alias, _target)
register(Op("logical_not", np.logical_not, None, dtype="bool", doc="not self, elementwise",
            kind="comparison"))
register(Op("bitwise_not", lambda a: np.logical_not(a) if a.dtype == np.bool_ else np.invert(a),
            None, dtype="same", doc="~self", kind="comparison"))
