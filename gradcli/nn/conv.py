"""torch.nn's convolution and pooling modules: Conv1d/2d/3d (PyTorch's initialisation, drawn
as PyTorch draws it; padding_mode), ConvTranspose1d/2d/3d (output_size), MaxPool1d/2d/3d,
AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d, printed as PyTorch prints
them."""

from ..engine.torch_classes import TorchClass
from . import functional as F
from . import init
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "MaxPool1d",
           "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxPool3d", "AvgPool3d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "Unfold", "Fold", "MaxUnpool1d",
           "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d", "PixelShuffle", "PixelUnshuffle",
           "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


def _ntuple(value, n):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * n


class _ConvNd(Module):
    _nd = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None,
                 output_padding=0):
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, nd)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        modes = "{'zeros', 'reflect', 'replicate', 'circular'}"  # (PyTorch's set, one order)
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"padding_mode must be one of {modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _ntuple(kernel_size, nd)
        self.stride = _ntuple(stride, nd)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, nd)
        self.dilation = _ntuple(dilation, nd)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        # (F.pad's widths for a padding_mode other than zeros: the last dim first, 'same'
        # split with the odd one out on the right, as PyTorch's _reversed_padding_repeated_twice)
        if isinstance(padding, str):
            total = [d * (k - 1) if padding == "same" else 0
                     for d, k in zip(self.dilation, self.kernel_size)]
            self._pad_widths = tuple(p for t in reversed(total) for p in (t // 2, t - t // 2))
        else:
            self._pad_widths = tuple(p for p in reversed(self.padding) for _ in (0, 1))
        shape = ((in_channels, out_channels // groups) if self._transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        init._default_weight_and_bias(self, shape, out_channels, bias, dtype)

    def reset_parameters(self):
        init._reset_like_pytorch(self.weight, self.bias)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, " \
            f"stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


def _conv_class(name, nd, function):
    def forward(self, input):
        if self.padding_mode != "zeros":  # (PyTorch pads first, then convolves unpadded)
            return function(F.pad(input, self._pad_widths, mode=self.padding_mode),
                            self.weight, self.bias, self.stride, (0,) * nd, self.dilation,
                            self.groups)
        return function(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                         dilation, groups, bias, padding_mode, device, dtype)
    return TorchClass(name, (_ConvNd,), {
        "__init__": __init__, "forward": forward, "_nd": nd, "__module__": __name__,
        "__qualname__": name, "_torch_name": f"torch.nn.modules.conv.{name}"})


def _output_padding(module, input, output_size, nd):
    """The output_padding that gives output_size (its spatial sizes, or with the batch and
    channel sizes), or PyTorch's ValueError: nn.ConvTranspose's _output_padding."""
    lead = 2 if input.dim() == nd + 2 else 1
    if len(output_size) == lead + nd:
        output_size = output_size[lead:]
    sizes = list(output_size)
    if len(sizes) != nd:
        raise ValueError(f"ConvTranspose{nd}D: for {input.dim()}D input, output_size must have "
                         f"{nd} or {lead + nd} elements (got {len(sizes)})")
    low = [(n - 1) * s - 2 * p + d * (k - 1) + 1 for n, s, p, d, k in zip(
        input.shape[lead:], module.stride, module.padding, module.dilation,
        module.kernel_size)]
    high = [m + s - 1 for m, s in zip(low, module.stride)]
    if any(not lo <= n <= hi for n, lo, hi in zip(sizes, low, high)):
        raise ValueError(f"requested an output size of {output_size}, but valid sizes range "
                         f"from {low} to {high} (for an input of {input.shape[2:]})")
    return [n - m for n, m in zip(sizes, low)]


def _conv_transpose_class(name, nd, function):
    def forward(self, input, output_size=None):
        output_padding = self.output_padding if output_size is None else \
            _output_padding(self, input, output_size, nd)
        return function(input, self.weight, self.bias, self.stride, self.padding,
                        output_padding, self.groups, self.dilation)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                         dilation, groups, bias, padding_mode, device, dtype, output_padding)
    return TorchClass(name, (_ConvNd,), {
        "__init__": __init__, "forward": forward, "_nd": nd, "_transposed": True,
        "__module__": __name__, "__qualname__": name,
        "_torch_name": f"torch.nn.modules.conv.{name}"})


Conv1d = _conv_class("Conv1d", 1, F.conv1d)
Conv2d = _conv_class("Conv2d", 2, F.conv2d)
Conv3d = _conv_class("Conv3d", 3, F.conv3d)
ConvTranspose1d = _conv_transpose_class("ConvTranspose1d", 1, F.conv_transpose1d)
ConvTranspose2d = _conv_transpose_class("ConvTranspose2d", 2, F.conv_transpose2d)
ConvTranspose3d = _conv_transpose_class("ConvTranspose3d", 3, F.conv_transpose3d)


def _pool_class(name, arguments, forward, extra_repr, owner=None, module="pooling",
                default_stride=True):
    """A pooling module: its arguments kept as attributes (PyTorch's names and defaults;
    owner: the class whose __init__ PyTorch's errors name; module: PyTorch's module of it;
    default_stride: a stride of None becomes the kernel's size)."""
    owner = owner or name

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        names = [k for k, _ in arguments]
        if len(args) > len(names):
            required = sum(v is _REQUIRED for _, v in arguments)
            raise TypeError(f"{owner}.__init__() takes from {required + 1} to {len(names) + 1} "
                            f"positional arguments but {len(args) + 1} were given")
        values = dict(arguments)
        values.update(zip(names, args))
        for key in kwargs:
            if key not in values:
                raise TypeError(f"{owner}.__init__() got an unexpected keyword argument '{key}'")
        values.update(kwargs)
        missing = [k for k, v in values.items() if v is _REQUIRED]
        if missing:  # (Python's words)
            names = [f"'{k}'" for k in missing]
            shown = names[0] if len(names) == 1 else " and ".join(names) if len(names) == 2 \
                else ", ".join(names[:-1]) + ", and " + names[-1]
            plural = "s" if len(names) > 1 else ""
            raise TypeError(f"{owner}.__init__() missing {len(names)} required positional "
                            f"argument{plural}: {shown}")
        if "stride" in values and values["stride"] is None and default_stride:
            values["stride"] = values["kernel_size"]
        for key, value in values.items():
            object.__setattr__(self, key, value)

    return TorchClass(name, (Module,), {
        "__init__": __init__, "forward": forward, "extra_repr": extra_repr,
        "__module__": __name__, "__qualname__": name,
        "_torch_name": f"torch.nn.modules.{module}.{name}"})


_REQUIRED = object()
_MAX = (("kernel_size", _REQUIRED), ("stride", None), ("padding", 0), ("dilation", 1),
        ("return_indices", False), ("ceil_mode", False))


def _max_repr(m):
    return (f"kernel_size={m.kernel_size}, stride={m.stride}, padding={m.padding}, "
            f"dilation={m.dilation}, ceil_mode={m.ceil_mode}")


def _max_forward(function):
    def forward(self, input):
        return function(input, self.kernel_size, self.stride, self.padding, self.dilation,
                        ceil_mode=self.ceil_mode, return_indices=self.return_indices)
    return forward


MaxPool1d = _pool_class("MaxPool1d", _MAX, _max_forward(F.max_pool1d), _max_repr, "_MaxPoolNd")
MaxPool2d = _pool_class("MaxPool2d", _MAX, _max_forward(F.max_pool2d), _max_repr, "_MaxPoolNd")
MaxPool3d = _pool_class("MaxPool3d", _MAX, _max_forward(F.max_pool3d), _max_repr, "_MaxPoolNd")


def _avg_repr(m):
    return f"kernel_size={m.kernel_size}, stride={m.stride}, padding={m.padding}"


def _avg1d_init_values(m):
    for key in ("kernel_size", "stride", "padding"):
        object.__setattr__(m, key, _ntuple(getattr(m, key), 1))


_AVG1 = (("kernel_size", _REQUIRED), ("stride", None), ("padding", 0), ("ceil_mode", False),
         ("count_include_pad", True))
AvgPool1d = _pool_class("AvgPool1d", _AVG1, lambda self, input: F.avg_pool1d(
    input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
    self.count_include_pad), _avg_repr)
_avg1d_original_init = AvgPool1d.__init__


def _avg1d_init(self, *args, **kwargs):
    _avg1d_original_init(self, *args, **kwargs)
    _avg1d_init_values(self)


AvgPool1d.__init__ = _avg1d_init
AvgPool2d = _pool_class("AvgPool2d", _AVG1 + (("divisor_override", None),),
                        lambda self, input: F.avg_pool2d(
                            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override), _avg_repr)
AvgPool3d = _pool_class("AvgPool3d", _AVG1 + (("divisor_override", None),),
                        lambda self, input: F.avg_pool3d(
                            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override), _avg_repr)
AdaptiveAvgPool1d = _pool_class(
    "AdaptiveAvgPool1d", (("output_size", _REQUIRED),),
    lambda self, input: F.adaptive_avg_pool1d(input, self.output_size),
    lambda m: f"output_size={m.output_size}", "_AdaptiveAvgPoolNd")
AdaptiveAvgPool2d = _pool_class(
    "AdaptiveAvgPool2d", (("output_size", _REQUIRED),),
    lambda self, input: F.adaptive_avg_pool2d(input, self.output_size),
    lambda m: f"output_size={m.output_size}", "_AdaptiveAvgPoolNd")
AdaptiveAvgPool3d = _pool_class(
    "AdaptiveAvgPool3d", (("output_size", _REQUIRED),),
    lambda self, input: F.adaptive_avg_pool3d(input, self.output_size),
    lambda m: f"output_size={m.output_size}", "_AdaptiveAvgPoolNd")

_ADAPTIVE_MAX = (("output_size", _REQUIRED), ("return_indices", False))
AdaptiveMaxPool1d = _pool_class(
    "AdaptiveMaxPool1d", _ADAPTIVE_MAX,
    lambda self, input: F.adaptive_max_pool1d(input, self.output_size, self.return_indices),
    lambda m: f"output_size={m.output_size}", "_AdaptiveMaxPoolNd")
AdaptiveMaxPool2d = _pool_class(
    "AdaptiveMaxPool2d", _ADAPTIVE_MAX,
    lambda self, input: F.adaptive_max_pool2d(input, self.output_size, self.return_indices),
    lambda m: f"output_size={m.output_size}", "_AdaptiveMaxPoolNd")
AdaptiveMaxPool3d = _pool_class(
    "AdaptiveMaxPool3d", _ADAPTIVE_MAX,
    lambda self, input: F.adaptive_max_pool3d(input, self.output_size, self.return_indices),
    lambda m: f"output_size={m.output_size}", "_AdaptiveMaxPoolNd")

_UNPOOL = (("kernel_size", _REQUIRED), ("stride", None), ("padding", 0))


def _unpool_class(name, n, function):
    """MaxUnpool1d/2d/3d: kernel_size, stride (the kernel's by default) and padding as tuples of
    n, as PyTorch keeps them."""
    cls = _pool_class(name, _UNPOOL, lambda self, input, indices, output_size=None: function(
        input, indices, self.kernel_size, self.stride, self.padding, output_size),
        _avg_repr)
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        for key in ("kernel_size", "stride", "padding"):
            object.__setattr__(self, key, _ntuple(getattr(self, key), n))
    cls.__init__ = __init__
    return cls


MaxUnpool1d = _unpool_class("MaxUnpool1d", 1, F.max_unpool1d)
MaxUnpool2d = _unpool_class("MaxUnpool2d", 2, F.max_unpool2d)
MaxUnpool3d = _unpool_class("MaxUnpool3d", 3, F.max_unpool3d)

_LP = (("norm_type", _REQUIRED), ("kernel_size", _REQUIRED), ("stride", None),
       ("ceil_mode", False))


def _lp_class(name, function):
    return _pool_class(name, _LP, lambda self, input: function(
        input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode),
        lambda m: f"norm_type={m.norm_type}, kernel_size={m.kernel_size}, stride={m.stride}, "
        f"ceil_mode={m.ceil_mode}", "_LPPoolNd", default_stride=False)


LPPool1d = _lp_class("LPPool1d", F.lp_pool1d)
LPPool2d = _lp_class("LPPool2d", F.lp_pool2d)
LPPool3d = _lp_class("LPPool3d", F.lp_pool3d)

_FOLD = (("kernel_size", _REQUIRED), ("dilation", 1), ("padding", 0), ("stride", 1))
Unfold = _pool_class(
    "Unfold", _FOLD, lambda self, input: F.unfold(input, self.kernel_size, self.dilation,
                                                  self.padding, self.stride),
    lambda m: f"kernel_size={m.kernel_size}, dilation={m.dilation}, padding={m.padding}, "
              f"stride={m.stride}", module="fold")
Fold = _pool_class(
    "Fold", (("output_size", _REQUIRED),) + _FOLD,
    lambda self, input: F.fold(input, self.output_size, self.kernel_size, self.dilation,
                               self.padding, self.stride),
    lambda m: f"output_size={m.output_size}, kernel_size={m.kernel_size}, "
              f"dilation={m.dilation}, padding={m.padding}, stride={m.stride}", module="fold")

PixelShuffle = _pool_class(
    "PixelShuffle", (("upscale_factor", _REQUIRED),),
    lambda self, input: F.pixel_shuffle(input, self.upscale_factor),
    lambda m: f"upscale_factor={m.upscale_factor}", module="pixelshuffle")
PixelUnshuffle = _pool_class(
    "PixelUnshuffle", (("downscale_factor", _REQUIRED),),
    lambda self, input: F.pixel_unshuffle(input, self.downscale_factor),
    lambda m: f"downscale_factor={m.downscale_factor}", module="pixelshuffle")

_UPSAMPLE = (("size", None), ("scale_factor", None), ("mode", "nearest"), ("align_corners", None),
             ("recompute_scale_factor", None))


def _upsample_repr(m):
    info = (f"scale_factor={m.scale_factor!r}" if m.scale_factor is not None else
            f"size={m.size!r}")
    return f"{info}, mode={m.mode!r}"


def _upsample_class(name, arguments, fixed=()):
    """nn.Upsample and its two fixed-mode kin (fixed: the arguments they set themselves);
    scale_factor kept as floats, as PyTorch keeps it."""
    cls = _pool_class(name, arguments, lambda self, input: F.interpolate(
        input, self.size, self.scale_factor, self.mode, self.align_corners,
        recompute_scale_factor=self.recompute_scale_factor), _upsample_repr, module="upsampling")
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        values = dict(_UPSAMPLE, **dict(fixed))
        for key, value in values.items():
            if key not in dict(arguments):
                object.__setattr__(self, key, value)
        factor = self.scale_factor
        object.__setattr__(self, "scale_factor", (
            tuple(float(f) for f in factor) if isinstance(factor, tuple) else
            float(factor) if factor else None))
    cls.__init__ = __init__
    return cls


Upsample = _upsample_class("Upsample", _UPSAMPLE)
UpsamplingNearest2d = _upsample_class("UpsamplingNearest2d", _UPSAMPLE[:2],
                                      (("mode", "nearest"),))
UpsamplingBilinear2d = _upsample_class("UpsamplingBilinear2d", _UPSAMPLE[:2],
                                       (("mode", "bilinear"), ("align_corners", True)))
