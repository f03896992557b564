"""torch.utils: checkpoint (activation checkpointing, gradcli.autograd.checkpoint) and data
(Dataset, DataLoader, random_split, ...: gradcli.data, imported when a program first reaches
torch.utils)."""

from .autograd import checkpoint

_LAZY = ("data",)
__all__ = ["checkpoint", *_LAZY]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import data
    return data
