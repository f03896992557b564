"""Linear algebra: matmul (decomposed exactly as aten::matmul), mm, mv, bmm, dot, outer, trace,
diag, diagonal embedding, tril/triu, det, inverse, solve, slogdet, the norms of torch.linalg,
cross."""

import math
import warnings
from collections import namedtuple

import numpy as np

from ..engine import dtypes, messages
from ..engine.grad_mode import GradMode
from ..engine.tensor import _CPP_TYPE_NAMES, Tensor, check_numel
from .derivatives import helper
from .registry import Composed, OPS, Op, Overload, Sample, alias, register, wrap_dim
from .shape import _reshape_compose
from .slicing import _diagonal
from .summation import torch_vector_norm


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a singular matrix met by inv, solve, …"""


_LinAlgError.__module__ = "torch._C"


def _cpp(a):
    return _CPP_TYPE_NAMES.get(a.dtype.name, a.dtype.name)


def _short(a):
    return dtypes.from_numpy_dtype(a.dtype).short


def _float_input(a, name):
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_short(a)}")


def _square(a, name):
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


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
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cpp(a)} != "
                           f"{_cpp(b)}")
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
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_short(v)}, "
                           f"{_short(a)}, and {_short(v)}")
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
        raise RuntimeError(f"expected scalar type {_short(a)} but found {_short(b)}")
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
                           f"{_short(a)} and {_short(b)}")


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
                        f"{type(bad).__name__}")
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


# ------------------------------------------------------------------ diagonals and triangles

def _trace(a):
    if a.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    out = np.trace(a)
    return out if a.dtype.kind in "fc" else out.astype(np.int64)


@helper
def _eye_like(shape, dtype):
    return Tensor._make(np.eye(shape[0], shape[1], dtype=dtype.np), None, 0, False)


register(Op(
    "trace", _trace, "self: grad.expand(self_shape) * _eye_like(self_shape, self_dtype)",
    jvp="linear", dtype="numpy", kind="linalg", doc="sum of the diagonal of a matrix",
    samples=[Sample((3, 3)), Sample((2, 3))]))


def _diag_embed(a, offset=0, dim1=-2, dim2=-1):
    n = a.ndim + 1
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = (a.shape[-1] if a.ndim else 1) + abs(int(offset))
    rest = list(a.shape[:-1])
    shape = []
    for i in range(n):
        shape.append(size if i in (d1, d2) else rest.pop(0))
    check_numel(shape)  # (the offset alone makes it as large as the program likes)
    out = np.zeros(shape, a.dtype)
    _diagonal(out, offset, d1, d2)[...] = a
    return out


register(Op(
    "diag_embed", _diag_embed, "self: grad.diagonal(offset, dim1, dim2)",
    attrs=(("offset", 0), ("dim1", -2), ("dim2", -1)), jvp="linear", dtype="same", kind="linalg",
    doc="matrices with self's last dimension on their diagonal",
    samples=[Sample((3,)), Sample((2, 3), attrs={"offset": 1})]))


def _diag_vector(a, diagonal=0):
    size = a.shape[0] + abs(int(diagonal))
    check_numel((size, size))
    return np.diag(a, int(diagonal))


def _diag_matrix(a, diagonal=0):
    return np.diagonal(a, int(diagonal)).copy()


diag_vector = register(Op(
    "diag.vector", _diag_vector, "self: grad.diagonal(diagonal)",
    attrs=(("diagonal", 0),), grad_fn="DiagEmbedBackward0", jvp="linear", dtype="same",
    kind="linalg", method=False, public=False, doc="a square matrix with self on a diagonal",
    samples=[Sample((3,)), Sample((2,), attrs={"diagonal": -1})]))
diag_matrix = register(Op(
    "diag.matrix", _diag_matrix,
    "self: diagonal_backward.apply((grad,), (self_shape, diagonal, 0, 1))",
    attrs=(("diagonal", 0),), grad_fn="DiagonalBackward0_copy", jvp="linear", dtype="same",
    kind="linalg", method=False, public=False, doc="a copy of a matrix's diagonal",
    samples=[Sample((3, 3)), Sample((2, 3), attrs={"diagonal": 1})]))


def _choose_diag(self, diagonal=0, **kwargs):
    if self.dim() == 1:
        return diag_vector
    if self.dim() == 2:
        return diag_matrix
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")


register(Overload("diag", _choose_diag, (diag_vector, diag_matrix),
                  doc="vector -> diagonal matrix; matrix -> its diagonal (diagonal= offset)",
                  kind="linalg"))


def _triangle(name, fn):
    def forward(a, diagonal=0):
        if a.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return fn(a, int(diagonal))
    return forward


register(Op(
    "tril", _triangle("tril", np.tril), "self: grad.tril(diagonal)",
    attrs=(("diagonal", 0),), jvp="linear", dtype="same", kind="linalg",
    doc="the lower triangle (entries on and below the diagonal-th diagonal)",
    samples=[Sample((3, 3)), Sample((2, 3, 4), attrs={"diagonal": 1})]))
register(Op(
    "triu", _triangle("triu", np.triu), "self: grad.triu(diagonal)",
    attrs=(("diagonal", 0),), jvp="linear", dtype="same", kind="linalg",
    doc="the upper triangle (entries on and above the diagonal-th diagonal)",
    samples=[Sample((3, 3)), Sample((3, 4), attrs={"diagonal": -1})]))


# ------------------------------------------------------------------ determinants, inverses

def _zero_pivot(m):
    """1-based index of the first zero pivot of LU with partial pivoting (LAPACK's info)."""
    a = np.array(m, dtype=np.float64)
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        a[[k, p]] = a[[p, k]]
        a[k + 1:, k:] -= np.outer(a[k + 1:, k] / a[k, k], a[k, k:])
    return 0


def _singular(a, message):
    """The first singular matrix of a batch, as PyTorch reports it (None if all invertible)."""
    flat = a.reshape((-1,) + a.shape[-2:])
    for i, m in enumerate(flat):
        info = _zero_pivot(m)
        if info:
            prefix = f"(Batch element {i}): " if a.ndim > 2 else ""
            return message(prefix, info)
    return None


def _det(a):
    _square(a, "linalg.det")
    _float_input(a, "linalg.det")
    return np.linalg.det(a) if a.size else np.ones(a.shape[:-2], a.dtype)


def _adjugate_t(a):
    """The transposed adjugate (the gradient of det) of each matrix, via the SVD (works for
    singular matrices too)."""
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    prods = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    adj = np.swapaxes(vh, -1, -2) @ (prods[..., :, None] * np.swapaxes(u, -1, -2))
    return np.swapaxes(adj, -1, -2) * sign[..., None, None]


@helper
def _det_vjp(g, self, result):
    """PyTorch's linalg_det_backward: solve(A^T, diag(g * det)).  Exactly singular matrices get
    a zero gradient, or the adjugate (from the SVD) when the graph is being differentiated."""
    singular = result._data == 0
    if not singular.any():
        d = (g * result).unsqueeze(-1).expand(tuple(self.shape[:-1]))
        return OPS["linalg_solve"](self.mT, OPS["diag_embed"](d).mT)
    cof = _adjugate_t(self._data)
    if not GradMode.enabled:
        cof[singular] = 0
    return g.unsqueeze(-1).unsqueeze(-1) * Tensor._make(cof.astype(self._data.dtype), None, 0, False)


register(Op(
    "det", _det, "self: _det_vjp(grad, self, result)", grad_fn="LinalgDetBackward0",
    jvp="self: result * (self.inverse() * self_t.mT).sum((-2, -1))",
    dtype="same", kind="linalg", doc="determinant of a square matrix (or of each in a batch)",
    samples=[Sample((3, 3)), Sample((2, 2, 2)), Sample((1, 1))]))


def _inv(a):
    _square(a, "linalg.inv")
    _float_input(a, "linalg.inv")
    bad = _singular(a, lambda prefix, info: (
        f"linalg.inv: {prefix}The diagonal element {info} is zero, the inversion could not be "
        "completed because the input matrix is singular."))
    if bad:
        raise _LinAlgError(bad)
    return np.linalg.inv(a)


register(Op(
    "inverse", _inv, "self: -result.mT.matmul(grad.matmul(result.mT))",
    grad_fn="LinalgInvExBackward0", jvp="self: -result.matmul(self_t.matmul(result))",
    dtype="same", kind="linalg", doc="inverse of a square matrix (or of each in a batch)",
    samples=[Sample((3, 3), low=1.0, high=2.0), Sample((2, 2, 2), low=1.0, high=2.0)]))


def _solve_vector_case(a, b):
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])


def _solve(a, b, left=True):
    if a.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor A must have at least 2 dimensions.")
    _square(a, "linalg.solve")
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A "
                           f"of type {_short(a)} and B of type {_short(b)} instead")
    _float_input(a, "linalg.solve")
    vector = left and _solve_vector_case(a, b)
    rhs = b[..., None] if vector else (b if left else np.swapaxes(b, -1, -2))
    mat = a if left else np.swapaxes(a, -1, -2)
    if rhs.shape[-2] != mat.shape[-1]:
        shape = (b.shape[-1], 1) if vector else b.shape[-2:]
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({a.shape[-2]}x{a.shape[-1]} and {shape[0]}x{shape[1]})")
    bad = _singular(mat, lambda prefix, info: (
        f"torch.linalg.solve: {prefix}The solver failed because the input matrix is singular."))
    if bad:
        raise _LinAlgError(bad)
    batch = np.broadcast_shapes(mat.shape[:-2], rhs.shape[:-2])
    check_numel(batch + mat.shape[-2:])  # (the batches broadcast: NumPy copies A's, and the
    check_numel(batch + rhs.shape[-2:])  # result is as large as B's)
    x = np.linalg.solve(np.broadcast_to(mat, batch + mat.shape[-2:]),
                        np.broadcast_to(rhs, batch + rhs.shape[-2:]))
    if vector:
        return x[..., 0]
    return x if left else np.swapaxes(x, -1, -2)


@helper
def _solve_grad_B(g, A, B_shape, left):
    if not left:
        return OPS["linalg_solve"](A, g.mT).mT
    return OPS["linalg_solve"](A.mT, g)


@helper
def _solve_grad_A(g, A, B_shape, result, left):
    gB = _solve_grad_B(g, A, B_shape, left)
    if not left:
        return -result.mT.matmul(gB)
    if _solve_vector_case(A._data, np.empty(B_shape, np.bool_)):
        return -gB.unsqueeze(-1) * result.unsqueeze(-2)
    return -gB.matmul(result.mT)


@helper
def _solve_jvp_A(t, A, result, left):
    return OPS["linalg_solve"](A, -t.matmul(result.unsqueeze(-1)).squeeze(-1)
                               if result.dim() == A.dim() - 1 and left else
                               (-t.matmul(result) if left else -result.matmul(t)), left=left)


register(Op(
    "linalg_solve", _solve, ("A: _solve_grad_A(grad, A, B_shape, result, left)",
                             "B: _solve_grad_B(grad, A, B_shape, left)"), inputs=("A", "B"),
    attrs=(("left", True),), grad_fn="LinalgSolveExBackward0",
    jvp=("A: _solve_jvp_A(A_t, A, result, left)", "B: linalg_solve(A, B_t, left=left)"),
    dtype="same", kind="linalg", public=False, method=False,
    doc="the solution X of A @ X = B (X @ A = B when left=False)",
    samples=[Sample((3, 3), (3,), low=1.0, high=2.0), Sample((3, 3), (3, 2), low=1.0, high=2.0),
             Sample((2, 2, 2), (2, 2), low=1.0, high=2.0),
             Sample((2, 2), (3, 2), low=1.0, high=2.0, attrs={"left": False})]))


class SlogdetResult(namedtuple("linalg_slogdet", ["sign", "logabsdet"])):
    """torch.return_types.linalg_slogdet."""

    def __repr__(self):
        return (f"torch.return_types.linalg_slogdet(\nsign={self.sign!r},\n"
                f"logabsdet={self.logabsdet!r})")


def _slogdet(a):
    _square(a, "linalg.slogdet")
    _float_input(a, "linalg.slogdet")
    sign, logabsdet = np.linalg.slogdet(a)
    return sign.astype(a.dtype), logabsdet.astype(a.dtype)


register(Op(
    "linalg_slogdet", _slogdet,
    "self: grad[1].unsqueeze(-1).unsqueeze(-1) * self.inverse().mT", outputs=2,
    grad_fn="LinalgSlogdetBackward0",
    jvp="self: ((self_t * 0).sum((-2, -1)), (self.inverse() * self_t.mT).sum((-2, -1)))",
    dtype="same", kind="linalg", public=False, method=False,
    output_wrapper=lambda results: SlogdetResult(*results),
    doc="sign and log|det| of a square matrix",
    samples=[Sample((3, 3), low=1.0, high=2.0)]))


# ------------------------------------------------------------------ norms

def _norm_axes(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    return tuple(sorted(wrap_dim(d, ndim) for d in dims)) if dims else tuple(range(ndim))


def _vector_norm(a, ord=2, dim=None, keepdim=False, dtype=None):
    if isinstance(ord, str) or isinstance(ord, bool):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not "
                        f"{type(ord).__name__}")
    _float_input(a, "linalg.vector_norm")
    if dtype is not None:
        a = a.astype(dtype.np)
    ax = _norm_axes(dim, a.ndim)
    out = torch_vector_norm(a, ord, ax)   # in PyTorch's order (gradcli/ops/summation.py)
    if out is not None:
        return out.reshape(tuple(1 if d in ax else n for d, n in enumerate(a.shape))) \
            if keepdim else out
    x = np.abs(a)
    if ord == 2:
        out = np.sqrt(np.sum(x * x, axis=ax, keepdims=keepdim))
    elif ord == float("inf"):
        out = np.max(x, axis=ax, keepdims=keepdim)
    elif ord == -float("inf"):
        out = np.min(x, axis=ax, keepdims=keepdim)
    elif ord == 0:
        out = np.sum(x != 0, axis=ax, keepdims=keepdim).astype(a.dtype)
    elif ord == 1:
        out = np.sum(x, axis=ax, keepdims=keepdim)
    else:
        out = np.sum(x ** ord, axis=ax, keepdims=keepdim) ** (1.0 / ord)
    return np.asarray(out, dtype=a.dtype)


def _kept(t, shape, dim, keepdim):
    """A reduced tensor with the reduced dimensions back as size 1 (broadcasts over self):
    PyTorch's unsqueeze_multiple, one unsqueeze per dimension (none over every element)."""
    if keepdim or not shape or dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return t
    for d in _norm_axes(dim, len(shape)):
        t = t.unsqueeze(d)
    return t


@helper
def _vector_norm_vjp(g, self, result, ord, dim, keepdim):
    """PyTorch's linalg_vector_norm_backward, in Tensor operations (for ord 2: grad * (self /
    norm), in that order, so that a norm of one element gives exactly +-1)."""
    shape = tuple(self.shape)
    g = _kept(g, shape, dim, keepdim)
    norm = _kept(result, shape, dim, keepdim)
    if ord == 0:
        return None
    if ord == 1:
        return self.sign() * g
    if ord == 2:
        return g * (self / norm).masked_fill(norm == 0, 0.0)
    if ord in (float("inf"), -float("inf")):
        mask = self.abs() == norm
        count = mask.sum(_norm_axes(dim, len(shape)), keepdim=True)
        return self.sign() * ((g / count) * mask)
    if ord < 1:
        scaled = self.sign() * (self.abs() ** (ord - 1)).masked_fill(self == 0, 0.0)
        return scaled * g * norm ** (1 - ord)
    scaled = self.sign() * self.abs() ** (ord - 1) if ord < 2 else self * self.abs() ** (ord - 2)
    return scaled * (g / norm ** (ord - 1)).masked_fill(norm == 0, 0.0)


@helper
def _vector_norm_jvp(t, self, result, ord, dim, keepdim):
    if ord == 0:
        return result * 0
    ones = Tensor._make(np.ones(result._data.shape, result._data.dtype), None, 0, False)
    slope = _vector_norm_vjp(ones, self, result, ord, dim, keepdim)
    return (t * slope).sum(_norm_axes(dim, self.dim()), keepdim=keepdim)


register(Op(
    "linalg_vector_norm", _vector_norm,
    "self: _vector_norm_vjp(grad, self, result, ord, dim, keepdim)",
    attrs=(("ord", 2), ("dim", None), ("keepdim", False), ("dtype", None)),
    jvp="self: _vector_norm_jvp(self_t, self, result, ord, dim, keepdim)", dtype="numpy",
    kind="linalg", public=False, method=False,
    doc="(sum |self|^ord)^(1/ord) over dim (max/min |self| for ord=±inf, count for 0)",
    samples=[Sample((3,), low=0.3, high=2.0), Sample((2, 3), low=0.3, high=2.0, attrs={"dim": 1}),
             Sample((2, 3), low=0.3, high=2.0, attrs={"ord": 1, "dim": 0, "keepdim": True}),
             Sample((2, 3), low=0.3, high=2.0, attrs={"ord": 3}),
             Sample((4,), low=0.3, high=2.0, attrs={"ord": 0.5}),
             Sample((2, 3), low=0.3, high=2.0, attrs={"ord": float("inf"), "dim": 1})]))


def _svdvals(a):
    _float_input(a, "linalg.svd")
    return np.linalg.svd(a, compute_uv=False)


@helper
def _svdvals_vjp(g, self):
    """U diag(g) V^H with U, V of the saved input (first derivatives; U and V are not
    differentiated again)."""
    u, _, vh = np.linalg.svd(self._data, full_matrices=False)
    U = Tensor._make(u, None, 0, False)
    Vh = Tensor._make(vh, None, 0, False)
    return (U * g.unsqueeze(-2)).matmul(Vh)


register(Op(
    "linalg_svdvals", _svdvals, "self: _svdvals_vjp(grad, self)", grad_fn="LinalgSvdBackward0",
    jvp="self: _svdvals_jvp(self_t, self)", dtype="same", kind="linalg", public=False,
    method=False, doc="singular values of a matrix (or each in a batch), largest first",
    samples=[Sample((3, 2), gradgrad=False), Sample((2, 2, 3), gradgrad=False)]))


@helper
def _svdvals_jvp(t, self):
    u, _, vh = np.linalg.svd(self._data, full_matrices=False)
    U = Tensor._make(u, None, 0, False)
    V = Tensor._make(np.swapaxes(vh, -1, -2).copy(), None, 0, False)
    return (U.mT.matmul(t).matmul(V)).diagonal(0, -2, -1)


def _matrix_dims(A, dim, name):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _float_input(A._data, name)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    d = (wrap_dim(dim[0], A.dim()), wrap_dim(dim[1], A.dim()))
    if d[0] == d[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d[0]}, {d[1]})")
    return d


def _matrix_norm_compose(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    d = _matrix_dims(A, tuple(dim), "linalg.matrix_norm")
    if isinstance(ord, str):
        if ord == "fro":
            return OPS["linalg_vector_norm"](A, 2, d, keepdim, dtype=dtype)
        if ord != "nuc":
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        return _svd_norm(A, d, keepdim, "sum")
    if ord in (2, -2):
        return _svd_norm(A, d, keepdim, "amax" if ord > 0 else "amin")
    if ord not in (1, -1, float("inf"), -float("inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {_number(ord)} not supported.")
    first, second = (d[1], d[0]) if abs(ord) == float("inf") else d
    if not keepdim and first < second:
        second -= 1
    col = OPS["linalg_vector_norm"](A, 1, (first,), keepdim, dtype=dtype)
    return OPS["amax" if ord > 0 else "amin"](col, second, keepdim)


def _number(x):
    return int(x) if float(x).is_integer() else x


def _svd_norm(A, d, keepdim, reduce):
    n = A.dim()
    order = [i for i in range(n) if i not in d] + list(d)
    values = OPS["linalg_svdvals"](OPS["permute"](A, tuple(order)))
    out = values.sum(-1) if reduce == "sum" else OPS[reduce](values, -1)
    if keepdim:
        for i in sorted(d):
            out = out.unsqueeze(i)
    return out


register(Composed(
    "linalg_matrix_norm", _matrix_norm_compose,
    via=("linalg_vector_norm", "amax", "sum.dim_IntList", "linalg_svdvals"),
    attrs=(("ord", "fro"), ("dim", (-2, -1)), ("keepdim", False), ("dtype", None)),
    kind="linalg", public=False, method=False,
    doc="matrix norm: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf over the two dims",
    samples=[Sample((2, 3), low=0.3, high=2.0), Sample((3, 3), low=0.3, high=2.0, attrs={"ord": 1}),
             Sample((2, 3), low=0.3, high=2.0, attrs={"ord": float("inf"), "keepdim": True}),
             Sample((3, 2), attrs={"ord": "nuc"}, gradgrad=False),
             Sample((3, 2), attrs={"ord": 2}, gradgrad=False)], dtype="same"))


def _norm_compose(A, ord=None, dim=None, keepdim=False, dtype=None):
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            return OPS["linalg_vector_norm"](A, 2 if ord is None else ord, dims, keepdim,
                                             dtype=dtype)
        if len(dims) == 2:
            return _matrix_norm_compose(A, "fro" if ord is None else ord, dims, keepdim, dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"{list(dims)}")
    if ord is None:
        return OPS["linalg_vector_norm"](A, 2, None, keepdim, dtype=dtype)
    if isinstance(ord, str) or A.dim() == 2:
        return _matrix_norm_compose(A, ord, (-2, -1), keepdim, dtype)
    if A.dim() != 1:
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D "
                           f"or 2D. Got {A.dim()}D.")
    return OPS["linalg_vector_norm"](A, ord, None, keepdim, dtype=dtype)


register(Composed(
    "linalg_norm", _norm_compose, via=("linalg_vector_norm", "linalg_matrix_norm"),
    attrs=(("ord", None), ("dim", None), ("keepdim", False), ("dtype", None)), kind="linalg", public=False, method=False,
    doc="vector_norm or matrix_norm, as ord and dim ask",
    samples=[Sample((2, 3), low=0.3, high=2.0), Sample((3,), low=0.3, high=2.0, attrs={"ord": 1}),
             Sample((2, 3), low=0.3, high=2.0, attrs={"ord": 1})], dtype="same"))


# ------------------------------------------------------------------ cross product

def _cross(a, b, dim=-1):
    if a.ndim != b.ndim:
        raise RuntimeError(messages.CROSS_SAME_NDIM)
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_short(a)} but found {_short(b)}")
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise RuntimeError(_broadcast_error(a.shape, b.shape)) from None
    check_numel(shape)  # (the broadcast, before NumPy's cross makes it and its products)
    d = wrap_dim(dim, len(shape))
    a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    if shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[d]} and {b.shape[d]}")
    return np.cross(a, b, axis=d)


register(Op(
    "linalg_cross", _cross,
    ("self: linalg_cross(other, grad, dim=dim)", "other: linalg_cross(grad, self, dim=dim)"),
    inputs=("self", "other"), attrs=(("dim", -1),), grad_fn="LinalgCrossBackward0",
    jvp=("self: linalg_cross(self_t, other, dim=dim)",
         "other: linalg_cross(self, other_t, dim=dim)"),
    dtype="same", kind="linalg", public=False, method=False,
    doc="cross product of 3-vectors along dim (broadcast)",
    samples=[Sample((3,), (3,)), Sample((2, 3), (1, 3)), Sample((3, 2), (3, 2), attrs={"dim": 0})]))


def _cross_compose(self, other, dim=None):
    if dim is None:
        warnings.warn(messages.CROSS_DIM_DEPRECATED, UserWarning, stacklevel=3)
        shape = np.broadcast_shapes(self._data.shape, other._data.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return OPS["linalg_cross"](self, other, dim=dim)


register(Composed(
    "cross", _cross_compose, via=("linalg_cross",), inputs=("self", "other"),
    attrs=(("dim", None),), kind="linalg",
    doc="cross product along dim (default: the first dimension of size 3)",
    samples=[Sample((3,), (3,))], dtype="same"))
