"""torch.nn.init: fill a tensor in place (without recording it), with PyTorch's formulas and
gradcli's generator, which draws what PyTorch's draws."""

import math
import warnings

import numpy as np

from ..engine.grad_mode import no_grad
from ..ops import empty
from ..ops.tensor_methods import fill_values, normal_values, uniform_values
from .parameter import Parameter

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain of a nonlinearity (PyTorch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fill(tensor, values):
    with no_grad():
        return fill_values(tensor, values)


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Uniform samples in [a, b), drawn as PyTorch's uniform_ draws them (in the tensor's
    precision: x * (b - a) + a)."""
    return _fill(tensor, uniform_values(tensor._data, a, b, generator))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Normal samples, drawn as torch.randn draws them, times std plus mean."""
    return _fill(tensor, normal_values(tensor._data, mean, std, generator))


def constant_(tensor, val):
    return _fill(tensor, np.full(tensor._data.shape, val, tensor._data.dtype))


def zeros_(tensor):
    return constant_(tensor, 0)


def ones_(tensor):
    return constant_(tensor, 1)


def eye_(tensor):
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor._data.shape, dtype=tensor._data.dtype))


def _fans(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _fans(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _no_op(tensor):
    warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
    return tensor


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Uniform in [-bound, bound], bound = gain * sqrt(3 / fan) (He et al.)."""
    if 0 in tensor.shape:
        return _no_op(tensor)
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        return _no_op(tensor)
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0, std, generator)


def _default_weight_and_bias(module, shape, bias_size, bias, dtype):
    """PyTorch's Linear and Conv*: module.weight of shape and module.bias of bias_size (None
    without bias), made empty and then given their default initialisation
    (module.reset_parameters, which is _reset_like_pytorch unless a subclass changes it)."""
    module.weight = Parameter(empty(shape, dtype=dtype))
    if bias:
        module.bias = Parameter(empty(bias_size, dtype=dtype))
    else:
        module.register_parameter("bias", None)
    module.reset_parameters()


def _reset_like_pytorch(weight, bias):
    """The default initialisation of PyTorch's Linear and Conv*: kaiming_uniform_ with
    a=sqrt(5) for the weight, uniform in +-1/sqrt(fan_in) for the bias."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _fans(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)
