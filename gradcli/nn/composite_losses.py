"""torch.nn.functional's cosine_similarity, kl_div and margin_ranking_loss as PyTorch's C++
composites compute them, from the op table's ops (so their graphs are PyTorch's:
SumBackward1 over MulBackward0 and DivBackward0 by a LinalgVectorNormBackward0 clone,
XlogyBackward0 and SubBackward0, ClampMinBackward0 over AddBackward1)."""

import math
import warnings

from ..engine.grad_mode import no_grad
from ..ops import OPS
from .losses import _apply_reduction, _check_reduction

KL_DIV_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release.")


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps)) along dim (the norms clamped outside the
    graph, as PyTorch's)."""
    from ..linalg import vector_norm
    parts = []
    for x in (x1, x2):
        norm = vector_norm(x, 2, dim=dim, keepdim=True).clone()
        with no_grad():
            norm.clamp_min_(eps)
        parts.append(x / norm)
    return (parts[0] * parts[1]).sum(dim)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log(target) - input) (log_target: exp(target) * (target - input)), reduced;
    batchmean: the sum over the batch size."""
    if size_average is not None or reduce is not None:
        reduction = _check_reduction(reduction, size_average, reduce)
    elif reduction == "mean":
        warnings.warn(KL_DIV_MEAN_WARNING, UserWarning, stacklevel=2)
    if reduction == "batchmean":
        enum = "sum"
    else:
        enum = _check_reduction(reduction)
    if log_target:
        loss = OPS["exp"](target) * (target - input)
    else:
        loss = OPS["xlogy.Tensor"](target, target) - target * input
    reduced = _apply_reduction(loss, enum)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), reduced."""
    reduction = _check_reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    output = OPS["add.Scalar"](-target * (input1 - input2), margin).clamp_min_(0)
    return _apply_reduction(output, reduction)


def _full_like(x, value):
    return OPS["full_like"](x, value)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """exp(input) - target * input (log_input=False: input - target * log(input + eps)), plus
    Stirling's approximation of log(target!) where target > 1 (full), reduced."""
    reduction = _check_reduction(reduction, size_average, reduce)
    if log_input:
        loss = OPS["exp"](input) - target * input
    else:
        loss = input - target * OPS["log"](OPS["add.Scalar"](input, eps))
    if full:
        stirling = target * OPS["log"](target) - target + OPS["mul.Scalar"](
            OPS["log"](OPS["mul.Scalar"](target, 2 * math.pi)), 0.5)
        loss += stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 * (log(var) + (input - target) ** 2 / var), var clamped to eps outside the graph
    (+ 0.5 * log(2 * pi): full), reduced: PyTorch's Python function."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * OPS["ones_like"](input)
    elif OPS["any"](var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(
                y for x, y in zip(input.size(), var.size()) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (OPS["log"](var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1 (both elsewhere)."""
    reduction = _check_reduction(reduction, size_average, reduce)
    zeros = OPS["zeros_like"](input)
    margin_clamp = _full_like(input, margin).sub_(input).clamp_min_(0)
    output = OPS["where"](target != 1, margin_clamp, zeros) + OPS["where"](target != -1, input,
                                                                           zeros)
    return _apply_reduction(output, reduction)


EPSILON = 1e-12


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    reduction = _check_reduction(reduction, size_average, reduce)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.dim() != dim + 1 or input2.dim() != dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(dim)
    squares = [OPS["add.Scalar"]((x * x).sum(dim), EPSILON) for x in (input1, input2)]
    cos = prod_sum / (squares[0] * squares[1]).sqrt_()
    zeros = OPS["zeros_like"](cos)
    pos = _full_like(cos, 1).sub_(cos)
    neg = OPS["sub.Scalar"](cos, margin).clamp_min_(0)
    output = OPS["where"](target == 1, pos, zeros) + OPS["where"](target == -1, neg, zeros)
    return _apply_reduction(output, reduction)
