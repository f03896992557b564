"""torch.nn.functional: activations and losses.

Activations are the op table's own Op objects (F.gelu is gradcli.ops.OPS["gelu"]); the ones
PyTorch gives an `inplace=` flag are thin functions over the op and its in-place variant.
Losses with a node of their own in PyTorch (MseLossBackward0, NllLossBackward0, …) are Ops
declared here, in the table with kind="loss"; the others (l1_loss, cross_entropy, normalize)
are composed from ops exactly as PyTorch composes them, so the graph ends in the same node.
"""

import math
import warnings

import numpy as np

from ..engine import dtypes
from ..engine.grad_mode import GradMode
from ..engine.tensor import Tensor
from ..ops import OPS, _inplace
from ..ops.elementwise import ELU_, LEAKY_RELU_
from ..ops.activations import CELU_, SELU_, THRESHOLD_
from ..ops.reductions import _float_sum
from ..ops.derivatives import helper
from ..ops.dropout import check_probability
from ..ops.original_self import SavesOriginalSelf
from ..ops.registry import Op, Sample, register

__all__ = ["relu", "relu_", "leaky_relu", "leaky_relu_", "elu", "elu_", "gelu", "softplus",
           "silu", "sigmoid", "tanh", "softmax", "log_softmax", "hardtanh", "hardtanh_", "relu6",
           "hardsigmoid", "hardswish", "mish", "selu", "selu_", "celu", "celu_", "logsigmoid",
           "softsign", "tanhshrink", "softshrink", "hardshrink",
           "threshold", "threshold_", "dropout", "dropout1d", "dropout2d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", "glu", "mse_loss", "l1_loss",
           "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
           "nll_loss", "normalize", "linear"]
__all__ += ["softmin", "one_hot", "pad", "embedding", "layer_norm", "batch_norm"]

gelu = OPS["gelu"]
softplus = OPS["softplus"]
sigmoid = OPS["sigmoid"]
tanh = OPS["tanh"]


def linear(input, weight, bias=None):
    """input @ weight.T + bias, as PyTorch computes it (at::linear): addmm for a matrix input
    with a bias (AddmmBackward0); for another contiguous input with a bias (3-d, or a 1-d
    bias) addmm on its rows as a matrix, viewed back (ViewBackward0); else matmul then an
    add."""
    if input.dim() == 2 and bias is not None:
        return OPS["addmm"](bias, input, weight.t())
    if bias is not None and input.dim() and input.is_contiguous() \
            and (input.dim() == 3 or bias.dim() == 1):
        *lead, last = input.shape
        rows = 1
        for n in lead:
            rows *= n
        output = OPS["addmm"](bias, input.reshape(rows, last), weight.t())
        return output.view(*lead, output.shape[1])
    output = input.matmul(weight.t())
    return output if bias is None else output + bias


def relu(input, inplace=False):
    """max(input, 0); inplace=True writes into input."""
    return input.relu_() if inplace else OPS["relu"](input)


def relu_(input):
    """relu in place (torch.relu_)."""
    return relu(input, inplace=True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """input if input > 0 else negative_slope * input (in place: LeakyReluBackward1)."""
    if inplace:
        return _inplace(LEAKY_RELU_)(input, negative_slope)
    return OPS["leaky_relu"](input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """leaky_relu in place (LeakyReluBackward1)."""
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input, alpha=1.0, inplace=False):
    """input if input > 0 else alpha * (exp(input) - 1) (in place: EluBackward1)."""
    if inplace:
        return _inplace(ELU_)(input, alpha)
    return OPS["elu"](input, alpha)


def elu_(input, alpha=1.0):
    """elu in place (EluBackward1)."""
    return elu(input, alpha, inplace=True)


def silu(input, inplace=False):
    """input * sigmoid(input)."""
    return _inplace(SavesOriginalSelf(OPS["silu"]))(input) if inplace else OPS["silu"](input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """input clamped to [min_val, max_val] (HardtanhBackward0)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _inplace(SavesOriginalSelf(OPS["hardtanh"]))(input, min_val, max_val)
    return OPS["hardtanh"](input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """hardtanh in place."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """min(max(input, 0), 6): hardtanh(input, 0, 6), as PyTorch computes it."""
    return hardtanh(input, 0, 6, inplace)  # (ints, as PyTorch passes them: _saved_max_val)


def _maybe_inplace(name, input, inplace, *args):
    if inplace:
        return _inplace(SavesOriginalSelf(OPS[name]))(input, *args)
    return OPS[name](input, *args)


def hardsigmoid(input, inplace=False):
    """relu6(input + 3) / 6."""
    return _maybe_inplace("hardsigmoid", input, inplace)


def hardswish(input, inplace=False):
    """input * relu6(input + 3) / 6."""
    return _maybe_inplace("hardswish", input, inplace)


def mish(input, inplace=False):
    """input * tanh(softplus(input))."""
    return _maybe_inplace("mish", input, inplace)


def selu(input, inplace=False):
    """scale * elu(input, alpha) with PyTorch's constants (in place: EluBackward1)."""
    return _inplace(SELU_)(input) if inplace else OPS["selu"](input)


def selu_(input):
    """selu in place (EluBackward1; torch.selu_)."""
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    """input if input > 0 else alpha * (exp(input / alpha) - 1) (in place: CeluBackward1)."""
    return _inplace(CELU_)(input, alpha) if inplace else OPS["celu"](input, alpha)


def celu_(input, alpha=1.0):
    """celu in place (CeluBackward1; torch.celu_)."""
    return celu(input, alpha, inplace=True)


def logsigmoid(input):
    """log(sigmoid(input)), computed stably."""
    return OPS["log_sigmoid"](input)


def softsign(input):
    """input / (1 + |input|), composed as PyTorch composes it."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """input - tanh(input), composed as PyTorch composes it."""
    return input - input.tanh()


def softshrink(input, lambd=0.5):
    """input shrunk toward 0 by lambd (0 inside [-lambd, lambd])."""
    return OPS["softshrink"](input, lambd)


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0."""
    return OPS["hardshrink"](input, lambd)


def threshold(input, threshold, value, inplace=False):
    """input where input > threshold, else value (in place: ThresholdBackward1)."""
    if inplace:
        return _inplace(SavesOriginalSelf(THRESHOLD_))(input, threshold, value)
    return OPS["threshold"](input, threshold, value)


def threshold_(input, threshold, value):
    """threshold in place."""
    return _inplace(SavesOriginalSelf(THRESHOLD_))(input, threshold, value)


def _dropout_function(name, training):
    op = OPS[name]
    in_place = OPS[name + "_"]

    def fn(input, p=0.5, training=training, inplace=False):
        check_probability(p, ValueError)
        return (in_place if inplace else op)(input, p, training)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = op.doc
    return fn


dropout = _dropout_function("dropout", True)
alpha_dropout = _dropout_function("alpha_dropout", False)
feature_alpha_dropout = _dropout_function("feature_alpha_dropout", False)


def _channel_dropout(spatial, input, p, training, inplace):
    """dropout1d/2d/3d as torch.nn.functional writes them: feature_dropout (whole channels)
    on a batched input, one without a batch dimension unsqueezed first (dropout2d: none, a
    3-d input is taken as (N, C, L), with PyTorch's warnings)."""
    check_probability(p, ValueError)
    name, ndim = f"dropout{spatial}d", input.dim()
    if ndim not in (spatial + 1, spatial + 2):
        if spatial == 1:
            raise RuntimeError(
                f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
                "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or "
                "3D inputs).")
        warnings.warn(
            f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result "
            "in an error in a future release. To retain the behavior and silence this warning, "
            f"please use dropout instead. Note that {name} exists to provide channel-wise "
            f"dropout on inputs with {spatial} spatial dimensions, a channel dimension, and an "
            f"optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
            UserWarning, stacklevel=3)
    if spatial == 2 and ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning, stacklevel=3)
    batched = spatial == 2 or ndim == spatial + 2
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = OPS["feature_dropout_" if inplace else "feature_dropout"](input, p, training)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Whole channels of an (N, C, L) or (C, L) input zeroed with probability p."""
    return _channel_dropout(1, input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Whole channels of an (N, C, H, W) input zeroed with probability p."""
    return _channel_dropout(2, input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Whole channels of an (N, C, D, H, W) or (C, D, H, W) input zeroed with probability p."""
    return _channel_dropout(3, input, p, training, inplace)


def glu(input, dim=-1):
    """The gated linear unit: first half * sigmoid(second half) along dim."""
    return OPS["glu"](input, dim)


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(input) / sum(exp(input)) along dim."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return OPS["softmax"](input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input) along dim."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return OPS["softmax"](-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """input - logsumexp(input) along dim."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return OPS["log_softmax"](input, dim, dtype=dtype)


# ------------------------------------------------------------------ reductions of losses

REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction, size_average=None, reduce=None):
    """The reduction, with PyTorch's legacy size_average/reduce arguments folded in."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else "mean" if size_average else "sum"
        warnings.warn("size_average and reduce args will be deprecated, please use reduction='"
                      f"{reduction}' instead.", UserWarning, stacklevel=3)
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(values, reduction):
    """A loss's reduction: PyTorch sums (and means) in its own order, so `.item()` of a loss
    prints PyTorch's digits."""
    if reduction == "none":
        return values
    total = _float_sum(values, None, False)
    if total is None:
        total = np.sum(values)
    if reduction == "mean":  # of nothing: nan, as PyTorch
        total = total / values.dtype.type(values.size)
    return np.asarray(total, dtype=values.dtype)


def _scaled(g, reduction, n):
    """The incoming gradient of a reduced loss, per element (before the elementwise factor)."""
    return g / n if reduction == "mean" else g


def _size_warning(input, target):
    if target.size() != input.size():  # as PyTorch: a Python-number target has no size()
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                      f"({input.size()}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)


def _broadcast_pair(input, target):
    """torch.broadcast_tensors(input, target), as PyTorch's regression losses call it."""
    return OPS["broadcast_tensors"](input, target)


def _numel(*shapes):
    return int(np.prod(np.broadcast_shapes(*shapes)))


LOSS_SAMPLES = [Sample((3,), (3,)), Sample((2, 3), (2, 3), attrs={"reduction": "sum"}),
                Sample((2, 3), (2, 3), attrs={"reduction": "none"}), Sample((), ())]


@helper
def _reduced_jvp(t, slope, reduction):
    """The JVP of a loss from its per-element slope (the VJP of a unit gradient)."""
    return t * slope if reduction == "none" else (t * slope).sum()


def _loss(name, forward, backward, grad_fn, doc, attrs=(), samples=LOSS_SAMPLES):
    """A regression loss whose derivative for self is backward(grad, self, target, *attrs,
    reduction), a helper, and for target the same with self and target swapped."""
    args = ", ".join(a[0] for a in attrs) + ", " if attrs else ""
    return register(Op(
        name, forward, (f"self: {backward}(grad, self, target, {args}reduction)",
                                 f"target: {backward}(grad, target, self, {args}reduction)"),
        jvp=(f"self: _reduced_jvp(self_t, {backward}(1, self, target, {args}reduction), "
             "reduction)",
             f"target: _reduced_jvp(target_t, -{backward}(1, self, target, {args}reduction), "
             "reduction)"),
        inputs=("self", "target"), attrs=tuple(attrs) + (("reduction", "mean"),),
        grad_fn=grad_fn, method=False, public=False, kind="loss", doc=doc, samples=samples))


# ------------------------------------------------------------------ regression losses

@helper
def _mse_vjp(g, self, target, reduction):
    return OPS["mse_loss_backward"](g, self, target, REDUCTIONS.index(reduction))


_MSE = _loss("mse_loss", lambda a, b, reduction: _reduce((a - b) ** 2, reduction), "_mse_vjp",
             "MseLossBackward0", "mean (or sum) of (self - target)^2")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean squared error (reduction='mean', 'sum' or 'none')."""
    reduction = _check_reduction(reduction, size_average, reduce)
    _size_warning(input, target)
    if weight is not None:
        return _apply_reduction((input - target) ** 2 * weight, reduction)
    return _MSE(*_broadcast_pair(input, target), reduction)


def _apply_reduction(loss, reduction):
    return loss if reduction == "none" else loss.mean() if reduction == "mean" else loss.sum()


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean absolute error: PyTorch composes it, abs(input - target) then mean or sum."""
    reduction = _check_reduction(reduction, size_average, reduce)
    _size_warning(input, target)
    input, target = _broadcast_pair(input, target)
    loss = (input - target).abs()
    return _apply_reduction(loss if weight is None else loss * weight, reduction)


def _smooth_l1_forward(a, b, beta, reduction):
    d = np.abs(a - b)
    return _reduce(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta).astype(d.dtype), reduction)


@helper
def _smooth_l1_vjp(g, self, target, beta, reduction):
    return OPS["smooth_l1_loss_backward"](g, self, target, REDUCTIONS.index(reduction), beta)


_SMOOTH_L1 = _loss(
    "smooth_l1_loss", _smooth_l1_forward, "_smooth_l1_vjp", "SmoothL1LossBackward0",
    "0.5 d^2/beta where |d| < beta, else |d| - beta/2 (d = self - target)", attrs=(("beta", 1.0),),
    samples=LOSS_SAMPLES + [Sample((2, 3), (2, 3), attrs={"beta": 0.5})])


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Huber-like loss: quadratic below beta, linear above (beta=0 is l1_loss)."""
    reduction = _check_reduction(reduction, size_average, reduce)
    _size_warning(input, target)
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    return _SMOOTH_L1(*_broadcast_pair(input, target), beta, reduction)


def _huber_forward(a, b, delta, reduction):
    d = np.abs(a - b)
    return _reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)).astype(d.dtype),
                   reduction)


@helper
def _huber_vjp(g, self, target, delta, reduction):
    return OPS["huber_loss_backward"](g, self, target, REDUCTIONS.index(reduction), delta)


_HUBER = _loss(
    "huber_loss", _huber_forward, "_huber_vjp", "HuberLossBackward0",
    "0.5 d^2 where |d| < delta, else delta (|d| - delta/2)", attrs=(("delta", 1.0),),
    samples=LOSS_SAMPLES + [Sample((2, 3), (2, 3), attrs={"delta": 0.5})])


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Quadratic below delta, delta-scaled linear above."""
    reduction = _check_reduction(reduction)
    _size_warning(input, target)
    return _HUBER(*_broadcast_pair(input, target), delta, reduction)


# ------------------------------------------------------------------ binary cross-entropy

def _not_differentiable(name, **tensors):
    for arg, t in tensors.items():
        if isinstance(t, Tensor) and t.requires_grad and GradMode.enabled:
            raise RuntimeError(f"The function '{name}' is not differentiable with respect to "
                               f"argument '{arg}'. This input cannot have requires_grad True.")


def _weight_array(weight):
    return 1.0 if weight is None else weight._data


def _bce_forward(x, t, weight, reduction):
    if np.any((x < 0) | (x > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    log_x = np.maximum(np.log(x), -100)
    log_1mx = np.maximum(np.log1p(-x), -100)
    loss = -(t * log_x + (1 - t) * log_1mx) * _weight_array(weight)
    return _reduce(np.asarray(loss, dtype=x.dtype), reduction)


@helper
def _bce_input_vjp(g, self, target, weight, reduction):
    return OPS["binary_cross_entropy_backward"](g, self, target, weight, REDUCTIONS.index(reduction))


@helper
def _bce_target_vjp(g, self, weight, reduction):
    grad = -self.logit() * g if weight is None else -self.logit() * g * weight
    return OPS["div.Scalar"](grad, self.numel()) if reduction == "mean" else grad


_BCE = register(Op(
    "binary_cross_entropy", _bce_forward,
    ("self: _bce_input_vjp(grad, self, target, weight, reduction)",
     "target: _bce_target_vjp(grad, self, weight, reduction)"),
    inputs=("self", "target"), attrs=(("weight", None), ("reduction", "mean")),
    grad_fn="BinaryCrossEntropyBackward0", method=False, public=False, kind="loss",
    doc="-(target log(self) + (1 - target) log(1 - self)), logs clamped at -100",
    jvp=("self: _reduced_jvp(self_t, _bce_input_vjp(1, self, target, weight, reduction), "
         "reduction)",
         "target: _reduced_jvp(target_t, _bce_target_vjp(1, self, weight, reduction), reduction)"),
    samples=[Sample((3,), (3,), low=0.1, high=0.9),
             Sample((2, 3), (2, 3), low=0.1, high=0.9, attrs={"reduction": "sum"}),
             Sample((2, 3), (2, 3), low=0.1, high=0.9, attrs={"reduction": "none"}),
             Sample((), (), low=0.1, high=0.9)]))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """Binary cross-entropy of probabilities input against target."""
    reduction = _check_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    _not_differentiable("binary_cross_entropy", weight=weight)
    return _BCE(input, target, weight, reduction)


def _bce_logits_forward(x, t, weight, pos_weight, reduction):
    softplus_neg = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
    if pos_weight is None:
        loss = (1 - t) * x + softplus_neg
    else:
        loss = (1 - t) * x + (1 + (pos_weight._data - 1) * t) * softplus_neg
    return _reduce(np.asarray(loss * _weight_array(weight), dtype=x.dtype), reduction)


@helper
def _bce_logits_input_vjp(g, self, target, weight, pos_weight, reduction):
    if pos_weight is None:
        slope = self.sigmoid() - target
    else:
        slope = (1 + (pos_weight - 1) * target) * self.sigmoid() - pos_weight * target
    grad = _scaled(g, reduction, _numel(tuple(self.shape), tuple(target.shape))) * slope
    return grad if weight is None else grad * weight


@helper
def _bce_logits_target_vjp(g, self, target, weight, pos_weight, reduction):
    slope = -self if pos_weight is None else (pos_weight - 1) * OPS["softplus"](-self) - self
    grad = _scaled(g, reduction, _numel(tuple(self.shape), tuple(target.shape))) * slope
    return grad if weight is None else grad * weight


_BCE_LOGITS = register(Op(
    "binary_cross_entropy_with_logits", _bce_logits_forward,
    ("self: _bce_logits_input_vjp(grad, self, target, weight, pos_weight, reduction)",
     "target: _bce_logits_target_vjp(grad, self, target, weight, pos_weight, reduction)"),
    inputs=("self", "target"),
    attrs=(("weight", None), ("pos_weight", None), ("reduction", "mean")),
    grad_fn="BinaryCrossEntropyWithLogitsBackward0", method=False, public=False, kind="loss",
    doc="binary cross-entropy of sigmoid(self) against target, computed stably",
    jvp=("self: _reduced_jvp(self_t, _bce_logits_input_vjp(1, self, target, weight, pos_weight, "
         "reduction), reduction)",
         "target: _reduced_jvp(target_t, _bce_logits_target_vjp(1, self, target, weight, "
         "pos_weight, reduction), reduction)"),
    samples=[Sample((3,), (3,), low=0.0, high=1.0, attrs={"reduction": "mean"}),
             Sample((2, 3), (2, 3), low=0.0, high=1.0, attrs={"reduction": "sum"}),
             Sample((2, 3), (2, 3), low=0.0, high=1.0, attrs={"reduction": "none"}),
             Sample((), (), low=0.0, high=1.0, attrs={"reduction": "mean"})]))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross-entropy of sigmoid(input) against target (stable; pos_weight weighs the
    positive class)."""
    reduction = _check_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    _not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    return _BCE_LOGITS(input, target, weight, pos_weight, reduction)


# ------------------------------------------------------------------ nll_loss, cross_entropy

def _nll_layout(x, target, weight, ignore_index):
    """(classes moved last and flattened: (M, C) log-probabilities, (M,) targets, (M,) weights
    of each target, a (M,) mask of counted targets)."""
    t = target._data if isinstance(target, Tensor) else np.asarray(target)
    if x.ndim <= 2 and t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.ndim == 4 and t.ndim != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {t.ndim}")
    if x.ndim == 4 and t.shape != x.shape[:1] + x.shape[2:]:
        raise RuntimeError(f"size mismatch (got input: {list(x.shape)} , target: "
                           f"{list(t.shape)}")
    if t.dtype != np.int64 and t.dtype != np.uint8:
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{dtypes.from_numpy_dtype(t.dtype).short}")
    if x.ndim == 1:
        if t.ndim == 1 and t.shape[0] != 1:
            raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                             f"{t.shape[0]}")
        rows, flat_t = x.reshape(1, -1), t.reshape(1)
    else:
        _nll_check_shapes(x.shape, t.shape)
        rows = np.moveaxis(x, 1, -1).reshape(-1, x.shape[1])
        flat_t = t.reshape(-1).astype(np.int64)
    n_classes = rows.shape[1]
    counted = flat_t != ignore_index
    bad = counted & ((flat_t < 0) | (flat_t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {flat_t[bad][0]} is out of bounds.")
    safe_t = np.where(counted, flat_t, 0)
    w = np.ones(n_classes, x.dtype) if weight is None else weight._data.astype(x.dtype)
    target_weight = np.where(counted, w[safe_t], 0).astype(x.dtype)
    return rows, safe_t, target_weight


def _nll_check_shapes(input_shape, target_shape):
    """PyTorch's nll_loss_nd checks of the shapes (before those of the kernel)."""
    if not input_shape:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    batch = target_shape[0] if target_shape else 0
    if len(input_shape) != 1 and input_shape[0] != batch:
        raise ValueError(f"Expected input batch_size ({input_shape[0]}) to match target "
                         f"batch_size ({batch}).")
    expected = input_shape[:1] + input_shape[2:]
    if len(input_shape) not in (1, 2, 4) and tuple(target_shape) != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(target_shape)}")


def _nll_forward(x, target, weight, ignore_index, reduction):
    rows, t, w = _nll_layout(x, target, weight, ignore_index)
    picked = -rows[np.arange(rows.shape[0]), t] * w
    if reduction == "none":
        return picked.reshape(() if x.ndim == 1 else np.shape(target._data)).astype(x.dtype)
    total = picked.sum()
    if reduction == "sum":
        return np.asarray(total, dtype=x.dtype)
    return np.asarray(total / w.sum(), dtype=x.dtype)


@helper
def _nll_vjp(g, self, target, weight, ignore_index, reduction):
    """Linear in g: -weight[target] (over the total weight, for 'mean') at each target class."""
    x = self._data
    if x.ndim == 1 and target.dim() == 1:  # the forward allows it, PyTorch's backward does not
        raise RuntimeError(f"size mismatch (got input: {list(x.shape)}, target: "
                           f"{list(target.shape)})")
    rows, t, w = _nll_layout(x, target, weight, ignore_index)
    coefficients = np.zeros(rows.shape, x.dtype)
    total = w.sum()
    scale = (w / total if total else w * 0) if reduction == "mean" else w
    coefficients[np.arange(rows.shape[0]), t] = -scale
    if x.ndim == 1:
        coefficients = coefficients.reshape(x.shape)
    else:
        moved = x.shape[:1] + x.shape[2:] + x.shape[1:2]
        coefficients = np.moveaxis(coefficients.reshape(moved), -1, 1)
    factor = Tensor._make(np.ascontiguousarray(coefficients), None, 0, False)
    if reduction == "none" and x.ndim > 1:
        g = g.unsqueeze(1)
    return g * factor


def _nll_op(grad_fn, samples):
    return register(Op(
        "nll_loss" if grad_fn == "NllLossBackward0" else "nll_loss2d", _nll_forward,
        "self: _nll_vjp(grad, self, target, weight, ignore_index, reduction)",
        attrs=("target", ("weight", None), ("ignore_index", -100), ("reduction", "mean")),
        jvp="linear", grad_fn=grad_fn, method=False, public=False, kind="loss",
        doc="-self[target] (weighted), reduced",
        samples=samples))


def _targets(*values):
    return Tensor._make(np.array(values, dtype=np.int64), None, 0, False)


_NLL = _nll_op("NllLossBackward0", [
    Sample((3, 4), attrs={"target": _targets(0, 3, 1)}),
    Sample((3, 4), attrs={"target": _targets(2, -100, 1), "reduction": "sum"}),
    Sample((3, 4), attrs={"target": _targets(2, 0, 1), "reduction": "none"}),
    Sample((4,), attrs={"target": _targets(2).reshape(())})])
_NLL_2D = _nll_op("NllLoss2DBackward0", [
    Sample((2, 3, 2), attrs={"target": _targets([0, 2], [1, 1])}),
    Sample((2, 3, 2), attrs={"target": _targets([0, 2], [1, 1]), "reduction": "none"})])


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """The negative log-likelihood of class indices target under log-probabilities input."""
    reduction = _check_reduction(reduction, size_average, reduce)
    _nll_check_shapes(tuple(input.shape), tuple(target.shape))
    _not_differentiable("nll_loss2d" if input.dim() >= 3 else "nll_loss", weight=weight)
    if input.dim() < 3 or input.dim() == 4:
        return (_NLL_2D if input.dim() == 4 else _NLL)(input, target, weight, ignore_index,
                                                         reduction)
    # PyTorch's nll_loss_nd: other shapes go through nll_loss2d as (N, C, 1, -1)
    n, c = input.shape[0], input.shape[1]
    out = _NLL_2D(input.contiguous().view(n, c, 1, -1), target.reshape(n, 1, -1), weight,
                  ignore_index, reduction)
    return out.view((n,) + tuple(input.shape[2:])) if reduction == "none" else out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax over the class dimension, then nll_loss (class indices) or the expected
    negative log-likelihood (class probabilities), as PyTorch composes them."""
    reduction = _check_reduction(reduction, size_average, reduce)
    class_dim = 0 if input.dim() == 1 else 1
    probabilities = target.size() == input.size()  # PyTorch's test: the same shape
    if probabilities:
        _check_probabilities(input, target, ignore_index)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    logp = OPS["log_softmax"](input, class_dim)
    n_classes = input.shape[class_dim]
    shape = [1] * input.dim()
    shape[class_dim] = n_classes
    if probabilities:
        return _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing,
                                            class_dim, n_classes, shape)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    ignored = target == ignore_index
    smooth = -(logp if weight is None else logp * weight.view(tuple(shape))).sum(class_dim)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is None:
            smooth = smooth.sum() / (~ignored).sum()
        else:
            kept = target.masked_select(~ignored).flatten()
            smooth = smooth.sum() / weight.gather(0, kept).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    scaled = OPS["mul.Scalar"]
    return scaled(nll, 1 - label_smoothing) + scaled(smooth, label_smoothing / n_classes)


def _check_probabilities(input, target, ignore_index):
    if not target.dtype.is_floating_point:
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {target.dtype.short}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if input.dim() == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")


def _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing, class_dim,
                                 n_classes, shape):
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    terms = logp * target
    if weight is not None:
        terms = terms * weight.view(tuple(shape))
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    return OPS["div.Scalar"](-terms.sum(), logp.numel() / n_classes)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p over dim, eps), as PyTorch composes it."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def _reduction_number(name, attrs, value):
    """`_saved_reduction` as PyTorch's nodes show it: at::Reduction's number (0 none, 1 mean,
    2 sum)."""
    return REDUCTIONS.index(value) if name == "_saved_reduction" and value in REDUCTIONS else value


for _op in list(OPS.values()):
    if isinstance(_op, Op) and "reduction" in _op.attr_names and _op.shown_saved is None:
        _op.shown_saved = _reduction_number


# ------------------------------------------------------------------ layers' functions

from ..ops.normalization import batch_norm, layer_norm  # noqa: E402,F401

one_hot = OPS["one_hot"]  # (table entries: `gradcli ops` lists them as nn.functional.<name>)
pad = OPS["pad"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of weight at the indices input (EmbeddingBackward0); max_norm renormalizes the
    rows read, in place, first."""
    from ..ops.layers import embedding_renorm_
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    return OPS["embedding"](weight, input, padding_idx, scale_grad_by_freq, sparse)


# ------------------------------------------------------------------ convolutions and pooling
# (declared in gradcli.ops.convolution, gradcli.ops.pooling and gradcli.ops.adaptive_pooling)

conv1d, conv2d, conv3d = OPS["conv1d"], OPS["conv2d"], OPS["conv3d"]
conv_transpose1d, conv_transpose2d = OPS["conv_transpose1d"], OPS["conv_transpose2d"]
conv_transpose3d = OPS["conv_transpose3d"]
max_pool1d, max_pool2d = OPS["max_pool1d"], OPS["max_pool2d"]
avg_pool1d, avg_pool2d = OPS["avg_pool1d"], OPS["avg_pool2d"]
adaptive_avg_pool1d, adaptive_avg_pool2d = OPS["adaptive_avg_pool1d"], OPS["adaptive_avg_pool2d"]
adaptive_max_pool1d, adaptive_max_pool2d = OPS["adaptive_max_pool1d"], OPS["adaptive_max_pool2d"]
__all__ += ["adaptive_max_pool1d", "adaptive_max_pool2d"]
max_pool3d, avg_pool3d = OPS["max_pool3d"], OPS["avg_pool3d"]
adaptive_avg_pool3d, adaptive_max_pool3d = OPS["adaptive_avg_pool3d"], OPS["adaptive_max_pool3d"]
__all__ += ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d"]
unfold, fold = OPS["nn.functional.unfold"], OPS["nn.functional.fold"]
max_unpool1d, max_unpool2d = OPS["max_unpool1d"], OPS["max_unpool2d"]
max_unpool3d = OPS["max_unpool3d"]
lp_pool1d, lp_pool2d, lp_pool3d = OPS["lp_pool1d"], OPS["lp_pool2d"], OPS["lp_pool3d"]
__all__ += ["lp_pool1d", "lp_pool2d", "lp_pool3d"]
__all__ += ["max_unpool1d", "max_unpool2d", "max_unpool3d"]
pixel_shuffle, pixel_unshuffle = OPS["pixel_shuffle"], OPS["pixel_unshuffle"]
__all__ += ["pixel_shuffle", "pixel_unshuffle"]
interpolate = OPS["interpolate"]
__all__ += ["interpolate"]
__all__ += ["unfold", "fold"]
__all__ += ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
            "conv_transpose3d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
            "adaptive_avg_pool1d", "adaptive_avg_pool2d"]

prelu = OPS["prelu"]  # (gradcli.ops.activations)
__all__ += ["prelu"]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """torch.group_norm after F.group_norm's own checks (at least 2 dims, more than one value
    per channel, as PyTorch words it, in training or not)."""
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    size = [input.size(0) * input.size(1) // num_groups, num_groups] + list(input.shape[2:])
    if math.prod(size[:1] + size[2:]) == 1:  # (PyTorch's _verify_batch_size)
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")
    return OPS["group_norm"](input, num_groups, weight, bias, eps)


__all__ += ["group_norm"]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Each sample's channels normalized over their own elements: torch.instance_norm after
    F.instance_norm's check (more than one spatial element per channel with the input's
    statistics)."""
    if use_input_stats:  # (PyTorch's _verify_spatial_size)
        if math.prod(input.shape[2:]) == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input "
                             f"size {input.size()}")
    return OPS["instance_norm"](input, weight, bias, running_mean, running_var, use_input_stats,
                                momentum, eps, True)


__all__ += ["instance_norm"]
