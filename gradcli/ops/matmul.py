"""Matrix products: mm, mv, bmm, dot, matmul (decomposed exactly as aten::matmul: batched
operands folded into mm, its broadcasting errors) and outer; the op table's other products (einsum, tensordot, kron, inner,
vdot) are in gradcli.ops.products."""

import math

import numpy as np

from ..engine import messages
from ..engine.dtypes import cpp_name, short_name
from ..engine.tensor import Tensor, check_numel
from .registry import Composed, OPS, Op, Sample, alias, register
from .shape import _reshape_compose


# ------------------------------------------------------------------ products

def check_product(a, b):
    """The element limit for a @ b (matrices or batches of them), before it is made: a product
    of k = 1 is an outer product, as large as the program likes from small inputs."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) if a.ndim > 2 or b.ndim > 2 else ()
    check_numel(batch + (a.shape[-2] if a.ndim > 1 else 1, b.shape[-1] if b.ndim > 1 else 1))


def _mm(a, b):
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} "
                           f"and {b.shape[0]}x{b.shape[1]})")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_name(a)} != "
                           f"{cpp_name(b)}")
    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    check_numel((m, n))
    if _float(a) and k <= _SEQUENTIAL_K and (m <= 2 or max(m, k, n) <= 5):
        return _sequential_product(a, b)
    return a @ b


register(Op(
    "mm", _mm, ("self: grad.mm(mat2.t())", "mat2: self.t().mm(grad)"),
    inputs=("self", "mat2"), jvp=("self: self_t.mm(mat2)", "mat2: self.mm(mat2_t)"),
    dtype="same", kind="linalg", doc="matrix product of two matrices",
    samples=[Sample((2, 3), (3, 4)), Sample((1, 1), (1, 2))]))


# PyTorch multiplies float matrices with MKL (and small batches with its own loop): for the
# small shapes below both add the products one k at a time, each rounded before it is added
# (no fused multiply-add), which NumPy's BLAS does not; elsewhere the order depends on MKL's
# kernels, and NumPy's result may differ in the last bit.
_SEQUENTIAL_K = 64  # longer sums: NumPy (a Python loop over k would be slow)


def _float(a):
    return a.dtype == np.float32 or a.dtype == np.float64


def _sequential_product(a, b):
    """a @ b (matrices or batches of them) accumulated one k at a time."""
    check_product(a, b)
    out = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]),
                   a.dtype)
    for t in range(a.shape[-1]):
        out += a[..., :, t:t + 1] * b[..., t:t + 1, :]
    return out


def _mv(a, v):
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0]})")
    if a.dtype != v.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {short_name(v)}, "
                           f"{short_name(a)}, and {short_name(v)}")
    if _float(a) and (a.shape[1] <= 3 or (a.shape[0] <= 3 and a.shape[1] <= 9)):
        return _sequential_product(a, v[:, None])[:, 0]
    return a @ v


register(Op(
    "mv", _mv, ("self: grad.outer(vec)", "vec: self.t().mv(grad)"),
    inputs=("self", "vec"), jvp=("self: self_t.mv(vec)", "vec: self.mv(vec_t)"),
    dtype="same", kind="linalg", doc="matrix-vector product",
    samples=[Sample((2, 3), (3,)), Sample((1, 2), (2,))]))


def _bmm(a, b):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {short_name(a)} but found {short_name(b)}")
    check_product(a, b)
    if _float(a) and a.shape[2] <= _SEQUENTIAL_K and a.shape[1] * a.shape[2] * b.shape[2] < 400:
        return _sequential_product(a, b)
    return np.matmul(a, b)


register(Op(
    "bmm", _bmm,
    ("self: grad.bmm(mat2.transpose(1, 2))", "mat2: self.transpose(1, 2).bmm(grad)"),
    inputs=("self", "mat2"), jvp=("self: self_t.bmm(mat2)", "mat2: self.bmm(mat2_t)"),
    dtype="same", kind="linalg", doc="batched matrix product of 3-D tensors",
    samples=[Sample((2, 2, 3), (2, 3, 4))]))


def check_vectors(name, a, b):
    """PyTorch's checks of dot and vdot: two 1-D arrays of one length and one dtype."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
            "respectively")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                           f"{short_name(a)} and {short_name(b)}")


def _dot(a, b):
    check_vectors("dot", a, b)
    if _float(a) and a.shape[0] <= 2:
        return _sequential_product(a[None], b[:, None])[0, 0]
    return np.dot(a, b)


register(Op(
    "dot", _dot, ("self: grad * tensor", "tensor: grad * self"),
    inputs=("self", "tensor"), jvp=("self: self_t.dot(tensor)", "tensor: self.dot(tensor_t)"),
    dtype="same", kind="linalg", doc="inner product of two vectors",
    samples=[Sample((3,), (3,)), Sample((1,), (1,))]))


def _should_fold(t1, t2):
    """aten::matmul folds the batch of the larger operand into rows (mm/mv instead of bmm) when
    that costs no copy, or always when the smaller operand requires grad."""
    larger, smaller = (t1, t2) if t1.dim() >= t2.dim() else (t2, t1)
    if not (larger.dim() >= 3 and smaller.dim() <= 2):
        return False
    if smaller.requires_grad_flag:
        return True
    if t1.dim() == 2:
        return False
    big = larger._data if t1.dim() >= t2.dim() else np.swapaxes(larger._data, -1, -2)
    if big.size == 0:
        return True
    expected = big.itemsize
    for size, stride in reversed(list(zip(big.shape, big.strides))):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _op(name, *inputs, attrs=()):
    return OPS[name].apply(tuple(inputs), tuple(attrs))


def _matmul_compose(t1, t2):
    """aten::matmul, step by step, so that each case makes PyTorch's nodes."""
    if not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        bad = t2 if isinstance(t1, Tensor) else t1
        raise TypeError(f"matmul(): argument '{'other' if isinstance(t1, Tensor) else 'input'}' "
                        f"(position {2 if isinstance(t1, Tensor) else 1}) must be Tensor, not "
                        f"{messages.type_name(bad)}")
    d1, d2 = t1.dim(), t2.dim()
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D "
                           f"and {d2}D")
    if d1 == 1 and d2 == 1:
        return _op("dot", t1, t2)
    if d1 == 2 and d2 == 1:
        return _op("mv", t1, t2)
    if d1 == 1 and d2 == 2:
        out = _op("_squeeze_inplace_dim", _op("mm", _op("unsqueeze", t1, attrs=(0,)), t2),
                  attrs=(0,))
        out._counter[0] += 1  # squeeze_ is in place
        return out
    if d1 == 2 and d2 == 2:
        return _op("mm", t1, t2)
    if _should_fold(t1, t2):
        transpose = d2 > d1
        a = _op("transpose", t2, attrs=(-2, -1)) if transpose else t1
        b = t2 if not transpose else (_op("t", t1) if d1 == 2 else t1)
        sizes = a._data.shape
        out_shape = list(sizes[:-1])
        rows = math.prod(out_shape)
        if b.dim() == 2:
            out_shape.append(b._data.shape[1])
        folded = _reshape_compose(a, (rows, sizes[-1]))
        if b.dim() == 2:
            out = _op("_unsafe_view", _op("mm", folded, b), attrs=(tuple(out_shape),))
            if transpose:
                return OPS["contiguous"].apply((_op("transpose", out, attrs=(-2, -1)),), (None,))
            return out
        return _op("_unsafe_view", _op("mv", folded, b), attrs=(tuple(out_shape),))
    s1, s2 = t1._data.shape, t2._data.shape
    n = s1[-2] if d1 > 1 else 1
    m1 = s1[-1]
    m2 = s2[-2] if d2 > 1 else s2[-1]
    p = s2[-1] if d2 > 1 else 1
    batch1, batch2 = s1[:max(d1 - 2, 0)], s2[:max(d2 - 2, 0)]
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and t1.requires_grad_flag:
            return _matmul_compose(_op("squeeze.dim", t1, attrs=(0,)), t2)
        if batch2[0] == 1 and t2.requires_grad_flag:
            return _matmul_compose(t1, _op("squeeze.dim", t2, attrs=(0,)))
    try:
        batch = list(np.broadcast_shapes(batch1, batch2))
    except ValueError:
        raise RuntimeError(_broadcast_error(batch1, batch2)) from None
    count = math.prod(batch)
    e1 = _reshape_compose(_op("expand", t1, attrs=(tuple(batch + [n, m1]),)), (count, n, m1))
    vector = d2 == 1
    if vector:
        e2 = _op("unsqueeze", _reshape_compose(_op("expand", t2, attrs=(tuple(batch + [m2]),)),
                                               (count, m2)), attrs=(2,))
    else:
        e2 = _reshape_compose(_op("expand", t2, attrs=(tuple(batch + [m2, p]),)), (count, m2, p))
    out_shape = batch + ([n] if d1 > 1 else []) + ([p] if d2 > 1 else [])
    product = _op("bmm", e1, e2)
    if vector:
        product = _op("squeeze.dim", product, attrs=(-1,))
    return _op("_unsafe_view", product, attrs=(tuple(out_shape),))


def _broadcast_error(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        if a[i] != b[i] and 1 not in (a[i], b[i]):
            return (f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                    f"non-singleton dimension {i}")
    return "shape mismatch"


register(Composed(
    "matmul", _matmul_compose,
    via=("dot", "mv", "mm", "bmm", "unsqueeze", "expand", "view", "_unsafe_view"),
    inputs=("self", "other"), kind="linalg",
    dtype="same", doc="matrix product: dot, mv, mm or batched as aten::matmul decides",
    samples=[Sample((3,), (3,)), Sample((2, 3), (3,)), Sample((3,), (3, 2)), Sample((2, 3), (3, 4)),
             Sample((2, 2, 3), (3, 2)), Sample((2, 2, 3), (2, 3, 2)), Sample((3,), (2, 3, 2)),
             Sample((2, 2, 3), (3,)), Sample((2, 3), (2, 3, 2)), Sample((1, 2, 3), (2, 3, 2)),
             Sample((2, 1, 2, 3), (2, 3, 2))]))


def _outer_compose(self, vec2):
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return OPS["mul"](_reshape_compose(self, (-1, 1)), vec2)


register(Composed(
    "outer", _outer_compose, via=("view", "mul"), inputs=("self", "vec2"), kind="linalg",
    dtype="promote", doc="outer product of two vectors (self[:, None] * vec2)",
    samples=[Sample((3,), (2,))]))
alias("ger", "outer")
