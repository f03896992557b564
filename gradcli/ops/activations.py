"""More activations (torch.nn.functional): hardtanh (relu6), hardsigmoid, hardswish, mish, selu,
celu, log_sigmoid, softshrink, hardshrink, threshold, glu.  PyTorch gives most of them no
torch.<name> function, so they are table ops without a public name; gradcli.nn.functional
calls them (and their in-place variants, whose nodes PyTorch names differently for selu, celu
and threshold)."""

import numpy as np

from ..engine.dtypes import short_name
from ..engine.messages import not_implemented
from ..engine.tensor import Tensor
from .derivatives import helper
from .elementwise import elu_saved
from .registry import (OPS, Composed, Op, Plain, Sample, elementwise_samples, register,
                       wrap_dim)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _floating(name, a, kernel=None):
    if a.dtype.kind not in "fc":
        raise not_implemented(kernel or name + "_cpu", a.dtype)


def activation(name, forward, derivative, doc, samples, public=False, method=False, **kw):
    kw.setdefault("dtype", "same")
    return register(Op(name, forward, derivative, doc=doc, samples=samples,
                       method=method, public=public, inplace=False, **kw))


def _samples(low, high, **attrs):
    out = elementwise_samples(low, high)
    if attrs:
        out.append(Sample((2, 3), low=low, high=high, attrs=attrs))
    return out


# ------------------------------------------------------------------ hardtanh, hardsigmoid, hardswish

def _hardtanh(a, min_val, max_val):
    if min_val > max_val:
        raise RuntimeError("min_val cannot be greater than max_val")
    if a.dtype == np.bool_:
        raise not_implemented("hardtanh_cpu", a.dtype)
    return np.clip(a, min_val, max_val).astype(a.dtype, copy=False)


activation("hardtanh", _hardtanh,
           "self: hardtanh_backward(grad, self, min_val, max_val)",
           "self clamped to [min_val, max_val] (relu6: [0, 6])",
           _samples(-2.0, 2.0, min_val=-0.5, max_val=1.5),
           attrs=(("min_val", -1.0), ("max_val", 1.0)))


def _hardsigmoid(a):
    _floating("hardsigmoid", a)
    return np.clip(a / 6 + 0.5, 0, 1).astype(a.dtype, copy=False)


_ONE_SIXTH = float(np.float32(1.0) / np.float32(6.0))  # (the kernel's `1.0f / 6.0f`, in float)


@helper(shows="1/6 where -3 < {1} < 3, else 0")
def hardsigmoid_backward(grad, self):
    """PyTorch's hardsigmoid_backward: grad * (1.0f / 6.0f) where -3 < self < 3, 0 elsewhere
    (the kernel's one_sixth is a float, in float64 too).  PyTorch has no derivative for it: in
    a create_graph backward its output hangs from a NotImplemented node, whose backward
    raises."""
    from .sorting import FailingNode
    global _HARDSIGMOID_BACKWARD_NODE
    g, x = grad._data, self._data
    inside = (x > -3) & (x < 3)
    data = np.where(inside, g * np.asarray(_ONE_SIXTH, g.dtype), np.zeros((), g.dtype))
    result = Tensor._make(np.asarray(data, g.dtype), None, 0, False)
    if _HARDSIGMOID_BACKWARD_NODE is None:
        _HARDSIGMOID_BACKWARD_NODE = FailingNode(
            "NotImplemented", "derivative for aten::hardsigmoid_backward is not implemented",
            inputs=("grad_output", "self"), error=RuntimeError)
    _HARDSIGMOID_BACKWARD_NODE.attach((grad, self), (result,))
    return result


_HARDSIGMOID_BACKWARD_NODE = None
activation("hardsigmoid", _hardsigmoid, "self: hardsigmoid_backward(grad, self)",
           "relu6(self + 3) / 6", elementwise_samples(-4.0, 4.0, gradgrad=False))


def _hardswish(a):
    _floating("hardswish", a)
    return (a * np.clip(a + 3, 0, 6) / 6).astype(a.dtype, copy=False)


activation("hardswish", _hardswish,
           "self: hardswish_backward(grad, self)",
           "self * relu6(self + 3) / 6",
           _samples(-4.0, 4.0))


# ------------------------------------------------------------------ mish, selu, celu, log_sigmoid

def _softplus(a):
    return np.maximum(a, 0) + np.log1p(np.exp(-np.abs(a)))


def _mish(a):
    _floating("mish", a)
    return (a * np.tanh(_softplus(a))).astype(a.dtype, copy=False)


@helper(shows="tanh(softplus({1})) + {1} * sigmoid({1}) * (1 - tanh(softplus({1}))^2)")
def _mish_backward(grad, self):
    """PyTorch's infinitely_differentiable_mish_backward: softplus as self.exp().log1p(); the
    right operand of each product made first, as the compiled C++ evaluates it."""
    sigmoid = self.sigmoid()
    tanh_softplus = self.exp().log1p().tanh()
    rest = OPS["sub"](1.0, tanh_softplus * tanh_softplus)
    rest = (self * sigmoid) * rest
    return grad * (tanh_softplus + rest)


activation("mish", _mish, "self: _mish_backward(grad, self)", "self * tanh(softplus(self))",
           _samples(-2.0, 2.0))


def _elu_like(name, alpha, scale, input_scale):
    def forward(a, *ignored):
        _floating("elu", a)
        x = a * input_scale
        return (scale * np.where(a > 0, a, alpha * np.expm1(x))).astype(a.dtype, copy=False)
    forward.__name__ = name
    return forward


SELU_DOC = dict(doc="scale * (self if self > 0 else alpha * (e^self - 1)), PyTorch's constants")
activation("selu", _elu_like("selu", SELU_ALPHA, SELU_SCALE, 1.0), "self: elu_backward(grad, self, SELU_ALPHA, SELU_SCALE, 1, False)",
           samples=_samples(-2.0, 2.0), public=True, grad_fn="EluBackward0", **SELU_DOC)
SELU_ = Op("selu_", _elu_like("selu", SELU_ALPHA, SELU_SCALE, 1.0),
           "self: elu_backward(grad, result, SELU_ALPHA, SELU_SCALE, 1, True)",
           grad_fn="EluBackward1", public=False, method=False, dtype="same", **SELU_DOC)
OPS["selu"].extra_saved = SELU_.extra_saved = elu_saved(SELU_ALPHA, SELU_SCALE)


def _celu(a, alpha):
    _floating("elu", a)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return np.where(a > 0, a, alpha * np.expm1(a / alpha)).astype(a.dtype, copy=False)


CELU_DOC = dict(doc="self if self > 0 else alpha * (e^(self/alpha) - 1)", attrs=(("alpha", 1.0),))
activation("celu", _celu, "self: elu_backward(grad, self, alpha, 1, 1.0 / alpha, False)",
           samples=_samples(-2.0, 2.0, alpha=0.5), public=True,
           **CELU_DOC)
CELU_ = Op("celu_", _celu, "self: elu_backward(grad, result, alpha, 1, 1.0 / alpha, True)",
           grad_fn="CeluBackward1", public=False, method=False,
           dtype="same", **CELU_DOC)


def _log_sigmoid(a):
    _floating("log_sigmoid", a)
    return (np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))).astype(a.dtype, copy=False)


activation("log_sigmoid", _log_sigmoid, "self: log_sigmoid_backward(grad, self)",
           "log(sigmoid(self)), computed stably (F.logsigmoid)",
           _samples(-2.0, 2.0), grad_fn="LogSigmoidBackward0")


# ------------------------------------------------------------------ shrinks, threshold

def _check_lambda(a, lambd):
    top = np.finfo(a.dtype).max if a.dtype.kind == "f" else np.finfo(np.float32).max
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{short_name(a.dtype)}, but found {lambd:g}")


def _softshrink(a, lambd):
    _floating("softshrink", a, "softshrink_check")
    _check_lambda(a, lambd)
    # (PyTorch's kernel: a * 0 between the bounds, so nan stays nan and -0.3 gives -0.)
    return np.where(a > lambd, a - lambd, np.where(a < -lambd, a + lambd, a * 0)).astype(
        a.dtype, copy=False)


# (the shrinks' gradient: 0 within [-lambd, lambd], grad elsewhere, at nan too, as PyTorch's)
activation("softshrink", _softshrink,
           "self: where((self >= -lambd) & (self <= lambd), 0.0, grad)",
           "self - lambd above lambd, self + lambd below -lambd, else 0",
           _samples(-2.0, 2.0, lambd=1.0),
           attrs=(("lambd", 0.5),))


def _hardshrink(a, lambd):
    _floating("hardshrink", a)
    return np.where((a >= -lambd) & (a <= lambd), 0, a).astype(a.dtype, copy=False)


activation("hardshrink", _hardshrink,
           "self: where((self >= -lambd) & (self <= lambd), 0.0, grad)",
           "self where |self| > lambd, else 0",
           _samples(-2.0, 2.0, lambd=1.0), attrs=(("lambd", 0.5),), public=True, method=True)


def _threshold(a, threshold, value):
    # (PyTorch's `self <= threshold ? value : self`: nan stays nan)
    return np.where(a <= threshold, value, a).astype(a.dtype, copy=False)


THRESHOLD_DOC = dict(doc="self where self > threshold, else value",
                     attrs=("threshold", "value"))
activation("threshold", _threshold,
           "self: threshold_backward(grad, self, threshold)",
           samples=[Sample(s, attrs={"threshold": 0.1, "value": 20.0}) for s in [(), (3,), (2, 3)]],
           public=True, **THRESHOLD_DOC)
THRESHOLD_ = Op("threshold_", _threshold,
                "self: threshold_backward(grad, self, threshold)",
                grad_fn="ThresholdBackward1", public=False, method=False, dtype="same",
                **THRESHOLD_DOC)


# ------------------------------------------------------------------ glu

def _glu(a, dim):
    if a.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, a.ndim)
    if a.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{a.shape[d]}")
    _floating("glu", a)  # (after the shape's checks, as PyTorch's)
    first, second = np.split(a, 2, axis=d)
    return first / (1 + np.exp(-second))


def _glu_halves(self, dim):
    d = wrap_dim(dim, self.dim())
    n = self.shape[d] // 2
    return self.narrow(d, 0, n), self.narrow(d, n, n), d


@helper
def _glu_vjp(g, self, dim):
    a, b, d = _glu_halves(self, dim)
    s = b.sigmoid()
    return OPS["cat"]([g * s, g * a * s * (1 - s)], d)


@helper
def _glu_jvp(t, self, dim):
    a, b, d = _glu_halves(self, dim)
    ta, tb, _ = _glu_halves(t, dim)
    s = b.sigmoid()
    return ta * s + a * s * (1 - s) * tb


register(Op(
    "glu", _glu, "self: _glu_vjp(grad, self, dim)", jvp="self: _glu_jvp(self_t, self, dim)",
    attrs=(("dim", -1),), dtype="same", method=False,
    public=False, kind="activation", doc="first half * sigmoid(second half) of self along dim",
    samples=[Sample((4,)), Sample((2, 4)), Sample((4, 3), attrs={"dim": 0})]))
helper(SELU_ALPHA, name="SELU_ALPHA")
helper(SELU_SCALE, name="SELU_SCALE")


# ------------------------------------------------------------------ torch.threshold_, selu_, celu_

def _in_place_function(name, op, doc, signature):
    """torch.<name>: the in-place activation as a function (the Tensor has no such method)."""
    def fn(input, *args):
        from . import _inplace
        from .original_self import SavesOriginalSelf
        return _inplace(SavesOriginalSelf(op))(input, *args)
    fn.__name__ = name
    register(Plain(name, fn, doc, kind="elementwise", signature=signature))


_in_place_function("threshold_", THRESHOLD_, "threshold in place (ThresholdBackward1)",
                   "threshold_(input, threshold, value)")
_in_place_function("selu_", SELU_, "selu in place (EluBackward1)", "selu_(input)")
_in_place_function("celu_", CELU_, "celu in place (CeluBackward1)", "celu_(input, alpha=1.0)")


# ------------------------------------------------------------------ prelu

def _prelu_kernel(a, w):
    """input > 0 ? input : weight * input (weight broadcast over input)."""
    _floating("prelu", a)
    return np.where(a > 0, a, w * a).astype(a.dtype, copy=False)


def _prelu_kernel_backward(go, a, w):
    """(grad_self, grad_weight) as PyTorch's kernel computes them, both of self's shape (the
    autograd engine sums grad_weight to weight's shape: SumBackward1)."""
    grad_self = np.where(a > 0, go, w * go).astype(a.dtype, copy=False)
    grad_weight = np.where(a > 0, np.zeros((), a.dtype), a * go).astype(a.dtype, copy=False)
    return grad_self, grad_weight


@helper
def prelu_kernel_backward(grad_output, self, weight):
    grad_self, grad_weight = OPS["_prelu_kernel_backward"].apply((grad_output, self, weight), ())
    if tuple(grad_weight.shape) != tuple(weight.shape):
        grad_weight = grad_weight.sum_to_size(tuple(weight.shape))
    return grad_self, grad_weight


def _nonnegative(self):
    return self >= 0


@helper
def _prelu_double_grad_output(grads, self, weight):
    """derivatives.yaml's grad_output formula of _prelu_kernel_backward (grads[0], grads[1]:
    the gradients of grad_self and grad_weight, None when undefined)."""
    g_self, g_weight = grads
    zero = self.new_zeros(())
    if g_self is None:
        return OPS["where"](_nonnegative(self), zero, g_weight * self)
    other = g_self * weight if g_weight is None else g_self * weight + g_weight * self
    return OPS["where"](_nonnegative(self), g_self, other)


@helper
def _prelu_double_self(grads, grad_output, self):
    if grads[1] is None:
        return self.new_zeros(tuple(self.shape))
    return OPS["where"](_nonnegative(self), self.new_zeros(()), grad_output * grads[1])


@helper
def _prelu_double_weight(grads, grad_output, self, weight):
    if grads[0] is None:
        return weight.new_zeros(tuple(weight.shape))
    out = OPS["where"](_nonnegative(self), grad_output.new_zeros(()), grad_output * grads[0])
    return out.sum_to_size(tuple(weight.shape))


register(Op(
    "_prelu_kernel", _prelu_kernel, "self, weight: prelu_kernel_backward(grad, self, weight)",
    jvp=("self: where(self > 0, self_t, weight * self_t)",
         "weight: where(self > 0, 0.0, weight_t * self)"),
    inputs=("self", "weight"), grad_fn="PreluKernelBackward0", dtype="same", method=False,
    public=False, kind="activation", doc="self if self > 0 else weight * self (weight broadcast to self)",
    samples=[Sample((2, 3), (1, 3)), Sample((3, 2, 2), (1, 2, 1)), Sample((4,), (1,)),
             Sample((), ())]))
@helper
def _prelu_backward_jvp(go_t, self_t, weight_t, grad_output, self, weight):
    """The tangents of (grad_self, grad_weight) (derivatives.yaml's result0 and result1)."""
    def tangent(t, factor):
        return None if t is None else t * factor
    positive = self > 0
    parts0 = [tangent(go_t, weight), tangent(weight_t, grad_output)]
    parts1 = [tangent(go_t, self), tangent(self_t, grad_output)]
    zero = self.new_zeros(())
    out = []
    for first, parts in ((go_t, parts0), (None, parts1)):
        parts = [p for p in parts if p is not None]
        other = zero if not parts else parts[0] if len(parts) == 1 else parts[0] + parts[1]
        kept = zero if first is None else first
        out.append(OPS["where"](positive, kept, other).expand(tuple(self.shape)))
    return out


register(Op(
    "_prelu_kernel_backward", _prelu_kernel_backward,
    ("grad_output: _prelu_double_grad_output(grad, self, weight)",
     "self: _prelu_double_self(grad, grad_output, self)",
     "weight: _prelu_double_weight(grad, grad_output, self, weight)"),
    jvp="result: _prelu_backward_jvp(grad_output_t, self_t, weight_t, grad_output, self, "
        "weight)",
    inputs=("grad_output", "self", "weight"), outputs=2,
    grad_fn="PreluKernelBackwardBackward0", dtype="same", method=False, public=False,
    kind="backward", doc="prelu's (grad_self, grad_weight)",
    samples=[Sample((2, 3), (2, 3), (1, 3)), Sample((3, 2, 2), (3, 2, 2), (1, 2, 1))]))
OPS["_prelu_kernel_backward"].undefined_grads = True


def _prelu(self, weight):
    """PyTorch's prelu: its checks, weight reshaped to broadcast over dim 1, _prelu_kernel."""
    if self.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {short_name(self._data)} "
                           f"and {short_name(weight._data)}")
    if weight.numel() != 1:
        if self.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = self.shape[1] if self.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if self.dim() != weight.dim():
        shape = [1] * self.dim()
        if self.dim() > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return OPS["_prelu_kernel"].apply((self, weight), ())


register(Composed(
    "prelu", _prelu, via=("_prelu_kernel",), inputs=("self", "weight"), dtype="same",
    kind="activation", doc="self if self > 0 else weight * self, one weight per channel (dim 1)",
    signature="prelu(input, weight)",
    samples=[Sample((2, 3), (3,)), Sample((3, 2, 2), (2,)), Sample((4,), (1,)),
             Sample((2, 3), (1,)), Sample((), (1,))]))
