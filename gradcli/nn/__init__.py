"""torch.nn: only the functional namespace (gradcli has no modules or parameters)."""

from . import functional

__all__ = ["functional"]
