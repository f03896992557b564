"""Linear algebra: trace, diag, diagonal embedding, tril/triu, det, inverse, solve, slogdet, the
norms of torch.linalg, cross (the matrix products are in gradcli.ops.matmul)."""

import warnings
from collections import namedtuple

import numpy as np

from ..engine import messages
from ..engine.dtypes import short_name
from ..engine.grad_mode import GradMode
from ..engine.tensor import Tensor, check_numel
from ..engine.torch_classes import TorchClass
from .derivatives import helper
from .registry import Composed, OPS, Op, Overload, Sample, register, show_saved_as, wrap_dim
from .slicing import _diagonal
from .summation import torch_vector_norm
from .matmul import _broadcast_error


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a singular matrix met by inv, solve, …"""


_LinAlgError.__module__ = "torch._C"


def _float_input(a, name):
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {short_name(a)}")


def _square(a, name):
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


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


def _as_uint64(value):
    """An int64 as PyTorch 2.13's DiagEmbed/Diagonal nodes show it (as unsigned: -1 is
    18446744073709551615)."""
    return value % (1 << 64)


for _diag, _dims in ((OPS["diag.vector"], (-2, -1)), (diag_matrix, (0, 1))):
    _diag.hidden_saved = ("diagonal",)
    _diag.extra_saved = {"_saved_dim1": lambda node, d=_dims[0]: _as_uint64(d),
                       "_saved_dim2": lambda node, d=_dims[1]: _as_uint64(d),
                       "_saved_offset": lambda node: _as_uint64(node._attrs[0])}


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
show_saved_as(OPS["inverse"], {"result": "inverse"})


def _solve_vector_case(a, b):
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])


def _solve(a, b, left=True):
    if a.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor A must have at least 2 dimensions.")
    _square(a, "linalg.solve")
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A "
                           f"of type {short_name(a)} and B of type {short_name(b)} instead")
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


class SlogdetResult(namedtuple("linalg_slogdet", ["sign", "logabsdet"]), metaclass=TorchClass):
    """torch.return_types.linalg_slogdet."""

    _torch_name = "torch.return_types.linalg_slogdet"

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
            return OPS["linalg_vector_norm"](A, 2.0 if ord is None else ord, dims, keepdim,
                                             dtype=dtype)  # (2.0: PyTorch's _saved_ord)
        if len(dims) == 2:
            return _matrix_norm_compose(A, "fro" if ord is None else ord, dims, keepdim, dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"{list(dims)}")
    if ord is None:
        return OPS["linalg_vector_norm"](A, 2.0, None, keepdim, dtype=dtype)
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
        raise RuntimeError(f"expected scalar type {short_name(a)} but found {short_name(b)}")
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
