"""torch.nn.utils: rnn, the padded and packed sequences of gradcli.nn.rnn_utils; the gradient
clipping of gradcli.nn.clip_grad; parameters_to_vector and vector_to_parameters."""

from . import rnn_utils as rnn
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["rnn", "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters"]
