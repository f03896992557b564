"""Rounding as PyTorch's CPU kernels round.  Their vectorized loops are compiled with
floating-point contraction, so `a * b + c` in a kernel is one fused multiply-add, rounded once.
For float32 operands the product and sum are exact in float64, so computing there and rounding
to float32 gives the fused result (a float64 sum that itself rounds is off by one unit only in
rare ties); float64 operands are computed plainly, which may differ in the last bit."""

import numpy as np

_F32 = np.dtype(np.float32)


def fma(a, b, c):
    """a * b + c rounded once, as PyTorch's kernels compute it (float32; see above)."""
    dtype = np.result_type(a, b, c)
    if dtype == _F32:  # (a Python number operand is a float32 in the kernel too)
        a, b, c = (np.asarray(v, _F32) for v in (a, b, c))
        return (np.multiply(a, b, dtype=np.float64) + c).astype(_F32)
    return a * b + c
