"""torch.linalg: norms, solve, inv, det, slogdet, cross — entries of the op table."""

from .ops import OPS
from .ops.linalg import _LinAlgError

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

__all__ = ["LinAlgError", "det", "inv", "solve", "slogdet", "norm", "vector_norm",
           "matrix_norm", "svdvals", "cross", "matmul", "diagonal"]
