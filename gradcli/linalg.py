"""torch.linalg: norm, solve, det, inv."""

__all__ = []
