"""PyTorch's backward functions as ops of their own: tanh_backward, sigmoid_backward,
threshold_backward (relu), leaky_relu_backward, hardtanh_backward, elu_backward (elu, selu, celu),
gelu_backward, softplus_backward, _log_softmax_backward_data, _softmax_backward_data,
log_sigmoid_backward, hardswish_backward and the losses' mse_loss_backward,
binary_cross_entropy_backward, smooth_l1_loss_backward and huber_loss_backward.

PyTorch computes the derivative of these ops with a dedicated kernel, so a gradient built with
create_graph=True ends in `TanhBackwardBackward0` and the like (not in the MulBackward0 of a
composed formula), and it requires grad even where the second derivative is zero.  The ops here
are declared as in derivatives.yaml: their inputs in aten's order (tensors first), their
attributes under aten's names (the losses' `reduction` is aten's integer: 0 none, 1 mean,
2 sum), and their VJPs composed from ops exactly as FunctionsManual.cpp composes
`*_double_backward`, so third-order graphs hold PyTorch's nodes too.  They have no public name:
the first-order VJPs of the activations and losses call them.
"""

import math

import numpy as np

from ..engine.grad_mode import no_grad
from ..engine.tensor import Tensor
from . import vectorized
from .arith import _add_s, _div_s, _mul_s, _rsub_wrapped, _sub_s
from .derivatives import helper, show_local
from .numerics import erf as _erf, fma
from .registry import OPS, Op, Sample, elementwise_samples, register

REDUCTION = {"none": 0, "mean": 1, "sum": 2}   # at::Reduction
NONE, MEAN, SUM = 0, 1, 2
EPSILON = 1e-12                                # binary_cross_entropy's clamp and eps
GELU_BETA = 0.5 * math.sqrt(2.0) * 2.0 / math.sqrt(math.pi)   # M_SQRT2 * M_2_SQRTPI * 0.5
GELU_KAPPA = 0.044715
GELU_PDF = 2.0 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5   # M_2_SQRTPI * M_SQRT1_2 * 0.5


def backward_op(name, forward, derivatives, doc, samples, inputs, attrs=(), jvp="elementwise",
                local=None, **kw):
    """Declare one of PyTorch's backward functions (internal: no function, no method).
    local: how a formula that calls it shows (derivatives.show_local): the factor it multiplies
    grad_output by, of its other arguments {1}, {2}, …"""
    if local is not None:
        show_local(name, local)
    return register(Op(name, forward, derivatives, inputs=inputs, attrs=attrs, jvp=jvp, doc=doc,
                       samples=samples, method=False, public=False,
                       inplace=False, kind="backward", **kw))


def _call(name, *inputs_and_attrs):
    """Call table op `name` with its tensor inputs, then its attributes, positionally."""
    op = OPS[name]
    n = op.n_inputs
    return op.apply(tuple(inputs_and_attrs[:n]), tuple(inputs_and_attrs[n:]))


def _type_as(mask, like):
    return mask.to(like.dtype)


@helper
def _zeros_like(g):
    return OPS["zeros_like"](g)


def _numel(a):
    return int(np.prod(np.shape(a)))


def _errstate():
    return np.errstate(over="ignore", invalid="ignore", divide="ignore")


BINARY = elementwise_samples(unary=False)


def _with(attrs, samples=BINARY, **kw):
    return [Sample(*s.shapes, low=kw.get("low", s.low), high=kw.get("high", s.high),
                   attrs=dict(attrs)) for s in samples]


# ------------------------------------------------------------------ tanh, sigmoid

@helper
def tanh_backward(grad_output, output):
    return _call("tanh_backward", grad_output, output)


backward_op(
    "tanh_backward", lambda go, out: go * fma(-out, out, 1),  # (PyTorch's fused 1 - out^2)
    ("grad_output: tanh_backward(grad, output)",
     "output: grad * (_mul_s(output, -2) * grad_output)"),
    "tanh's backward: grad_output * (1 - output^2)",
    BINARY, inputs=("grad_output", "output"),
    local="1 - {1}^2")


@helper
def sigmoid_backward(grad_output, output):
    return _call("sigmoid_backward", grad_output, output)


backward_op(
    "sigmoid_backward", lambda go, out: go * (1 - out) * out,
    ("grad_output: sigmoid_backward(grad, output)",
     "output: grad * grad_output * _add_s(_mul_s(output, -2), 1)"),
    "sigmoid's backward: grad_output * output * (1 - output)",
    BINARY, inputs=("grad_output", "output"),
    local="{1} * (1 - {1})")


# ------------------------------------------------------------------ relu, leaky_relu, hardtanh
# Piecewise linear: the derivative in `self` is zero (PyTorch's zeros_like(grad)).

@helper
def threshold_backward(grad_output, self, threshold):
    return _call("threshold_backward", grad_output, self, threshold)


backward_op(
    "threshold_backward", lambda go, a, threshold: np.where(a <= threshold, 0, go),
    ("grad_output: threshold_backward(grad, self, threshold)", "self: _zeros_like(grad)"),
    "relu's and threshold's backward: grad_output where self > threshold, else 0",
    _with({"threshold": 0.1}), inputs=("grad_output", "self"), attrs=("threshold",),
    local="1 if {1} > {2} else 0")


@helper
def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    return _call("leaky_relu_backward", grad_output, self, negative_slope, self_is_result)


def _leaky_relu_backward(go, a, negative_slope, self_is_result):
    if self_is_result and negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which is "
            "not supported. This is caused by calling in-place forward function with a negative "
            "slope, please call out-of-place version instead. File an issue at "
            "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
            "backward calculation with negative slope")
    return np.where(a > 0, go, np.multiply(go, negative_slope))


backward_op(
    "leaky_relu_backward", _leaky_relu_backward,
    ("grad_output: leaky_relu_backward(grad, self, negative_slope, False)",
     "self: _zeros_like(grad)"),
    "leaky_relu's backward: grad_output where self > 0, else negative_slope * grad_output",
    _with({"negative_slope": 0.2, "self_is_result": False}), inputs=("grad_output", "self"),
    attrs=("negative_slope", "self_is_result"),
    local="1 if {1} > 0 else {2}")


@helper
def hardtanh_backward(grad_output, self, min_val, max_val):
    return _call("hardtanh_backward", grad_output, self, min_val, max_val)


backward_op(
    "hardtanh_backward",
    lambda go, a, min_val, max_val: np.where((a <= min_val) | (a >= max_val), 0, go),
    ("grad_output: hardtanh_backward(grad, self, min_val, max_val)", "self: _zeros_like(grad)"),
    "hardtanh's backward: grad_output strictly inside (min_val, max_val), else 0",
    _with({"min_val": -0.5, "max_val": 1.5}), inputs=("grad_output", "self"),
    attrs=("min_val", "max_val"),
    local="1 if {2} < {1} < {3} else 0")


# ------------------------------------------------------------------ elu (selu, celu)

@helper
def elu_backward(grad_output, self_or_result, alpha, scale, input_scale, is_result):
    return _call("elu_backward", grad_output, self_or_result, alpha, scale, input_scale,
                 is_result)


def _elu_backward(go, x, alpha, scale, input_scale, is_result):
    negcoef = alpha * scale
    with _errstate():
        if is_result:
            negative = go * input_scale * (x + negcoef)
        else:
            negative = go * input_scale * negcoef * np.exp(x * input_scale)
    return np.where(x <= 0, negative, np.multiply(go, scale))


@helper
def elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result):
    """FunctionsManual's elu_double_backward: only the exponential side curves."""
    negative = _type_as(self_or_result < 0, grad)
    if is_result:
        return _mul_s(grad * grad_output, input_scale) * negative
    return elu_backward(_mul_s(grad * grad_output, input_scale), self_or_result, alpha, scale,
                        input_scale, is_result) * negative


backward_op(
    "elu_backward", _elu_backward,
    ("grad_output: elu_backward(grad, self_or_result, alpha, scale, input_scale, is_result)",
     "self_or_result: elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result)"),
    "elu's backward (selu, celu): grad_output * scale above 0, grad_output * the exponential "
    "side's slope below",
    _with({"alpha": 1.0, "scale": 1.0, "input_scale": 1.0, "is_result": False})
    + [Sample((2, 3), (2, 3), attrs={"alpha": 0.5, "scale": 1.0, "input_scale": 2.0,
                                     "is_result": False}),
       Sample((3,), (3,), attrs={"alpha": 1.6732632423543772, "scale": 1.0507009873554805,
                                 "input_scale": 1.0, "is_result": False}),
       Sample((2, 3), (2, 3), attrs={"alpha": 1.0, "scale": 1.0, "input_scale": 1.0,
                                     "is_result": True}, name="is_result")],
    inputs=("grad_output", "self_or_result"),
    attrs=("alpha", "scale", "input_scale", "is_result"))


# ------------------------------------------------------------------ gelu

@helper
def gelu_backward(grad_output, self, approximate="none"):
    return _call("gelu_backward", grad_output, self, approximate)


def _gelu_backward(go, x, approximate):
    if approximate == "tanh":
        x_sq = x * x
        inner = GELU_BETA * (x + GELU_KAPPA * x_sq * x)
        tanh_inner = np.tanh(inner)
        left_derivative = 0.5 * (1 + tanh_inner)
        right_derivative = 0.5 * x * (1 - tanh_inner * tanh_inner) * GELU_BETA * (
            1 + 3 * GELU_KAPPA * x_sq)
        return go * (left_derivative + right_derivative)
    cdf = 0.5 * (1 + _erf(np.asarray(x * math.sqrt(0.5))))
    pdf = np.exp(-0.5 * x * x) * GELU_PDF
    return go * (cdf + x * pdf)


@helper
def gelu_double_backward(ggI, gO, input, approximate):
    """FunctionsManual's gelu_double_backward, op for op."""
    if approximate == "tanh":
        inner = _mul_s(input + _mul_s(input ** 3, GELU_KAPPA), GELU_BETA)
        tanh_inner = inner.tanh()
        sech_inner = OPS["div.Tensor"](1.0, inner.cosh())
        f = _mul_s(input, 0.5)
        g = _rsub_wrapped(1, tanh_inner * tanh_inner)
        h = _mul_s(_add_s(_mul_s(input, 3 * GELU_KAPPA) * input, 1), GELU_BETA)
        f_prime_gh = _mul_s(g, 0.5) * h
        g_prime = _mul_s(sech_inner, 2) * (-sech_inner * tanh_inner) * h
        g_prime_fh = f * h * g_prime
        h_prime = _mul_s(_mul_s(input, 6 * GELU_KAPPA), GELU_BETA)
        h_prime_fg = f * g * h_prime
        return ggI * gO * (_mul_s(f_prime_gh, 2) + g_prime_fh + h_prime_fg)
    input_sq = input * input
    pdf = _mul_s(_mul_s(input_sq, -0.5).exp(), GELU_PDF)
    dgrad_dinput = _mul_s(pdf, 2) - input_sq * pdf
    return ggI * gO * dgrad_dinput


def _check_approximate(approximate):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _gelu_backward_checked(go, x, approximate):
    _check_approximate(approximate)
    return _gelu_backward(go, x, approximate)


backward_op(
    "gelu_backward", _gelu_backward_checked,
    ("grad_output: gelu_backward(grad, self, approximate)",
     "self: gelu_double_backward(grad, grad_output, self, approximate)"),
    "gelu's backward: grad_output * (Phi(self) + self * phi(self)) (or the tanh formula's slope)",
    _with({"approximate": "none"}) + _with({"approximate": "tanh"}, BINARY[1:4]),
    inputs=("grad_output", "self"), attrs=(("approximate", "none"),))


# ------------------------------------------------------------------ softplus

@helper
def softplus_backward(grad_output, self, beta, threshold):
    return _call("softplus_backward", grad_output, self, beta, threshold)


def _softplus_backward(go, x, beta, threshold):
    scaled = x * beta
    with _errstate():
        z = np.exp(scaled)
        return np.where(scaled > threshold, go, go * z / (z + 1.0))


@helper
def softplus_double_backward(grad, input, beta, threshold):
    x = _mul_s(input, beta)
    return _mul_s(sigmoid_backward(grad, x.sigmoid()) * _type_as(x < threshold, grad), beta)


backward_op(
    "softplus_backward", _softplus_backward,
    ("grad_output: softplus_backward(grad, self, beta, threshold)",
     "self: softplus_double_backward(grad * grad_output, self, beta, threshold)"),
    "softplus's backward: grad_output * sigmoid(beta * self) (grad_output past threshold)",
    _with({"beta": 1.0, "threshold": 20.0})
    + [Sample((2, 3), (2, 3), attrs={"beta": 2.0, "threshold": 1.0})],
    inputs=("grad_output", "self"), attrs=("beta", "threshold"),
    local="sigmoid({2} * {1}) (1 where {2} * {1} > {3})")


# ------------------------------------------------------------------ log_sigmoid

@helper
def log_sigmoid_backward(grad_output, self):
    return _call("log_sigmoid_backward", grad_output, self)


def _log_sigmoid_backward(go, x):
    negative = x < 0
    z = np.exp(-np.abs(x))
    return go * (np.where(negative, 1.0, 0.0) - np.where(negative, 1.0, -1.0) * (z / (1 + z)))


@helper
def log_sigmoid_double_backward(grad, input):
    z = input.sigmoid()
    return grad * _sub_s(z, 1) * z


backward_op(
    "log_sigmoid_backward", _log_sigmoid_backward,
    ("grad_output: log_sigmoid_backward(grad, self)",
     "self: log_sigmoid_double_backward(grad * grad_output, self)"),
    "log_sigmoid's backward: grad_output * sigmoid(-self) (aten's buffer argument is unused)",
    BINARY, inputs=("grad_output", "self"),
    local="sigmoid(-{1})")


# ------------------------------------------------------------------ hardswish

@helper
def hardswish_backward(grad_output, self):
    return _call("hardswish_backward", grad_output, self)


def _hardswish_backward(go, x):
    return np.where(x <= -3, 0, np.where(x < 3, go * (x / 3 + 0.5), go))


@helper
def _hardswish_double_backward(g, grad_output, self):
    inside = OPS["logical_and"](-3.0 < self, self < 3.0)
    zero = Tensor._make(np.zeros((), self._data.dtype), None, 0, False)
    return OPS["where"](inside, _div_s(g * grad_output, 3.0), zero)


backward_op(
    "hardswish_backward", _hardswish_backward,
    ("grad_output: hardswish_backward(grad, self)",
     "self: _hardswish_double_backward(grad, grad_output, self)"),
    "hardswish's backward: 0 up to -3, grad_output * (self/3 + 1/2) below 3, grad_output above",
    _with({}, low=-4.0, high=4.0), inputs=("grad_output", "self"),
    local="0 below -3, {1}/3 + 1/2 up to 3, 1 above")


# ------------------------------------------------------------------ softmax, log_softmax

def _softmax_shape(a, dim):
    if not np.ndim(a):
        return np.reshape(a, (1,)), 0
    return a, dim % np.ndim(a)


def _log_softmax_backward(go, out, dim, input_dtype):
    """PyTorch's CPU kernels to the bit (gradcli.ops.vectorized); NumPy for other dtypes."""
    shape = np.broadcast_shapes(np.shape(go), np.shape(out))
    exact = vectorized.along(dim, vectorized.log_softmax_backward_lastdim,
                             vectorized.log_softmax_backward_inner, np.broadcast_to(go, shape),
                             out)
    if exact is not None:
        return exact
    g, d = _softmax_shape(np.broadcast_to(go, shape), dim)
    o, _ = _softmax_shape(np.broadcast_to(out, shape), dim)
    return (g - np.exp(o) * np.sum(g, axis=d, keepdims=True)).reshape(shape)


def _softmax_backward(go, out, dim, input_dtype):
    """As log_softmax's."""
    shape = np.broadcast_shapes(np.shape(go), np.shape(out))
    exact = vectorized.along(dim, vectorized.softmax_backward_lastdim,
                             vectorized.softmax_backward_inner, np.broadcast_to(go, shape), out)
    if exact is not None:
        return exact
    g, d = _softmax_shape(np.broadcast_to(go, shape), dim)
    o, _ = _softmax_shape(np.broadcast_to(out, shape), dim)
    return (o * (g - np.sum(g * o, axis=d, keepdims=True))).reshape(shape)


@helper
def log_softmax_backward_data(grad_output, output, dim, input_dtype):
    return _call("_log_softmax_backward_data", grad_output, output, dim, input_dtype)


@helper
def softmax_backward_data(grad_output, output, dim, input_dtype):
    return _call("_softmax_backward_data", grad_output, output, dim, input_dtype)


@helper
def softmax_double_backward(grad, grad_output, dim, output):
    return (grad_output * grad - (output * grad_output).sum(dim, True) * grad
            - grad_output * (output * grad).sum(dim, True))


@helper
def _as(t, like):
    return t if t.dtype == like.dtype else t.to(like.dtype)


SOFTMAX_SAMPLES = [Sample(s, s, attrs=dict(a)) for s, a in [
    ((3,), {"dim": 0}), ((2, 3), {"dim": 1}), ((2, 3), {"dim": 0}), ((), {"dim": 0}),
    ((2, 3, 2), {"dim": -1})]]


def _dtype_samples():
    from ..engine import dtypes
    return [Sample(*s.shapes, attrs=dict(s.attrs, input_dtype=dtypes.float64))
            for s in SOFTMAX_SAMPLES]


backward_op(
    "_log_softmax_backward_data", _log_softmax_backward,
    ("grad_output: _as(grad, output) - (_as(grad, output) * output.exp()).sum(dim, True)",
     "output: _as(-grad_output.sum(dim, True) * output.exp() * _as(grad, output), output)"),
    "log_softmax's backward: grad_output - exp(output) * sum(grad_output) along dim",
    _dtype_samples(), inputs=("grad_output", "output"), attrs=("dim", "input_dtype"),
    jvp=("grad_output: log_softmax_backward_data(grad_output_t, output, dim, input_dtype)",
         "output: -grad_output.sum(dim, True) * output.exp() * output_t"))
backward_op(
    "_softmax_backward_data", _softmax_backward,
    ("grad_output: softmax_backward_data(_as(grad, output), output, dim, input_dtype)",
     "output: _as(softmax_double_backward(_as(grad, output), grad_output, dim, output), output)"),
    "softmax's backward: output * (grad_output - sum(grad_output * output)) along dim",
    _dtype_samples(), inputs=("grad_output", "output"), attrs=("dim", "input_dtype"),
    jvp=("grad_output: softmax_backward_data(grad_output_t, output, dim, input_dtype)",
         "output: output_t * (grad_output - (grad_output * output).sum(dim, True)) - output * (grad_output * output_t).sum(dim, True)"))


# ------------------------------------------------------------------ losses

def _norm(reduction, n):
    return 1.0 / n if reduction == MEAN else 1.0


def _mean_over(t, reduction, n):
    return _div_s(t, n) if reduction == MEAN else t


@helper
def _sum_to(t, shape):
    """PyTorch's at::sum_to for a 0-d grad_output: a full sum (SumBackward0)."""
    return t.sum() if not shape and t.dim() else t


@helper
def mse_loss_backward(grad_output, self, target, reduction):
    return _call("mse_loss_backward", grad_output, self, target, reduction)


def _mse_loss_backward(go, a, b, reduction):
    norm = 2.0 / _numel(a) if reduction == MEAN else 2.0
    return (np.subtract(a, b) * norm) * go


@helper
def mse_loss_double_backward(grad, input, reduction):
    return _mean_over(_mul_s(grad, 2), reduction, input.numel())


LOSS_SAMPLES = [Sample((), (3,), (3,), attrs={"reduction": MEAN}),
                Sample((), (2, 3), (2, 3), attrs={"reduction": SUM}),
                Sample((2, 3), (2, 3), (2, 3), attrs={"reduction": NONE}),
                Sample((), (), (), attrs={"reduction": MEAN})]

backward_op(
    "mse_loss_backward", _mse_loss_backward,
    ("grad_output: _sum_to(mse_loss_backward(grad, self, target, reduction), grad_output_shape)",
     "self: mse_loss_double_backward(grad * grad_output, self, reduction)",
     "target: -mse_loss_double_backward(grad * grad_output, target, reduction)"),
    "mse_loss's backward: 2 (self - target) grad_output (over numel for reduction=1, mean)",
    LOSS_SAMPLES, inputs=("grad_output", "self", "target"), attrs=("reduction",),
    jvp=("grad_output: mse_loss_backward(grad_output_t, self, target, reduction)",
         "self: mse_loss_double_backward(self_t * grad_output, self, reduction)",
         "target: -mse_loss_double_backward(target_t * grad_output, target, reduction)"))


@helper
def smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    return _call("smooth_l1_loss_backward", grad_output, self, target, reduction, beta)


def _smooth_l1_loss_backward(go, a, b, reduction, beta):
    x = np.subtract(a, b)
    norm = _norm(reduction, _numel(a))
    with _errstate():
        inside = norm * x * go / beta
    return np.where(x < -beta, -norm * go, np.where(x > beta, norm * go, inside))


@helper
def smooth_l1_loss_double_backward(grad, input, target, reduction, beta):
    if beta == 0:
        return OPS["zeros"](tuple(grad.shape), dtype=grad.dtype)
    d = (input - target).abs()
    return _mean_over(_div_s(grad * _type_as(d < beta, grad), beta), reduction, input.numel())


backward_op(
    "smooth_l1_loss_backward", _smooth_l1_loss_backward,
    ("grad_output: _sum_to(smooth_l1_loss_backward(grad, self, target, reduction, beta), grad_output_shape)",
     "self: smooth_l1_loss_double_backward(grad * grad_output, self, target, reduction, beta)",
     "target: -smooth_l1_loss_double_backward(grad * grad_output, self, target, reduction, beta)"),
    "smooth_l1_loss's backward: grad_output * (d/beta inside |d| <= beta, else sign(d))",
    [Sample(*s.shapes, attrs=dict(s.attrs, beta=1.0)) for s in LOSS_SAMPLES]
    + [Sample((2, 3), (2, 3), (2, 3), attrs={"reduction": NONE, "beta": 0.5})],
    inputs=("grad_output", "self", "target"), attrs=("reduction", "beta"),
    jvp=("grad_output: smooth_l1_loss_backward(grad_output_t, self, target, reduction, beta)",
         "self: smooth_l1_loss_double_backward(self_t * grad_output, self, target, reduction, beta)",
         "target: -smooth_l1_loss_double_backward(target_t * grad_output, self, target, reduction, beta)"))


@helper
def huber_loss_backward(grad_output, self, target, reduction, delta):
    return _call("huber_loss_backward", grad_output, self, target, reduction, delta)


def _huber_loss_backward(go, a, b, reduction, delta):
    x = np.subtract(a, b)
    norm = _norm(reduction, _numel(a))
    return np.where(x <= -delta, -norm * go * delta,
                    np.where(x >= delta, norm * go * delta, norm * x * go))


@helper
def huber_loss_double_backward(grad, input, target, reduction, delta):
    d = (input - target).abs()
    return _mean_over(grad * (d < delta), reduction, input.numel())


@helper
def huber_loss_double_backward_grad_output(grad, grad_output, input, target, reduction, delta):
    if reduction == NONE:
        return huber_loss_backward(grad, input, target, reduction, delta)
    r = huber_loss_backward(OPS["ones_like"](grad_output), input, target, reduction, delta)
    return (r * grad).sum()


backward_op(
    "huber_loss_backward", _huber_loss_backward,
    ("grad_output: huber_loss_double_backward_grad_output(grad, grad_output, self, target, reduction, delta)",
     "self: huber_loss_double_backward(grad * grad_output, self, target, reduction, delta)",
     "target: -huber_loss_double_backward(grad * grad_output, self, target, reduction, delta)"),
    "huber_loss's backward: grad_output * (d inside |d| < delta, else delta * sign(d))",
    [Sample(*s.shapes, attrs=dict(s.attrs, delta=1.0)) for s in LOSS_SAMPLES]
    + [Sample((2, 3), (2, 3), (2, 3), attrs={"reduction": NONE, "delta": 0.5})],
    inputs=("grad_output", "self", "target"), attrs=("reduction", "delta"),
    jvp=("grad_output: huber_loss_backward(grad_output_t, self, target, reduction, delta)",
         "self: huber_loss_double_backward(self_t * grad_output, self, target, reduction, delta)",
         "target: -huber_loss_double_backward(target_t * grad_output, self, target, reduction, delta)"))


@helper
def binary_cross_entropy_backward(grad_output, self, target, weight=None, reduction=MEAN):
    return _call("binary_cross_entropy_backward", grad_output, self, target, weight, reduction)


def _bce_backward(go, x, t, weight, reduction):
    out = go * (x - t) / np.maximum((1 - x) * x, EPSILON)
    if weight is not None:
        out = out * weight._data
    if reduction == MEAN:
        out = out / _numel(x)
    return out


@helper
def bce_double_backward(grad_output, grad, input, target, weight, reduction):
    """FunctionsManual's binary_cross_entropy_double_backward (the slope in self)."""
    inp_pl_eps = _add_s(input, EPSILON)
    one_m_inp_pl_eps = _add_s(_rsub_wrapped(1, input), EPSILON)
    gI = (input * input - _mul_s(input, 2) * target + target) / (
        inp_pl_eps ** 2 * one_m_inp_pl_eps ** 2)
    gI = gI * (grad * grad_output)
    if weight is not None:
        gI = gI * weight
    return _mean_over(gI, reduction, input.numel())


@helper
def bce_double_backward_grad_output(grad, input, target, weight, reduction):
    """The slope in grad_output, per element (reduced to grad_output's shape after)."""
    ggO = (input - target) / (_add_s(input, EPSILON) * _add_s(_rsub_wrapped(1, input), EPSILON))
    ggO = ggO * grad
    if weight is not None:
        ggO = ggO * weight
    return _mean_over(ggO, reduction, input.numel())


@helper
def bce_double_backward_target(grad, grad_output, self, target, weight, reduction):
    res = -grad * grad_output
    if weight is not None:
        res = res * weight
    denom = _rsub_wrapped(1, self) * self
    with no_grad():
        denom.clamp_min_(EPSILON)
    res = res / denom
    return _mean_over(res, reduction, target.numel())


BCE_SAMPLES = [Sample((), (3,), (3,), low=0.1, high=0.9, attrs={"reduction": MEAN}),
               Sample((), (2, 3), (2, 3), low=0.1, high=0.9, attrs={"reduction": SUM}),
               Sample((2, 3), (2, 3), (2, 3), low=0.1, high=0.9, attrs={"reduction": NONE}),
               Sample((), (), (), low=0.1, high=0.9, attrs={"reduction": MEAN})]

backward_op(
    "binary_cross_entropy_backward", _bce_backward,
    ("grad_output: _sum_to(bce_double_backward_grad_output(grad, self, target, weight, reduction), grad_output_shape)",
     "self: bce_double_backward(grad_output, grad, self, target, weight, reduction)",
     "target: bce_double_backward_target(grad, grad_output, self, target, weight, reduction)"),
    "binary_cross_entropy's backward: grad_output (self - target) / max(self (1 - self), eps)",
    BCE_SAMPLES, inputs=("grad_output", "self", "target"),
    attrs=(("weight", None), ("reduction", MEAN)),
    jvp=("grad_output: binary_cross_entropy_backward(grad_output_t, self, target, weight, reduction)",
         "self: bce_double_backward(grad_output, self_t, self, target, weight, reduction)",
         "target: bce_double_backward_target(target_t, grad_output, self, target, weight, reduction)"))


# what PyTorch's nodes of these do not save: the shape of grad_output (their formulas sum a
# broadcast gradient back to it), softmax's input dtype
for _name in ("mse_loss_backward", "smooth_l1_loss_backward", "binary_cross_entropy_backward"):
    OPS[_name].hidden_saved = ("grad_output_sym_sizes",)
OPS["_softmax_backward_data"].hidden_saved = ("input_dtype",)
