"""torch.nn.functional: activations, dropouts, softmaxes and the layers' functions; the losses
are gradcli.nn.losses', imported here.

Activations are the op table's own Op objects (F.gelu is gradcli.ops.OPS["gelu"]); the ones
PyTorch gives an `inplace=` flag are thin functions over the op and its in-place variant.
Convolutions, poolings and normalizations are the op table's too (gradcli.ops.convolution,
gradcli.ops.pooling, ...), under their F names.
"""

import math
import warnings

from ..ops import OPS, _inplace
from ..ops.elementwise import ELU_, LEAKY_RELU_
from ..ops.activations import CELU_, SELU_, THRESHOLD_
from ..ops.dropout import check_probability
from ..ops.original_self import SavesOriginalSelf
from .losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,
                     huber_loss, l1_loss, mse_loss, nll_loss, smooth_l1_loss)
from .composite_losses import (cosine_embedding_loss, cosine_similarity, gaussian_nll_loss,
                               hinge_embedding_loss, kl_div, margin_ranking_loss,
                               poisson_nll_loss)

__all__ = ["relu", "relu_", "leaky_relu", "leaky_relu_", "elu", "elu_", "gelu", "softplus",
           "silu", "sigmoid", "tanh", "softmax", "log_softmax", "hardtanh", "hardtanh_", "relu6",
           "hardsigmoid", "hardswish", "mish", "selu", "selu_", "celu", "celu_", "logsigmoid",
           "softsign", "tanhshrink", "softshrink", "hardshrink",
           "threshold", "threshold_", "dropout", "dropout1d", "dropout2d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", "glu", "mse_loss", "l1_loss",
           "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
           "nll_loss", "normalize", "linear", "cosine_similarity", "kl_div",
           "margin_ranking_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "hinge_embedding_loss", "cosine_embedding_loss"]
__all__ += ["softmin", "one_hot", "pad", "embedding", "layer_norm", "batch_norm"]

gelu = OPS["gelu"]
softplus = OPS["softplus"]
sigmoid = OPS["sigmoid"]
tanh = OPS["tanh"]


def linear(input, weight, bias=None):
    """input @ weight.T + bias, as PyTorch computes it (at::linear): addmm for a matrix input
    with a bias (AddmmBackward0); for another contiguous input with a bias (3-d, or a 1-d
    bias) addmm on its rows as a matrix, viewed back (ViewBackward0); else matmul then an
    add."""
    if input.dim() == 2 and bias is not None:
        return OPS["addmm"](bias, input, weight.t())
    if bias is not None and input.dim() and input.is_contiguous() \
            and (input.dim() == 3 or bias.dim() == 1):
        *lead, last = input.shape
        rows = 1
        for n in lead:
            rows *= n
        output = OPS["addmm"](bias, input.reshape(rows, last), weight.t())
        return output.view(*lead, output.shape[1])
    output = input.matmul(weight.t())
    return output if bias is None else output + bias


def relu(input, inplace=False):
    """max(input, 0); inplace=True writes into input."""
    return input.relu_() if inplace else OPS["relu"](input)


def relu_(input):
    """relu in place (torch.relu_)."""
    return relu(input, inplace=True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """input if input > 0 else negative_slope * input (in place: LeakyReluBackward1)."""
    if inplace:
        return _inplace(LEAKY_RELU_)(input, negative_slope)
    return OPS["leaky_relu"](input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """leaky_relu in place (LeakyReluBackward1)."""
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input, alpha=1.0, inplace=False):
    """input if input > 0 else alpha * (exp(input) - 1) (in place: EluBackward1)."""
    if inplace:
        return _inplace(ELU_)(input, alpha)
    return OPS["elu"](input, alpha)


def elu_(input, alpha=1.0):
    """elu in place (EluBackward1)."""
    return elu(input, alpha, inplace=True)


def silu(input, inplace=False):
    """input * sigmoid(input)."""
    return _inplace(SavesOriginalSelf(OPS["silu"]))(input) if inplace else OPS["silu"](input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """input clamped to [min_val, max_val] (HardtanhBackward0)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _inplace(SavesOriginalSelf(OPS["hardtanh"]))(input, min_val, max_val)
    return OPS["hardtanh"](input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """hardtanh in place."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """min(max(input, 0), 6): hardtanh(input, 0, 6), as PyTorch computes it."""
    return hardtanh(input, 0, 6, inplace)  # (ints, as PyTorch passes them: _saved_max_val)


def _maybe_inplace(name, input, inplace, *args):
    if inplace:
        return _inplace(SavesOriginalSelf(OPS[name]))(input, *args)
    return OPS[name](input, *args)


def hardsigmoid(input, inplace=False):
    """relu6(input + 3) / 6."""
    return _maybe_inplace("hardsigmoid", input, inplace)


def hardswish(input, inplace=False):
    """input * relu6(input + 3) / 6."""
    return _maybe_inplace("hardswish", input, inplace)


def mish(input, inplace=False):
    """input * tanh(softplus(input))."""
    return _maybe_inplace("mish", input, inplace)


def selu(input, inplace=False):
    """scale * elu(input, alpha) with PyTorch's constants (in place: EluBackward1)."""
    return _inplace(SELU_)(input) if inplace else OPS["selu"](input)


def selu_(input):
    """selu in place (EluBackward1; torch.selu_)."""
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    """input if input > 0 else alpha * (exp(input / alpha) - 1) (in place: CeluBackward1)."""
    return _inplace(CELU_)(input, alpha) if inplace else OPS["celu"](input, alpha)


def celu_(input, alpha=1.0):
    """celu in place (CeluBackward1; torch.celu_)."""
    return celu(input, alpha, inplace=True)


def logsigmoid(input):
    """log(sigmoid(input)), computed stably."""
    return OPS["log_sigmoid"](input)


def softsign(input):
    """input / (1 + |input|), composed as PyTorch composes it."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """input - tanh(input), composed as PyTorch composes it."""
    return input - input.tanh()


def softshrink(input, lambd=0.5):
    """input shrunk toward 0 by lambd (0 inside [-lambd, lambd])."""
    return OPS["softshrink"](input, lambd)


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0."""
    return OPS["hardshrink"](input, lambd)


def threshold(input, threshold, value, inplace=False):
    """input where input > threshold, else value (in place: ThresholdBackward1)."""
    if inplace:
        return _inplace(SavesOriginalSelf(THRESHOLD_))(input, threshold, value)
    return OPS["threshold"](input, threshold, value)


def threshold_(input, threshold, value):
    """threshold in place."""
    return _inplace(SavesOriginalSelf(THRESHOLD_))(input, threshold, value)


def _dropout_function(name, training):
    op = OPS[name]
    in_place = OPS[name + "_"]

    def fn(input, p=0.5, training=training, inplace=False):
        check_probability(p, ValueError)
        return (in_place if inplace else op)(input, p, training)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = op.doc
    return fn


dropout = _dropout_function("dropout", True)
alpha_dropout = _dropout_function("alpha_dropout", False)
feature_alpha_dropout = _dropout_function("feature_alpha_dropout", False)


def _channel_dropout(spatial, input, p, training, inplace):
    """dropout1d/2d/3d as torch.nn.functional writes them: feature_dropout (whole channels)
    on a batched input, one without a batch dimension unsqueezed first (dropout2d: none, a
    3-d input is taken as (N, C, L), with PyTorch's warnings)."""
    check_probability(p, ValueError)
    name, ndim = f"dropout{spatial}d", input.dim()
    if ndim not in (spatial + 1, spatial + 2):
        if spatial == 1:
            raise RuntimeError(
                f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
                "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or "
                "3D inputs).")
        warnings.warn(
            f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result "
            "in an error in a future release. To retain the behavior and silence this warning, "
            f"please use dropout instead. Note that {name} exists to provide channel-wise "
            f"dropout on inputs with {spatial} spatial dimensions, a channel dimension, and an "
            f"optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
            UserWarning, stacklevel=3)
    if spatial == 2 and ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning, stacklevel=3)
    batched = spatial == 2 or ndim == spatial + 2
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = OPS["feature_dropout_" if inplace else "feature_dropout"](input, p, training)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Whole channels of an (N, C, L) or (C, L) input zeroed with probability p."""
    return _channel_dropout(1, input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Whole channels of an (N, C, H, W) input zeroed with probability p."""
    return _channel_dropout(2, input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Whole channels of an (N, C, D, H, W) or (C, D, H, W) input zeroed with probability p."""
    return _channel_dropout(3, input, p, training, inplace)


def glu(input, dim=-1):
    """The gated linear unit: first half * sigmoid(second half) along dim."""
    return OPS["glu"](input, dim)


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(input) / sum(exp(input)) along dim."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return OPS["softmax"](input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input) along dim."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return OPS["softmax"](-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """input - logsumexp(input) along dim."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return OPS["log_softmax"](input, dim, dtype=dtype)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p over dim, eps), as PyTorch composes it."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom



# ------------------------------------------------------------------ layers' functions

from ..ops.normalization import batch_norm, layer_norm  # noqa: E402,F401

one_hot = OPS["one_hot"]  # (table entries: `gradcli ops` lists them as nn.functional.<name>)
pad = OPS["pad"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of weight at the indices input (EmbeddingBackward0); max_norm renormalizes the
    rows read, in place, first."""
    from ..ops.layers import embedding_renorm_
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    return OPS["embedding"](weight, input, padding_idx, scale_grad_by_freq, sparse)


# ------------------------------------------------------------------ convolutions and pooling
# (declared in gradcli.ops.convolution, .image_blocks, .pooling, .adaptive_pooling, .unpooling)

conv1d, conv2d, conv3d = OPS["conv1d"], OPS["conv2d"], OPS["conv3d"]
conv_transpose1d, conv_transpose2d = OPS["conv_transpose1d"], OPS["conv_transpose2d"]
conv_transpose3d = OPS["conv_transpose3d"]
max_pool1d, max_pool2d = OPS["max_pool1d"], OPS["max_pool2d"]
avg_pool1d, avg_pool2d = OPS["avg_pool1d"], OPS["avg_pool2d"]
adaptive_avg_pool1d, adaptive_avg_pool2d = OPS["adaptive_avg_pool1d"], OPS["adaptive_avg_pool2d"]
adaptive_max_pool1d, adaptive_max_pool2d = OPS["adaptive_max_pool1d"], OPS["adaptive_max_pool2d"]
__all__ += ["adaptive_max_pool1d", "adaptive_max_pool2d"]
max_pool3d, avg_pool3d = OPS["max_pool3d"], OPS["avg_pool3d"]
adaptive_avg_pool3d, adaptive_max_pool3d = OPS["adaptive_avg_pool3d"], OPS["adaptive_max_pool3d"]
__all__ += ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d"]
unfold, fold = OPS["nn.functional.unfold"], OPS["nn.functional.fold"]
max_unpool1d, max_unpool2d = OPS["max_unpool1d"], OPS["max_unpool2d"]
max_unpool3d = OPS["max_unpool3d"]
lp_pool1d, lp_pool2d, lp_pool3d = OPS["lp_pool1d"], OPS["lp_pool2d"], OPS["lp_pool3d"]
__all__ += ["lp_pool1d", "lp_pool2d", "lp_pool3d"]
__all__ += ["max_unpool1d", "max_unpool2d", "max_unpool3d"]
pixel_shuffle, pixel_unshuffle = OPS["pixel_shuffle"], OPS["pixel_unshuffle"]
__all__ += ["pixel_shuffle", "pixel_unshuffle"]
interpolate = OPS["interpolate"]
__all__ += ["interpolate"]
__all__ += ["unfold", "fold"]
__all__ += ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
            "conv_transpose3d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
            "adaptive_avg_pool1d", "adaptive_avg_pool2d"]

prelu = OPS["prelu"]  # (gradcli.ops.activations)
__all__ += ["prelu"]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """torch.group_norm after F.group_norm's own checks (at least 2 dims, more than one value
    per channel, as PyTorch words it, in training or not)."""
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    size = [input.size(0) * input.size(1) // num_groups, num_groups] + list(input.shape[2:])
    if math.prod(size[:1] + size[2:]) == 1:  # (PyTorch's _verify_batch_size)
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")
    return OPS["group_norm"](input, num_groups, weight, bias, eps)


__all__ += ["group_norm"]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Each sample's channels normalized over their own elements: torch.instance_norm after
    F.instance_norm's check (more than one spatial element per channel with the input's
    statistics)."""
    if use_input_stats:  # (PyTorch's _verify_spatial_size)
        if math.prod(input.shape[2:]) == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input "
                             f"size {input.size()}")
    return OPS["instance_norm"](input, weight, bias, running_mean, running_var, use_input_stats,
                                momentum, eps, True)


__all__ += ["instance_norm"]
