"""Matrix decompositions with gradients: linalg.svd (torch.svd), linalg.qr, linalg.eigh,
linalg.eigvalsh, linalg.cholesky; and logdet, matrix_power.

Each VJP recomputes the decomposition from the saved input with the op itself, so the
gradient is made of Tensor operations and differentiates again (create_graph).

eigh, eigvalsh and cholesky read one triangle of their input, and PyTorch's gradients for
them are those of the symmetric matrix (they are not the derivative with respect to the
entries of a general matrix), so finite differences on a random matrix cannot check them: they
are ops outside the table (`SYMMETRIC_INPUT`), checked in tests/ops/test_more_ops.py on
symmetrized inputs and against PyTorch."""

import numpy as np

from ..engine.tensor import Tensor
from .linalg import _float_input, _square
from .reductions import return_type
from .derivatives import helper
from .registry import OPS, Composed, Op, Sample, register

SvdResult = return_type("linalg_svd", ["U", "S", "Vh"])
QrResult = return_type("linalg_qr", ["Q", "R"])
EighResult = return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
TorchSvdResult = return_type("svd", ["U", "S", "V"])


def _const(array):
    return Tensor._make(np.array(array, order="C"), None, 0, False)


def _eye(n, like):
    return _const(np.eye(n, dtype=like._data.dtype))


def _off_diagonal_inverse(values):
    """1 / (values_j - values_i) off the diagonal, 0 on it (E_ij = values_j - values_i)."""
    e = values.unsqueeze(-2) - values.unsqueeze(-1)
    n = values.shape[-1]
    mask = _const(np.eye(n, dtype=bool))
    return (1 / e.masked_fill(mask, 1.0)).masked_fill(mask, 0.0)


# ------------------------------------------------------------------ svd

def _svd(a, full_matrices):
    _float_input(a, "linalg.svd")
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return u, s, vh


@helper
def _svd_vjp(g, self, full_matrices):
    """Townsend's formula (PyTorch's svd_backward, real case); with full_matrices, the columns
    past min(m, n) of U and rows of Vh take no part."""
    U, S, Vh = OPS["linalg_svd"](self, full_matrices=False)
    k = S.shape[-1]
    gU, gS, gVh = g
    gU = gU[..., :, :k]
    gVh = gVh[..., :k, :]
    V, gV = Vh.mT, gVh.mT
    F = _off_diagonal_inverse(S * S)
    J = F * (U.mT.matmul(gU) - gU.mT.matmul(U))
    K = F * (V.mT.matmul(gV) - gV.mT.matmul(V))
    Sd = S.unsqueeze(-2)
    inner = J * Sd + Sd.mT * K + gS.diag_embed()
    out = U.matmul(inner).matmul(Vh)
    m, n = self.shape[-2], self.shape[-1]
    if m > k:
        out = out + ((gU - U.matmul(U.mT.matmul(gU))) / S.unsqueeze(-2)).matmul(Vh)
    if n > k:
        out = out + (U / S.unsqueeze(-2)).matmul(gVh - gVh.matmul(V).matmul(Vh))
    return out


@helper
def _svd_jvp(t, self, full_matrices):
    U, S, Vh = OPS["linalg_svd"](self, full_matrices=False)
    V = Vh.mT
    dP = U.mT.matmul(t).matmul(V)
    dS = dP.diagonal(0, -2, -1)
    F = _off_diagonal_inverse(S * S)
    Sd = S.unsqueeze(-2)
    dU = U.matmul(F * (dP * Sd + Sd.mT * dP.mT))
    dV = V.matmul(F * (Sd.mT * dP + dP.mT * Sd))
    m, n = self.shape[-2], self.shape[-1]
    k = S.shape[-1]
    if m > k:
        dU = dU + (t.matmul(V) - U.matmul(U.mT.matmul(t.matmul(V)))) / Sd
    if n > k:
        dV = dV + (t.mT.matmul(U) - V.matmul(V.mT.matmul(t.mT.matmul(U)))) / Sd
    if full_matrices and (m > k or n > k):
        raise NotImplementedError("linalg_svd: forward AD with full_matrices=True is not "
                                  "implemented")
    return [dU, dS, dV.mT]


register(Op(
    "linalg_svd", _svd, "self: _svd_vjp(grad, self, full_matrices)",
    jvp="self: _svd_jvp(self_t, self, full_matrices)", attrs=(("full_matrices", True),), outputs=3,
    output_wrapper=lambda r: SvdResult(*r), dtype="same", method=False, public=False,
    grad_fn="LinalgSvdBackward0", kind="linalg",
    doc="U, S, Vh with self = U diag(S) Vh (full_matrices: U and Vh square)",
    samples=[Sample((3, 2), attrs={"full_matrices": False}, gradgrad=False),
             Sample((3, 3), attrs={"full_matrices": False}, gradgrad=False)]))


def _torch_svd_compose(self, some=True, compute_uv=True):
    U, S, Vh = OPS["linalg_svd"](self, full_matrices=not some)
    if not compute_uv:
        U, Vh = U * 0, Vh * 0
    return TorchSvdResult(U, S, Vh.mT)


register(Composed(
    "svd", _torch_svd_compose, via=("linalg_svd",), attrs=(("some", True), ("compute_uv", True)),
    differentiable=False, kind="linalg",
    doc="torch.svd: U, S, V with self = U diag(S) V^T (linalg.svd with V transposed back)"))


# ------------------------------------------------------------------ qr

def _qr(a, mode):
    _float_input(a, "linalg.qr")
    if a.ndim < 2:
        raise RuntimeError(f"linalg.qr: The input tensor A must have at least 2 dimensions.")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        q = np.zeros((0,), a.dtype)
    return q, r


def _copyltu(M):
    low = M.tril(-1)
    return low + low.mT + M.diagonal(0, -2, -1).diag_embed()


@helper
def _qr_vjp(g, self, mode):
    """PyTorch's linalg_qr_backward for m >= n (reduced), in Tensor operations."""
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                           "differentiate through linalg.qr.")
    m, n = self.shape[-2], self.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    Q, R = OPS["linalg_qr"](self, mode="reduced")
    gQ, gR = g
    if m >= n:
        M = R.matmul(gR.mT) - gQ.mT.matmul(Q)
        b = gQ + Q.matmul(_copyltu(M))
        return OPS["linalg_solve"](R, b.mT).mT
    # m < n: A = Q [X | Y], X square
    X = R[..., :, :m]
    Y = R[..., :, m:]
    gX, gY = gR[..., :, :m], gR[..., :, m:]
    A_y = self[..., :, m:]
    gQ = gQ + A_y.matmul(gY.mT)
    M = X.matmul(gX.mT) - gQ.mT.matmul(Q)
    b = gQ + Q.matmul(_copyltu(M))
    gA_x = OPS["linalg_solve"](X, b.mT).mT
    gA_y = Q.matmul(gY)
    return OPS["cat"]([gA_x, gA_y], -1)


@helper
def _qr_jvp(t, self, mode):
    Q, R = OPS["linalg_qr"](self, mode="reduced")
    m, n = self.shape[-2], self.shape[-1]
    if m < n:
        raise NotImplementedError("linalg_qr: forward AD for wide matrices is not implemented")
    Rinv = OPS["inverse"](R)
    C = Q.mT.matmul(t).matmul(Rinv)
    low = C.tril(-1)
    skew = low - low.mT
    dQ = Q.matmul(skew) + (t - Q.matmul(Q.mT.matmul(t))).matmul(Rinv)
    dR = (C - skew).matmul(R)
    return [dQ, dR]


register(Op(
    "linalg_qr", _qr, "self: _qr_vjp(grad, self, mode)", jvp="self: _qr_jvp(self_t, self, mode)",
    attrs=(("mode", "reduced"),), outputs=2,
    output_wrapper=lambda r: QrResult(*r), dtype="same", method=False, public=False,
    grad_fn="LinalgQrBackward0", kind="linalg",
    doc="Q (orthonormal columns) and R (upper triangular) with self = Q R",
    samples=[Sample((3, 2), gradgrad=False), Sample((3, 3), gradgrad=False)]))


# ------------------------------------------------------------------ eigh, eigvalsh, cholesky

def _symmetric_part(a, UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got " + str(UPLO))
    return a


def _eigh(a, UPLO):
    _square(a, "linalg.eigh")
    _float_input(a, "linalg.eigh")
    _symmetric_part(a, UPLO)
    values, vectors = np.linalg.eigh(a, UPLO=UPLO)
    return values, vectors


@helper
def _eigh_vjp(g, self, UPLO):
    """V (diag(gL) + skew(V^T gV) / E) V^T with E_ij = L_j - L_i, skew(X) = (X - X^T)/2
    (PyTorch's eigh backward: a symmetric gradient)."""
    L, V = EIGH.apply((self,), (UPLO,))
    gL, gV = g
    X = V.mT.matmul(gV)
    inner = gL.diag_embed() + _off_diagonal_inverse(L) * ((X - X.mT) * 0.5)
    return V.matmul(inner).matmul(V.mT)


@helper
def _eigh_jvp(t, self, UPLO):
    L, V = EIGH.apply((self,), (UPLO,))
    sym = (t.tril() + t.tril(-1).mT) if UPLO == "L" else (t.triu() + t.triu(1).mT)
    dP = V.mT.matmul(sym).matmul(V)
    return [dP.diagonal(0, -2, -1), V.matmul(_off_diagonal_inverse(L) * dP)]


EIGH = Op(
    "linalg_eigh", _eigh, "self: _eigh_vjp(grad, self, UPLO)",
    jvp="self: _eigh_jvp(self_t, self, UPLO)", attrs=(("UPLO", "L"),), outputs=2,
    output_wrapper=lambda r: EighResult(*r), dtype="same", method=False, public=False,
    grad_fn="LinalgEighBackward0", kind="linalg",
    doc="eigenvalues (ascending) and eigenvectors of a symmetric matrix (one triangle read)")


def eigh(A, UPLO="L"):
    """torch.linalg.eigh: (eigenvalues, eigenvectors) of a symmetric matrix."""
    return EIGH(A, UPLO)


def eigvalsh(A, UPLO="L"):
    """torch.linalg.eigvalsh: the eigenvalues of a symmetric matrix, ascending."""
    return EIGH(A, UPLO)[0]


def _cholesky(a, upper):
    _square(a, "linalg.cholesky")
    _float_input(a, "linalg.cholesky")
    try:
        low = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        from .linalg import _LinAlgError
        order = _failing_minor(a)
        raise _LinAlgError(f"linalg.cholesky: The factorization could not be completed because "
                           f"the input is not positive-definite (the leading minor of order "
                           f"{order} is not positive-definite).") from None
    return np.swapaxes(low, -1, -2).copy() if upper else low


def _failing_minor(a):
    m = a if a.ndim == 2 else a.reshape(-1, *a.shape[-2:])[0]
    for k in range(1, m.shape[-1] + 1):
        try:
            np.linalg.cholesky(m[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return m.shape[-1]


@helper
def _cholesky_vjp(g, result, upper):
    """PyTorch's cholesky_backward: L^-T Phi(L^T gL) L^-1, symmetrized."""
    L = result.mT if upper else result
    gL = g.mT if upper else g
    P = L.mT.matmul(gL).tril()
    P = P - 0.5 * P.diagonal(0, -2, -1).diag_embed()
    Linv = OPS["inverse"](L)
    gA = Linv.mT.matmul(P).matmul(Linv)
    return 0.5 * (gA + gA.mT)


@helper
def _cholesky_jvp(t, result, upper):
    L = result.mT if upper else result
    Linv = OPS["inverse"](L)
    sym = 0.5 * (t + t.mT)
    X = Linv.matmul(sym).matmul(Linv.mT)
    Phi = X.tril() - 0.5 * X.diagonal(0, -2, -1).diag_embed()
    dL = L.matmul(Phi)
    return dL.mT if upper else dL


CHOLESKY = Op(
    "linalg_cholesky", _cholesky, "self: _cholesky_vjp(grad, result, upper)",
    jvp="self: _cholesky_jvp(self_t, result, upper)", attrs=(("upper", False),),
    dtype="same", method=False, public=False, grad_fn="LinalgCholeskyExBackward0",
    kind="linalg", doc="the lower (upper=True: upper) triangular L with L L^T = self")
SYMMETRIC_INPUT = {"linalg_eigh": EIGH, "linalg_cholesky": CHOLESKY}


def cholesky(A, upper=False):
    """torch.linalg.cholesky: the Cholesky factor of a symmetric positive-definite matrix."""
    return CHOLESKY(A, upper)


# ------------------------------------------------------------------ logdet, matrix_power

def _logdet_compose(self):
    sign, logabsdet = OPS["linalg_slogdet"](self)
    nan = Tensor._make(np.array(np.nan, self._data.dtype), None, 0, False)
    return OPS["where"](_const(sign._data < 0), nan, logabsdet)


register(Composed(
    "logdet", _logdet_compose,
    via=("linalg_slogdet", "where"), dtype="same",
    kind="linalg", doc="log det(self) (nan for a negative determinant)",
    samples=[Sample((3, 3), low=1.0, high=2.0, name="(3, 3) det > 0")]))


def _matrix_power_compose(self, n):
    if self.dim() < 2 or self.shape[-1] != self.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {self.shape[-2] if self.dim() > 1 else 1} by "
                           f"{self.shape[-1] if self.dim() else 1} matrices")
    if n == 0:
        eye = _const(np.broadcast_to(np.eye(self.shape[-1], dtype=self._data.dtype),
                                     self._data.shape))
        return self.clone().copy_(eye) if self.requires_grad else eye
    if n == 1:
        return self.clone()
    base = OPS["inverse"](self) if n < 0 else self
    result = None
    power = base
    k = abs(n)
    while k:  # binary powering, as PyTorch's linalg_matrix_power
        if k & 1:
            result = power if result is None else result.matmul(power)
        k >>= 1
        if k:
            power = power.matmul(power)
    return result


register(Composed(
    "matrix_power", _matrix_power_compose, via=("mm", "clone"), attrs=("n",), dtype="same",
    kind="linalg",
    doc="self multiplied by itself n times (n < 0: its inverse; n = 0: the identity)",
    samples=[Sample((3, 3), attrs={"n": 3}), Sample((2, 2), attrs={"n": 2}),
             Sample((2, 2, 2), attrs={"n": 1})]))
