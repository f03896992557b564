"""torch.nn.utils: rnn, the padded and packed sequences of gradcli.nn.rnn_utils."""

from . import rnn_utils as rnn

__all__ = ["rnn"]
