"""torch.nn.functional's losses and their reductions.

Losses with a node of their own in PyTorch (MseLossBackward0, NllLossBackward0, …) are Ops
declared here, in the table with kind="loss"; the others (l1_loss, smooth_l1_loss,
cross_entropy) are composed from ops exactly as PyTorch composes them, so the graph ends in the
same node.  (gradcli.nn.functional re-exports them as F.mse_loss, ….)
"""

import warnings

import numpy as np

from ..engine import dtypes
from ..engine.grad_mode import GradMode
from ..engine.tensor import Tensor
from ..ops import OPS
from ..ops.derivatives import helper
from ..ops.reductions import _float_sum
from ..ops.registry import Op, Sample, register

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


def _reduction_number(name, attrs, value):
    """`_saved_reduction` as PyTorch's nodes show it: at::Reduction's number (0 none, 1 mean,
    2 sum)."""
    return REDUCTIONS.index(value) if name == "_saved_reduction" and value in REDUCTIONS else value


for _op in list(OPS.values()):
    if isinstance(_op, Op) and "reduction" in _op.attr_names and _op.shown_saved is None:
        _op.shown_saved = _reduction_number
