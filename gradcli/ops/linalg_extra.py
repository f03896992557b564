"""torch.linalg.multi_dot, pinv and solve_triangular, as PyTorch computes and differentiates them:
multi_dot is PyTorch's chain of mm (in the order of least cost) and a final view; pinv and
solve_triangular are ops of their own (LinalgPinvBackward0, LinalgSolveTriangularBackward0)."""

import numpy as np

from ..engine import messages
from ..engine.dtypes import short_name
from ..engine.tensor import Tensor
from .linalg import _float_input
from .derivatives import helper
from .registry import OPS, Op, Plain, Sample, register, show_saved_as

# ------------------------------------------------------------------ multi_dot


def _op(name, *inputs, attrs=()):
    return OPS[name].apply(tuple(inputs), tuple(attrs))


def _chain_order(dims):
    """The split of each chain i..j of least cost (matrix_chain_order: the first best k)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(tensors, split, i, j):
    if i == j:
        return tensors[i]
    k = split[i][j]
    return _op("mm", _chain(tensors, split, i, k), _chain(tensors, split, k + 1, j))


def multi_dot(tensors):
    """torch.linalg.multi_dot: the product of the matrices (the first and last may be vectors),
    multiplied in the order of fewest multiplications."""
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(messages.NOT_TENSOR_ELEMENT.format(index=i, argument=0,
                                                               type=messages.type_name(t)))
    first, last = tensors[0], tensors[-1]
    out_shape = []
    if first.dim() == 1:
        tensors[0] = _op("unsqueeze", first, attrs=(0,))
    elif first.dim() == 2:
        out_shape.append(first.shape[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got "
                           f"{first.dim()}D")
    if last.dim() == 1:
        tensors[-1] = _op("unsqueeze", last, attrs=(-1,))
    elif last.dim() == 2:
        out_shape.append(last.shape[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got "
                               f"{tensors[i].dim()}D")
    for i in range(1, n):
        if tensors[i].dtype is not tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {tensors[0].dtype.short.lower()} and tensor {i} "
                               f"{tensors[i].dtype.short.lower()}")
    for i in range(n - 1):
        if tensors[i].shape[-1] != tensors[i + 1].shape[0]:
            a, b = list(_op_shape(i, tensors, first, last)), list(
                _op_shape(i + 1, tensors, first, last))
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {a} and {b} "
                               f"cannot be multiplied")
    if n == 2:
        result = _op("mm", tensors[0], tensors[1])
    elif n == 3:
        a, b = tensors[0].shape[0], tensors[1].shape[0]
        c, d = tensors[2].shape[0], tensors[2].shape[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            result = _op("mm", tensors[0], _op("mm", tensors[1], tensors[2]))
        else:
            result = _op("mm", _op("mm", tensors[0], tensors[1]), tensors[2])
    else:
        dims = [t.shape[0] for t in tensors] + [tensors[-1].shape[1]]
        result = _chain(tensors, _chain_order(dims), 0, n - 1)
    return result.view(tuple(out_shape))


def _op_shape(i, tensors, first, last):
    """The shape the message shows: the argument as given."""
    return (first if i == 0 else last if i == len(tensors) - 1 else tensors[i]).shape


_multi_dot = register(Plain("linalg_multi_dot", multi_dot,
                            "the product of a chain of matrices, in the order of least cost",
                            kind="linalg", signature="linalg.multi_dot(tensors)",
                            via=("mm",)))
_multi_dot.function = False  # torch.linalg.multi_dot only


# ------------------------------------------------------------------ pinv

def _pinv(a, hermitian=False, atol=None, rtol=None):
    if a.ndim < 2 or a.dtype.kind not in "fc":
        name = {"f4": "Float", "f8": "Double"}.get(a.dtype.str[1:], short_name(a).capitalize())
        raise RuntimeError(f"linalg.pinv({name}{{{list(a.shape)}}}): expected a tensor with 2 "
                           f"or more dimensions of float, double, cfloat or cdouble types")
    m, n = a.shape[-2:]
    if atol is None and rtol is None:
        rtol = np.finfo(a.dtype).eps * max(m, n)
    atol = 0.0 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    if hermitian:
        w, v = np.linalg.eigh(a)
        s = np.abs(w)
        cutoff = np.maximum(atol, rtol * s.max(-1, keepdims=True))
        inv = np.where(s > cutoff, 1 / np.where(w == 0, 1, w), 0)
        out = (v * inv[..., None, :]) @ np.swapaxes(v, -1, -2).conj()
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        cutoff = np.maximum(atol, rtol * (s.max(-1, keepdims=True) if s.shape[-1] else 0))
        inv = np.where(s > cutoff, 1 / np.where(s == 0, 1, s), 0)
        out = (np.swapaxes(vh, -1, -2).conj() * inv[..., None, :]) @ np.swapaxes(u, -1, -2).conj()
    return np.asarray(out, a.dtype)


@helper
def _pinv_vjp(g, self, result):
    """PyTorch's pinv_backward (the branch that keeps the matrices smallest)."""
    m, n = self.shape[-2:]
    pinv_h, g_h = result.mT, g.mT
    if m <= n:
        k = g_h.matmul(result)
        k_pinv_h = k.matmul(pinv_h)
        return (-(result.matmul(k)).mT + k_pinv_h - self.matmul(result).matmul(k_pinv_h)
                + pinv_h.matmul(result).matmul(g_h - k.matmul(self)))
    k = result.matmul(g_h)
    pinv_h_k = pinv_h.matmul(k)
    return (-(k.matmul(result)).mT + (g_h - self.matmul(k)).matmul(result).matmul(pinv_h)
            + pinv_h_k - pinv_h_k.matmul(result).matmul(self))


@helper
def _pinv_jvp(t, self, result):
    """PyTorch's pinv_jvp."""
    m, n = self.shape[-2:]
    t_h, pinv_h = t.mT, result.mT
    if m <= n:
        k = pinv_h.matmul(t_h)
        return (result.matmul(k - k.mT - k.matmul(self.matmul(result)))
                + (t_h - result.matmul(self.matmul(t_h))).matmul(pinv_h.matmul(result)))
    k = result.matmul(t)
    k_h = k.mT
    return ((k_h - k - result.matmul(self).matmul(k_h)).matmul(result)
            + result.matmul(pinv_h).matmul(t_h - t_h.matmul(self).matmul(result)))


register(Op(
    "linalg_pinv", _pinv, "self: _pinv_vjp(grad, self, result)",
    jvp="self: _pinv_jvp(self_t, self, result)",
    attrs=(("hermitian", False), ("atol", None), ("rtol", None)),
    grad_fn="LinalgPinvBackward0", dtype="same", kind="linalg", public=False, method=False,
    doc="the Moore-Penrose pseudo-inverse (through the SVD; eigh when hermitian)",
    samples=[Sample((2, 3), low=1.0, high=2.0), Sample((3, 2), low=1.0, high=2.0),
             Sample((2, 2, 3), low=1.0, high=2.0)]))


def pinv(input, *, atol=None, rtol=None, hermitian=False):
    return OPS["linalg_pinv"](input, hermitian, atol, rtol)


# ------------------------------------------------------------------ solve_triangular

def _triangle(a, upper, unitriangular):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t.copy()
        idx = np.arange(a.shape[-1])
        t[..., idx, idx] = 1
    return t


def _solve_triangular(a, b, upper, left=True, unitriangular=False):
    _float_input(a, "linalg.solve_triangular")
    if a.ndim < 2 or b.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor "
                           f"{'A' if a.ndim < 2 else 'B'} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but "
                           f"they are {a.shape[-2]} by {a.shape[-1]} matrices")
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, "
                           f"but found A of type {short_name(a)} and B of type {short_name(b)} instead")
    if (b.shape[-2] if left else b.shape[-1]) != a.shape[-1]:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {'AX = B' if left else 'XA = B'} "
                           f"({a.shape[-2]}x{a.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")
    t = _triangle(a, upper, unitriangular)
    if not left:   # X A = B  <=>  A^T X^T = B^T
        t, b = np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2)
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    x = np.linalg.solve(np.broadcast_to(t, batch + t.shape[-2:]),
                        np.broadcast_to(b, batch + b.shape[-2:]))
    return np.asarray(x if left else np.swapaxes(x, -1, -2), a.dtype)


@helper
def _solve_triangular_grad_B(g, A, upper, left, unitriangular):
    return OPS["linalg_solve_triangular"](A.mT, g, upper=not upper, left=left,
                                          unitriangular=unitriangular)


@helper
def _solve_triangular_grad_A(g, A, result, upper, left, unitriangular):
    gB = _solve_triangular_grad_B(g, A, upper, left, unitriangular)
    gA = -gB.matmul(result.mT) if left else -result.mT.matmul(gB)
    return gA.triu(1 if unitriangular else 0) if upper else gA.tril(-1 if unitriangular else 0)


@helper
def _solve_triangular_jvp_A(t, A, result, upper, left, unitriangular):
    tri = t.triu(1 if unitriangular else 0) if upper else t.tril(-1 if unitriangular else 0)
    rhs = -tri.matmul(result) if left else -result.matmul(tri)
    return OPS["linalg_solve_triangular"](A, rhs, upper=upper, left=left,
                                          unitriangular=unitriangular)


register(Op(
    "linalg_solve_triangular", _solve_triangular,
    ("A: _solve_triangular_grad_A(grad, A, result, upper, left, unitriangular)",
     "B: _solve_triangular_grad_B(grad, A, upper, left, unitriangular)"), inputs=("A", "B"),
    jvp=("A: _solve_triangular_jvp_A(A_t, A, result, upper, left, unitriangular)",
         "B: linalg_solve_triangular(A, B_t, upper=upper, left=left, "
         "unitriangular=unitriangular)"),
    attrs=("upper", ("left", True), ("unitriangular", False)),
    grad_fn="LinalgSolveTriangularBackward0", dtype="same", kind="linalg", public=False,
    method=False, doc="the solution X of A @ X = B for a triangular A (X @ A = B if not left)",
    samples=[Sample((3, 3), (3, 2), low=1.0, high=2.0, attrs={"upper": True}),
             Sample((3, 3), (3, 1), low=1.0, high=2.0, attrs={"upper": False}),
             Sample((2, 2), (3, 2), low=1.0, high=2.0, attrs={"upper": True, "left": False}),
             Sample((3, 3), (3, 2), low=1.0, high=2.0,
                    attrs={"upper": False, "unitriangular": True})]))
show_saved_as(OPS["linalg_solve_triangular"], {"A": "self"})  # (aten's schema names A self)


_MISSING = object()


def solve_triangular(A, B, *, upper=_MISSING, left=True, unitriangular=False):
    if upper is _MISSING:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: '
                        '"upper"')
    return OPS["linalg_solve_triangular"](A, B, upper=upper, left=left,
                                          unitriangular=unitriangular)
