"""Convolutions as PyTorch's CPU computes them for float64 (slow_conv2d and its kin): im2col,
then one matrix product per group (BLAS's gemm), plus the bias; transposed convolutions are the
adjoint, a product then col2im.

One op of the table, `convolution` (aten's, node ConvolutionBackward0, saving what PyTorch's
saves), serves conv1d/2d/3d and conv_transpose1d/2d/3d.  Its derivative is PyTorch's:
`convolution_backward`, an op of its own with three outputs (grad_input, grad_weight,
grad_bias), whose derivative (ConvolutionBackwardBackward0, PyTorch's
_convolution_double_backward) is written with `convolution` and `convolution_backward` again,
so every order of derivative holds PyTorch's nodes.  A missing bias is an empty tensor (PyTorch
saves `_saved_bias_sym_sizes_opt` = (0,) then too).

The im2col buffer is the size of the input times the kernel: it is checked against the element
limit before it is made, as the result is.  Windows are taken with basic slicing, one kernel
offset at a time (no stride tricks).
"""

import inspect
import itertools
import math
import warnings

import numpy as np

from ..engine import dtypes
from ..engine.messages import not_implemented
from ..engine.tensor import Tensor, check_numel
from .derivatives import helper
from .registry import OPS, Op, Overload, Plain, Sample, register
from .summation import torch_sum


# ------------------------------------------------------------------ windows (NumPy)

def window_counts(spatial, kernel, stride, pad_lo, pad_hi, dilation):
    """How many windows fit along each spatial dimension."""
    return tuple((n + lo + hi - d * (k - 1) - 1) // s + 1
                 for n, k, s, lo, hi, d in zip(spatial, kernel, stride, pad_lo, pad_hi, dilation))


def _offsets(kernel, dilation, stride, out):
    """For each kernel offset (in row-major order, im2col's), the slices of the padded input
    its windows read."""
    for offs in itertools.product(*(range(k) for k in kernel)):
        yield tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                    for o, d, s, n in zip(offs, dilation, stride, out))


def im2col(a, kernel, stride, pad_lo, pad_hi, dilation, out=None, fill=0):
    """(B, C, *spatial) -> (B, C, prod(kernel), *out): the input under every window, the
    kernel's offsets in row-major order (PyTorch's im2col rows: channel, then offset); padding
    reads `fill`."""
    spatial = a.shape[2:]
    if out is None:
        out = window_counts(spatial, kernel, stride, pad_lo, pad_hi, dilation)
    lead = a.shape[:2]
    size = tuple(max(n + lo + hi, (m - 1) * s + d * (k - 1) + 1 if m > 0 else 0)
                 for n, lo, hi, m, s, d, k in zip(spatial, pad_lo, pad_hi, out, stride,
                                                  dilation, kernel))
    check_numel(lead + (int(np.prod(kernel)),) + tuple(out))
    if any(pad_lo) or size != spatial:
        check_numel(lead + size)
        padded = np.full(lead + size, fill, a.dtype)
        padded[(Ellipsis,) + tuple(slice(lo, lo + n) for lo, n in zip(pad_lo, spatial))] = a
    else:
        padded = a
    cols = np.empty(lead + (int(np.prod(kernel)),) + tuple(out), a.dtype)
    if not cols.size:  # (no window to copy: the loop's count is the kernel's, not checked)
        return cols
    for j, window in enumerate(_offsets(kernel, dilation, stride, out)):
        cols[:, :, j] = padded[(Ellipsis,) + window]
    return cols


def col2im(cols, spatial, kernel, stride, pad_lo, pad_hi, dilation, reverse=False):
    """The adjoint of im2col: (B, C, prod(kernel), *out) summed back onto (B, C, *spatial),
    each input element's terms added in the order of the kernel offsets (PyTorch's col2im), or
    with reverse=True in the order of the windows (its pooling backward kernels)."""
    lead, out = cols.shape[:2], cols.shape[3:]
    size = tuple(max(n + lo + hi, (m - 1) * s + d * (k - 1) + 1 if m > 0 else 0)
                 for n, lo, hi, m, s, d, k in zip(spatial, pad_lo, pad_hi, out, stride,
                                                  dilation, kernel))
    check_numel(lead + size)
    padded = np.zeros(lead + size, cols.dtype)
    # (an empty cols adds nothing: see im2col)
    windows = list(enumerate(_offsets(kernel, dilation, stride, out))) if cols.size else []
    for j, window in reversed(windows) if reverse else windows:
        padded[(Ellipsis,) + window] += cols[:, :, j]
    return np.ascontiguousarray(
        padded[(Ellipsis,) + tuple(slice(lo, lo + n) for lo, n in zip(pad_lo, spatial))])


# ------------------------------------------------------------------ the forward

def _geometry(x, w, stride, padding, dilation, transposed, output_padding, groups):
    """(kernel, output spatial size) of a convolution."""
    kernel = w.shape[2:]
    spatial = x.shape[2:]
    if transposed:
        out = tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, s, p, d, k, op in
                    zip(spatial, stride, padding, dilation, kernel, output_padding))
    else:
        out = window_counts(spatial, kernel, stride, padding, padding, dilation)
    return kernel, out


def _matmul(a, b):
    check_numel(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]))
    return np.matmul(a, b)


def _expanded(w, *params):
    """One-element parameters repeated for each spatial dimension (aten's convolution takes
    them: conv2d(padding='valid') saves padding [0])."""
    return [p * (w.ndim - 2) if len(p) == 1 else p for p in params]


# C++'s names of the dtypes, as PyTorch's bias check prints them
_CPP_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
              "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _short(a):
    return dtypes.from_numpy_dtype(a.dtype).short


def check_dtypes(x, w, b, transposed):
    """aten's checks of the inputs' dtypes (the op does not promote them, as PyTorch's); of an
    input of no elements, the bias's only (its Empty backend runs no kernel)."""
    if w.dtype != x.dtype and x.size:
        raise RuntimeError(f"expected scalar type {_short(x)} but found {_short(w)}")
    if b.size and b.dtype != x.dtype and not transposed:
        raise RuntimeError(f"Input type ({_CPP_TYPES[x.dtype.name]}) and bias type "
                           f"({_CPP_TYPES[b.dtype.name]}) should be the same")
    # (PyTorch's transposed kernels take no integers but int64)
    if x.size and (x.dtype.kind == "b" or transposed and x.dtype.kind in "iu" and
                   x.dtype != np.int64):
        kernel = (f"slow_conv_transpose{3 if w.ndim == 5 else 2}d_out_cpu" if transposed else
                  "compute_columns3d" if w.ndim == 5 else "slow_conv2d_cpu")
        raise not_implemented(kernel, _short(x))


def _forward(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    check_convolution(x.shape, w.shape, b.shape, stride, padding, dilation, transposed,
                      output_padding, groups, x.dtype)
    check_dtypes(x, w, b, transposed)
    if not x.size:
        empty = _empty_backend(x, w, stride, padding, dilation, transposed, output_padding,
                               groups)
        if empty is not None:
            return empty
    if b.size and b.dtype != x.dtype:
        b = b.astype(x.dtype)
    stride, padding, dilation, output_padding = _expanded(w, stride, padding, dilation,
                                                          output_padding)
    n, g = x.shape[0], groups
    kernel, out = _geometry(x, w, stride, padding, dilation, transposed, output_padding, groups)
    k = int(np.prod(kernel))
    if not transposed:
        check_numel((n, w.shape[0]) + out)
        cols = im2col(x, kernel, stride, padding, padding, dilation)
        cols = cols.reshape(n, g, x.shape[1] // g * k, int(np.prod(out)))
        y = _matmul(w.reshape(g, w.shape[0] // g, -1), cols).reshape((n, w.shape[0]) + out)
    else:
        c_out = w.shape[1] * g
        check_numel((n, c_out) + out)
        xs = x.reshape(n, g, x.shape[1] // g, int(np.prod(x.shape[2:])))
        wm = w.reshape(g, w.shape[0] // g, -1)
        cols = _matmul(np.swapaxes(wm, 1, 2), xs)
        y = col2im(cols.reshape((n, c_out, k) + x.shape[2:]), out, kernel, stride, padding,
                   padding, dilation)
    if b.size:
        y = y + b.reshape((-1,) + (1,) * len(out))
    return y


def _empty_backend(x, w, stride, padding, dilation, transposed, output_padding, groups):
    """PyTorch's ConvBackend::Empty, for an input of no elements: an input of no channel gives
    an output of none (whatever the weight's out channels); a weight of no elements is its
    `weight_view[0]`'s IndexError; else None (the kernels' path gives the empty output)."""
    if x.shape[1] == 0:
        stride, padding, dilation, output_padding = _expanded(w, stride, padding, dilation,
                                                              output_padding)
        out = _geometry(x, w, stride, padding, dilation, transposed, output_padding, groups)[1]
        return np.zeros((x.shape[0], 0) + tuple(out), x.dtype)
    if not w.size:
        raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
    return None


def _backward(gy, x, w, bias_sym_sizes_opt, stride, padding, dilation, transposed,
              output_padding, groups):
    """(grad_input, grad_weight, grad_bias) of a convolution: aten's convolution_backward."""
    if not x.size and x.shape[1] == 0:  # (the Empty backend's output: zeros for all)
        bias = () if bias_sym_sizes_opt is None else tuple(bias_sym_sizes_opt)
        return (np.zeros(x.shape, x.dtype), np.zeros(w.shape, w.dtype),
                np.zeros(bias if bias != () else (0,), gy.dtype))
    stride, padding, dilation, output_padding = _expanded(w, stride, padding, dilation,
                                                          output_padding)
    n, g = x.shape[0], groups
    kernel = w.shape[2:]
    k = int(np.prod(kernel))
    if not transposed:
        out = gy.shape[2:]
        gys = gy.reshape(n, g, gy.shape[1] // g, int(np.prod(out)))
        wm = w.reshape(g, w.shape[0] // g, -1)
        check_numel((n, x.shape[1], k) + tuple(out))
        gcols = _matmul(np.swapaxes(wm, 1, 2), gys).reshape((n, x.shape[1], k) + tuple(out))
        gx = col2im(gcols, x.shape[2:], kernel, stride, padding, padding, dilation)
        cols = im2col(x, kernel, stride, padding, padding, dilation, out)
        cols = cols.reshape(n, g, x.shape[1] // g * k, gys.shape[-1])
        gw = _matmul(gys, np.swapaxes(cols, 2, 3))
    else:
        cols = im2col(gy, kernel, stride, padding, padding, dilation, x.shape[2:])
        cols = cols.reshape(n, g, gy.shape[1] // g * k, int(np.prod(x.shape[2:])))
        xs = x.reshape(n, g, x.shape[1] // g, int(np.prod(x.shape[2:])))
        wm = w.reshape(g, w.shape[0] // g, -1)
        gx = _matmul(wm, cols).reshape(x.shape)
        gw = _matmul(xs, np.swapaxes(cols, 2, 3))
    gw = np.add.reduce(gw, axis=0).reshape(w.shape) if n else np.zeros(w.shape, w.dtype)
    if bias_sym_sizes_opt is not None and tuple(bias_sym_sizes_opt) != (0,):
        axes = (0,) + tuple(range(2, gy.ndim))
        gb = torch_sum(gy, axes)
        gb = np.sum(gy, axis=axes) if gb is None else gb
    else:
        gb = np.zeros((0,), gy.dtype)
    return gx, gw, np.asarray(gb, gy.dtype)


# ------------------------------------------------------------------ checks (PyTorch's words)

def _shape_text(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def check_convolution(x_shape, w_shape, b_shape, stride, padding, dilation, transposed,
                      output_padding, groups, dtype=None):
    """aten's convolution checks, in its order and words (an input of no elements runs no
    kernel, and none of the kernels' checks)."""
    nd = len(w_shape) - 2
    if nd < 1:
        raise RuntimeError("weight should have at least three dimensions")
    for name, value in (("stride", stride), ("padding", padding), ("dilation", dilation),
                        ("output_padding", output_padding)):
        if len(value) != nd and len(value) != 1:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {nd} values "
                f"to match the convolution dimensions, but got {name}={_shape_text(value)}")
    stride, padding, dilation, output_padding = (p * nd if len(p) == 1 else p for p in (
        stride, padding, dilation, output_padding))
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if len(x_shape) != len(w_shape):
        raise RuntimeError(
            f"Expected {len(w_shape)}-dimensional input for {len(w_shape)}-dimensional weight "
            f"{_shape_text(w_shape)}, but got {len(x_shape)}-dimensional input of size "
            f"{_shape_text(x_shape)} instead")
    if w_shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {_shape_text(w_shape)} instead")
    if w_shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{_shape_text(w_shape)}] instead")
    if not transposed:
        if x_shape[1] != w_shape[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {_shape_text(w_shape)}, expected "
                f"input{_shape_text(x_shape)} to have {w_shape[1] * groups} channels, but got "
                f"{x_shape[1]} channels instead")
        if b_shape != (0,) and (len(b_shape) != 1 or b_shape[0] != w_shape[0]):
            raise RuntimeError(
                f"Given weight of size {_shape_text(w_shape)}, expected bias to be 1-dimensional "
                f"with {w_shape[0]} elements, but got bias of size {_shape_text(b_shape)} "
                "instead")
        padded = [n + 2 * p for n, p in zip(x_shape[2:], padding)]
        dilated = [d * (k - 1) + 1 for d, k in zip(dilation, w_shape[2:])]
        if any(k > n for k, n in zip(dilated, padded)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                f"Kernel size: ({' x '.join(map(str, dilated))}). Kernel size can't be greater "
                "than actual input size")
    else:
        if x_shape[1] != w_shape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {_shape_text(w_shape)}, expected "
                f"input{_shape_text(x_shape)} to have {w_shape[0]} channels, but got "
                f"{x_shape[1]} channels instead")
        if b_shape != (0,) and (len(b_shape) != 1 or b_shape[0] != w_shape[1] * groups):
            raise RuntimeError(
                f"Given transposed=1, weight of size {_shape_text(w_shape)}, expected bias to be "
                f"1-dimensional with {w_shape[1] * groups} elements, but got bias of size "
                f"{_shape_text(b_shape)} instead")
        if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
            # (slow_conv_transpose2d/3d's words; a 1-d one is a 2-d one of height 1)
            axes = ("height", "width") if nd < 3 else ("depth", "height", "width")
            values = [(pad,) * (2 - nd) + tuple(v) for pad, v in (
                (0, output_padding), (1, stride), (1, dilation))]
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               "but got " + " ".join(
                                   f"{name}_{axis}: {v}" for name, vs in zip(
                                       ("output_padding", "stride", "dilation"), values)
                                   for axis, v in zip(axes, vs)))
        out = [(n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, s, p, d, k, op in
               zip(x_shape[2:], stride, padding, dilation, w_shape[2:], output_padding)]
        if any(o <= 0 for o in out):
            # (a 1-d transposed convolution runs as a 2-d one of height 1)
            height = [1] if nd == 1 else []
            raise RuntimeError(
                f"Given input size per channel: ({' x '.join(map(str, height + list(x_shape[2:])))}"
                f"). Calculated output size per channel: "
                f"({' x '.join(map(str, height + out))}). Output size is too small")
    if x_shape[0] and x_shape[1] and 0 in x_shape[2:]:  # (select_conv_backend's; a 1-d
        # convolution runs as a 2-d one of height 1)
        shape = x_shape[:2] + (1,) + tuple(x_shape[2:]) if nd == 1 else x_shape
        raise RuntimeError("Only zero batch or zero channel inputs are supported, but got input "
                           f"shape: {_shape_text(shape)}")
    if 0 not in x_shape:
        _check_kernel(w_shape, transposed, _onednn(x_shape, w_shape, groups, dtype))


def _onednn(x_shape, w_shape, groups, dtype):
    """Whether PyTorch 2.13's CPU build runs this convolution in oneDNN (ConvParams::use_mkldnn,
    on more than one thread): a float32 2-d one (a 1-d one runs as 2-d) of groups, a kernel
    over 3 x 3, a batch of several or over 20480 input elements."""
    if dtype != np.float32 or len(x_shape) > 4:
        return False
    if len(x_shape) == 3:
        x_shape, w_shape = x_shape[:2] + (1,) + x_shape[2:], w_shape[:2] + (1,) + w_shape[2:]
    return (groups > 1 or (w_shape[2] > 3 and w_shape[3] > 3) or x_shape[0] > 1
            or math.prod(x_shape) > 20480)


def _check_kernel(w_shape, transposed, onednn=False):
    """The CPU kernels' own checks, in their order (slow_conv2d/3d, slow_conv_transpose2d/3d;
    a 1-d convolution runs as a 2-d one of height 1): a kernel of no elements, a transposed
    one's weight of none (whose output, of no channel, could be of any size; where oneDNN runs
    it, oneDNN's words)."""
    kernel = tuple(w_shape[2:])
    if len(kernel) == 1:
        kernel, w_shape = (1,) + kernel, w_shape[:2] + (1,) + kernel
    if transposed and onednn and w_shape[1] == 0 and 0 not in kernel:
        raise RuntimeError("could not create a primitive descriptor for the deconvolution "
                           "forward propagation primitive. Run workload with environment "
                           "variable ONEDNN_VERBOSE=all to get additional diagnostic "
                           "information.")
    if transposed and 0 in w_shape and (len(kernel) == 3 or 0 not in kernel):
        raise RuntimeError(
            ("non-empty 2D or 4D weight tensor expected" if len(kernel) == 2 else
             "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x "
             "kernel_width) tensor expected for weight") + f", but got: {_shape_text(w_shape)}")
    if 0 in kernel:
        raise RuntimeError("kernel size should be greater than zero, but got" + (
            f" kernel_height: {kernel[0]} kernel_width: {kernel[1]}" if len(kernel) == 2 else
            ": " + " x ".join(map(str, kernel)) + " (TxHxW)"))


# ------------------------------------------------------------------ the ops

def _empty_bias(like):
    return Tensor._make(np.zeros((0,), like._data.dtype), None, 0, False)


def convolution_call(input, weight, bias, stride, padding, dilation, transposed,
                     output_padding, groups):
    """The `convolution` op on tensors, a missing bias (None) as PyTorch's: empty."""
    return CONVOLUTION.apply((input, weight, _empty_bias(weight) if bias is None else bias),
                             (tuple(stride), tuple(padding), tuple(dilation), bool(transposed),
                              tuple(output_padding), int(groups)))


_CONV_ATTRS = ("stride", "padding", "dilation", "transposed", "output_padding", "groups")
_ARGS = ", ".join(_CONV_ATTRS)


@helper
def _convolution_vjp(grad, input, weight, bias_shape, stride, padding, dilation, transposed,
                     output_padding, groups):
    gx, gw, gb = CONVOLUTION_BACKWARD.apply(
        (grad, input, weight), (tuple(bias_shape), stride, padding, dilation, transposed,
                                output_padding, groups))
    return gx, gw, (gb if tuple(bias_shape) != (0,) else None)


@helper
def _convolution_double_backward(grads, grad_output, input, weight, bias_sym_sizes_opt, stride,
                                 padding, dilation, transposed, output_padding, groups):
    """PyTorch's _convolution_double_backward: the gradients of (grad_input, grad_weight,
    grad_bias) = convolution_backward(grad_output, input, weight) given theirs."""
    ggi, ggw, ggb = grads
    attrs = (stride, padding, dilation, transposed, output_padding, groups)
    back = (bias_sym_sizes_opt,) + attrs
    g_out = _convolution_jvp(ggi, ggw, ggb, input, weight, *attrs)
    if g_out is not None and tuple(g_out.shape) != tuple(grad_output.shape):
        g_out = g_out.expand(grad_output.shape)  # (ggb alone)
    g_input = None if ggw is None else CONVOLUTION_BACKWARD.apply(
        (grad_output, input, ggw), back)[0]
    g_weight = None if ggi is None else CONVOLUTION_BACKWARD.apply(
        (grad_output, ggi, weight), back)[1]
    return g_out, g_input, g_weight


@helper
def _convolution_jvp(input_t, weight_t, bias_t, input, weight, stride, padding, dilation,
                     transposed, output_padding, groups):
    """The convolution is linear in each input: conv(input_t, weight) + conv(input,
    weight_t) + bias_t (None: no term)."""
    attrs = (stride, padding, dilation, transposed, output_padding, groups)
    out = None
    if input_t is not None:
        out = convolution_call(input_t, weight, None, *attrs)
    if weight_t is not None:
        term = convolution_call(input, weight_t, None, *attrs)
        out = term if out is None else out + term
    if bias_t is not None and bias_t.numel():
        term = bias_t.reshape((-1,) + (1,) * (input.dim() - 2))
        out = term if out is None else out + term
    return out


@helper
def _convolution_backward_jvp(gy_t, x_t, w_t, grad_output, input, weight, bias_sym_sizes_opt,
                              stride, padding, dilation, transposed, output_padding, groups):
    back = (bias_sym_sizes_opt, stride, padding, dilation, transposed, output_padding, groups)
    out = [None, None, None]

    def add(i, value):
        out[i] = value if out[i] is None else out[i] + value
    if gy_t is not None:
        for i, v in enumerate(CONVOLUTION_BACKWARD.apply((gy_t, input, weight), back)):
            add(i, v)
    if x_t is not None:
        add(1, CONVOLUTION_BACKWARD.apply((grad_output, x_t, weight), back)[1])
    if w_t is not None:
        add(0, CONVOLUTION_BACKWARD.apply((grad_output, input, w_t), back)[0])
    from . import zeros
    return [o if o is not None else zeros(s, dtype=grad_output.dtype) for o, s in
            zip(out, (input.shape, weight.shape, tuple(bias_sym_sizes_opt)))]


def _conv_sample(x, w, b, name, **attrs):
    full = {"stride": (1,), "padding": (0,), "dilation": (1,), "transposed": False,
            "output_padding": (0,), "groups": 1}
    full = {k: v * (len(w) - 2) if isinstance(v, tuple) else v for k, v in full.items()}
    full.update(attrs)
    return Sample(x, w, b, attrs=full, name=name)


CONVOLUTION_SAMPLES = [
    _conv_sample((2, 2, 5), (3, 2, 2), (3,), "conv1d"),
    _conv_sample((1, 4, 5, 4), (4, 2, 3, 2), (4,), "conv2d-strided-padded-groups",
                 stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2),
    _conv_sample((1, 2, 3, 3), (2, 3, 2, 2), (3,), "conv_transpose2d", transposed=True,
                 stride=(2, 2), padding=(1, 0), output_padding=(1, 0)),
    _conv_sample((1, 2, 3, 2, 2), (2, 1, 2, 1, 2), (2,), "conv3d", groups=2),
]

def _output_shape(sample):
    x, w = (np.empty(s) for s in sample.shapes[:2])
    a = sample.attrs
    out = _geometry(x, w, *(a[k] for k in _CONV_ATTRS))[1]
    return (x.shape[0], w.shape[1] * a["groups"] if a["transposed"] else w.shape[0]) + out


CONVOLUTION = register(Op(
    "convolution.default", _forward,
    f"input, weight, bias: _convolution_vjp(grad, input, weight, bias_shape, {_ARGS})",
    jvp=f"result: _convolution_jvp(input_t, weight_t, bias_t, input, weight, {_ARGS})",
    inputs=("input", "weight", "bias"), attrs=_CONV_ATTRS, grad_fn="ConvolutionBackward0",
    dtype="numpy",  # (no promotion: mixed dtypes are PyTorch's errors, check_dtypes)
    method=False, public=False, kind="convolution", samples=CONVOLUTION_SAMPLES,
    signature="convolution(input, weight, bias, stride, padding, dilation, transposed, "
              "output_padding, groups)",
    doc="aten's convolution: conv1d/2d/3d and conv_transpose1d/2d/3d (im2col and a product)"))
CONVOLUTION.extra_saved = {"_saved_bias_sym_sizes_opt": lambda node: tuple(node._meta[4])}
CONVOLUTION.hidden_saved = ("bias_sym_sizes",)  # (shown as PyTorch's _opt above)

CONVOLUTION_BACKWARD = register(Op(
    "convolution_backward", _backward,
    f"grad_output, input, weight: _convolution_double_backward(grad, grad_output, input, "
    f"weight, bias_sym_sizes_opt, {_ARGS})",
    jvp=f"result: _convolution_backward_jvp(grad_output_t, input_t, weight_t, grad_output, "
        f"input, weight, bias_sym_sizes_opt, {_ARGS})",
    inputs=("grad_output", "input", "weight"), attrs=("bias_sym_sizes_opt",) + _CONV_ATTRS,
    grad_fn="ConvolutionBackwardBackward0", outputs=3, method=False, public=False,
    kind="backward", doc="(grad_input, grad_weight, grad_bias) of a convolution",
    samples=[Sample(_output_shape(s), s.shapes[0], s.shapes[1],
                    attrs={"bias_sym_sizes_opt": s.shapes[2], **s.attrs}, name=s.name)
             for s in CONVOLUTION_SAMPLES]))
CONVOLUTION_BACKWARD.undefined_grads = True
CONVOLUTION_BACKWARD.hidden_saved = ("bias_sym_sizes_opt",)  # (PyTorch's saves no bias sizes)


# ------------------------------------------------------------------ torch.conv1d/2d/3d, ...

def int_list(value, fn, arg, position, bare_int=True):
    """value (an int, or a list or tuple of ints) as a tuple of ints, or PyTorch's TypeError
    for an argument of type `tuple of ints` (position None: given by keyword to a function
    PyTorch binds in C++, whose message then names no position)."""
    def is_int(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
    if bare_int and is_int(value):
        return (int(value),)
    if isinstance(value, (list, tuple)) and all(is_int(v) for v in value):
        return tuple(int(v) for v in value)
    where = "" if position is None else f" (position {position})"
    raise TypeError(f"{fn}(): argument '{arg}'{where} must be tuple of ints, "
                    f"not {type(value).__name__}")


def expand_param(value, n):
    """One int repeated n times (aten's expand_param_if_needed); a sequence of another length
    is left for check_convolution to refuse."""
    return value * n if len(value) == 1 else value


def _type_name(value):
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


_CONV_OVERLOADS = (
    " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of "
    "ints padding = 0, tuple of ints dilation = 1, int groups = 1) * (Tensor input, Tensor "
    "weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", tuple of "
    "ints dilation = 1, int groups = 1)")


def _conv_arguments(name, signature, args, kwargs):
    """The arguments of conv1d/2d/3d bound to their names, or PyTorch's TypeError for a call
    that matches neither of its overloads (its first line, and the overloads)."""
    def fits(arg, v):
        if arg in ("input", "weight"):
            return isinstance(v, Tensor)
        if arg == "bias":
            return v is None or isinstance(v, Tensor)
        if arg == "groups":
            return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
        if arg == "padding" and isinstance(v, str):
            return True
        try:
            int_list(v, name, arg, 0)
        except TypeError:
            return False
        return True
    try:
        bound = signature.bind(*args, **kwargs)
        good = all(fits(k, v) for k, v in bound.arguments.items())
    except TypeError:
        good = False
    if not good:
        got = [_type_name(v) for v in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({', '.join(got)}), but expected one of:{_CONV_OVERLOADS}")
    bound.apply_defaults()
    return bound.arguments


def _batched_input(input, nd, name):
    if input.dim() == nd + 2:
        return input, False
    if input.dim() == nd + 1:
        return input.unsqueeze(0), True
    raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, "
                       f"but got input of size: {_shape_text(input.shape)}")


_WARNED = []


def _same_padding(x, weight, stride, dilation, nd):
    """padding='same': d*(k-1) split in two, the odd one out on the right, where PyTorch pads
    the input first (constant_pad_nd): (the input, the padding)."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    extra = [t % 2 for t in total]
    if any(extra):
        if not _WARNED:  # (PyTorch's TORCH_WARN_ONCE: once a process)
            _WARNED.append(True)
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                          "require a zero-padded copy of the input be created (Triggered "
                          "internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                          "Convolution.cpp:1101.)", UserWarning, stacklevel=4)
        # (constant_pad_nd, declared with F.pad's ops in gradcli.ops.layers)
        x = OPS["constant_pad_nd"].apply(
            (x,), (tuple(p for e in reversed(extra) for p in (0, e)), 0))
    return x, tuple(t // 2 for t in total)


def _conv_nd(nd, name):
    def signature(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        """(the signature of conv1d/2d/3d)"""
    signature = inspect.signature(signature)

    def conv(*args, **kwargs):
        a = _conv_arguments(name, signature, args, kwargs)
        weight, padding = a["weight"], a["padding"]
        stride = expand_param(int_list(a["stride"], name, "stride", 4), nd)
        dilation = expand_param(int_list(a["dilation"], name, "dilation", 6), nd)
        x, unbatched = _batched_input(a["input"], nd, name)
        output_padding = (0,) * nd
        if padding == "valid":
            # (PyTorch passes padding and output_padding as one-element lists here)
            padding = output_padding = (0,)
        elif padding == "same":
            x, padding = _same_padding(x, weight, stride, dilation, nd)
        elif isinstance(padding, str):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        else:
            padding = expand_param(int_list(padding, name, "padding", 5), nd)
        y = convolution_call(x, weight, a["bias"], stride, padding, dilation, False,
                             output_padding, a["groups"])
        return y.squeeze(0) if unbatched else y
    conv.__name__ = conv.__qualname__ = name
    conv.__signature__ = signature
    return conv


def _conv_transpose_nd(nd, name):
    def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                       groups=1, dilation=1):
        x, unbatched = _batched_input(input, nd, name)
        params = [expand_param(int_list(v, name, arg, None), nd) for v, arg in (
            (stride, "stride"), (padding, "padding"), (dilation, "dilation"),
            (output_padding, "output_padding"))]
        y = convolution_call(x, weight, bias, *params[:3], True, params[3], groups)
        return y.squeeze(0) if unbatched else y
    conv_transpose.__name__ = conv_transpose.__qualname__ = name
    return conv_transpose


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """torch.convolution: aten's op (its lists as lists, a bias or None)."""
    params = [int_list(v, "convolution", arg, i, bare_int=False) for v, arg, i in (
        (stride, "stride", 4), (padding, "padding", 5), (dilation, "dilation", 6),
        (output_padding, "output_padding", 8))]
    return convolution_call(input, weight, bias, *params[:3], transposed, params[3], groups)


# (the op is `convolution.default`; torch.convolution takes None for the bias)
register(Overload("convolution", lambda *args, **kwargs: convolution, [CONVOLUTION],
                  CONVOLUTION.doc, method=False, kind="convolution",
                  signature=CONVOLUTION.signature))


for _nd in (1, 2, 3):
    register(Plain(f"conv{_nd}d", _conv_nd(_nd, f"conv{_nd}d"),
                   f"{_nd}-d convolution over an (N, C, ...) input (stride, padding ints, "
                   "tuples, 'same' or 'valid', dilation, groups)", kind="convolution",
                   signature=f"conv{_nd}d(input, weight, bias=None, stride=1, padding=0, "
                             "dilation=1, groups=1)", via=("convolution.default",)))
    register(Plain(f"conv_transpose{_nd}d", _conv_transpose_nd(_nd, f"conv_transpose{_nd}d"),
                   f"{_nd}-d transposed convolution (the gradient of conv{_nd}d for its input)",
                   kind="convolution",
                   signature=f"conv_transpose{_nd}d(input, weight, bias=None, stride=1, "
                             "padding=0, output_padding=0, groups=1, dilation=1)",
                   via=("convolution.default",)))
