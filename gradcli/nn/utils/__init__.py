"""torch.nn.utils: rnn (packed sequences)."""

from . import rnn

__all__ = ["rnn"]
