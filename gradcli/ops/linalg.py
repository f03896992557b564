"""Linear algebra: matmul, mm, mv, bmm, dot, outer, trace, diag, tril/triu, det, inverse, solve."""

import numpy as np

from .registry import Op, Sample, register


def _matmul(a, b):
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    try:
        return np.matmul(a, b)
    except ValueError:
        raise RuntimeError(_matmul_shape_error(a, b)) from None


def _matmul_shape_error(a, b):
    if a.ndim == 1 and b.ndim == 1:
        return ("inconsistent tensor size, expected tensor [{}] and src [{}] to have the same "
                "number of elements, but got {} and {} elements respectively"
                .format(a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    a2 = a.reshape(1, -1) if a.ndim == 1 else a.reshape(-1, a.shape[-1])
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    return (f"mat1 and mat2 shapes cannot be multiplied ({a2.shape[0]}x{a2.shape[1]} and "
            f"{b2.shape[-2]}x{b2.shape[-1]})")


def _matmul_vjp_self(g, other, self_shape):
    if len(self_shape) == 1 and other.dim() == 1:
        return g * other
    if other.dim() == 1:
        return g.unsqueeze(-1) * other if len(self_shape) > 1 else g @ other.unsqueeze(0)
    if len(self_shape) == 1:
        return (g.unsqueeze(-2) @ other.transpose(-1, -2)).reshape(self_shape) \
            if g.dim() == 1 else (g.unsqueeze(-2) @ other.transpose(-1, -2)).sum_to_size(self_shape)
    return g @ other.transpose(-1, -2)


def _matmul_vjp_other(g, self, other_shape):
    if self.dim() == 1 and len(other_shape) == 1:
        return g * self
    if len(other_shape) == 1:
        return (self.transpose(-1, -2) @ g.unsqueeze(-1)).reshape(other_shape) \
            if self.dim() == 2 else (self.transpose(-1, -2) @ g.unsqueeze(-1)).sum_to_size(
                other_shape + (1,)).reshape(other_shape)
    if self.dim() == 1:
        return self.unsqueeze(-1) * g.unsqueeze(-2)
    return self.transpose(-1, -2) @ g


register(Op(
    "matmul", _matmul, (_matmul_vjp_self, _matmul_vjp_other), inputs=("self", "other"),
    grad_fn="MmBackward0", jvp=(lambda t, other: t @ other, lambda t, self: self @ t),
    doc="matrix product (broadcast batches; 1-D operands as vectors)",
    formula="d/dself = g @ other^T, d/dother = self^T @ g", kind="linalg",
    samples=[Sample((2, 3), (3, 4)), Sample((3,), (3, 2)), Sample((2, 3), (3,)),
             Sample((3,), (3,)), Sample((2, 2, 3), (3, 2))]))
