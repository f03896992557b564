"""torch.nn.functional's cosine_similarity, kl_div and margin_ranking_loss as PyTorch's C++
composites compute them, from the op table's ops (so their graphs are PyTorch's:
SumBackward1 over MulBackward0 and DivBackward0 by a LinalgVectorNormBackward0 clone,
XlogyBackward0 and SubBackward0, ClampMinBackward0 over AddBackward1)."""

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
