"""torch.utils: checkpoint (activation checkpointing, gradcli.autograd.checkpoint)."""

from .autograd import checkpoint

__all__ = ["checkpoint"]
