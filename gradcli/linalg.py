"""torch.linalg: norms, solve, inv, det, slogdet, cross, multi_dot, pinv, solve_triangular —
entries of the op table."""

from .ops import OPS
from .ops.decompositions import cholesky, eigh, eigvalsh
from .ops.linalg import _LinAlgError
from .ops.linalg_extra import multi_dot, pinv, solve_triangular

LinAlgError = _LinAlgError

det = OPS["det"]
inv = OPS["inverse"]
solve = OPS["linalg_solve"]
slogdet = OPS["linalg_slogdet"]
norm = OPS["linalg_norm"]
vector_norm = OPS["linalg_vector_norm"]
matrix_norm = OPS["linalg_matrix_norm"]
svdvals = OPS["linalg_svdvals"]
cross = OPS["linalg_cross"]
matmul = OPS["matmul"]
diagonal = OPS["diagonal"]
svd = OPS["linalg_svd"]
qr = OPS["linalg_qr"]
matrix_power = OPS["matrix_power"]

__all__ = ["LinAlgError", "det", "inv", "solve", "slogdet", "norm", "vector_norm",
           "matrix_norm", "svdvals", "cross", "matmul", "diagonal", "svd", "qr", "eigh",
           "eigvalsh", "cholesky", "matrix_power", "multi_dot", "pinv", "solve_triangular"]
