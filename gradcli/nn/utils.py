"""torch.nn.utils: rnn, the padded and packed sequences of gradcli.nn.rnn_utils; the gradient
clipping of gradcli.nn.clip_grad."""

from . import rnn_utils as rnn
from .clip_grad import clip_grad_norm_, clip_grad_value_

__all__ = ["rnn", "clip_grad_norm_", "clip_grad_value_"]
