"""torch.nn.utils.clip_grad_norm_ and clip_grad_value_, computed as PyTorch computes them: the
norm of the gradients' norms, each gradient scaled by min(max_norm / (norm + 1e-6), 1)."""

import math

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters):
    from ..engine.tensor import Tensor
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale the gradients in place so that their total norm is at most max_norm; return the
    total norm (of the gradients as they were)."""
    from ..engine.grad_mode import no_grad
    from ..ops import OPS
    vector_norm = OPS["linalg_vector_norm"]
    with no_grad():
        grads = _grads(parameters)
        if not grads:
            return OPS["tensor"](0.0)
        norm_type = float(norm_type)
        norms = [vector_norm(g, norm_type) for g in grads]
        total_norm = vector_norm(OPS["stack"](norms), norm_type)
        if error_if_nonfinite and (math.isnan(total_norm.item()) or
                                   math.isinf(total_norm.item())):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                f"non-finite, so it cannot be clipped. To disable this error and scale the "
                f"gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        clip_coef = float(max_norm) / (total_norm + 1e-6)
        clip_coef_clamped = OPS["clamp"](clip_coef, max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped)
    return total_norm


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp the gradients in place to [-clip_value, clip_value]."""
    from ..engine.grad_mode import no_grad
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
