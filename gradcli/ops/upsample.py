"""Upsampling as PyTorch's CPU kernels compute it (aten/src/ATen/native/UpSample.h and
cpu/UpSampleKernel.cpp): upsample_nearest1d/2d/3d and upsample_linear1d, upsample_bilinear2d,
upsample_trilinear3d, each with its backward as an op of its own (PyTorch's nodes, first and
second order), and F.interpolate over them (mode 'area' is adaptive_avg_pool).

Nearest: output i reads input min(floor(i * scale), n - 1), the scale a float32 as PyTorch's
(1 / scale_factor when one is given, else n / out); out == n and out == 2 n are exact.  Linear:
each dim's two source indices and weights as PyTorch computes them (in the input's precision;
the index floored as a float32), the output t0 w0 + t1 w1 one dim inside the other (the last
dim innermost), so float64 results are PyTorch's to the bit; the backward adds each output's
2^d shares, (w_outer * ... * w_inner) * grad, in the order of the outputs, as PyTorch's loop.
"""

import inspect
import math

import numpy as np

from ..engine.tensor import check_numel
from .numerics import fused
from .registry import OPS, Op, Plain, Sample, register

_SCALES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}
_LINEAR = {1: "linear1d", 2: "bilinear2d", 3: "trilinear3d"}
_AXES = {1: "W", 2: "HW", 3: "DHW"}


def _op_name(nd, linear):
    return f"upsample_{_LINEAR[nd]}" if linear else f"upsample_nearest{nd}d"


def _check_sizes(input_size, output_size):
    """aten's upsample_<n>d_common_check, its words."""
    nd = len(output_size)
    spatial = input_size[2:]
    if min(spatial) <= 0 or min(output_size) <= 0:
        axes = _AXES[nd]
        shown = lambda sizes: ", ".join(f"{a}: {n}" for a, n in zip(axes, sizes))  # noqa: E731
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({shown(spatial)}) output ({shown(output_size)})")
    if not math.prod(input_size) and not math.prod(input_size[1:]):
        raise RuntimeError(f"Non-empty {nd + 2}D data tensor expected but got a tensor with "
                           f"sizes {list(input_size)}")


def _nearest_index(n, out, scale):
    """PyTorch's nearest_idx for every output index along one dim."""
    if out == n:
        return np.arange(out)
    if out == 2 * n:
        return np.arange(out) >> 1
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else \
        np.float32(n) / np.float32(out)
    return np.minimum(np.floor(np.arange(out, dtype=np.float32) * s).astype(np.int64), n - 1)


def _linear_weights(n, out, scale, align_corners, t):
    """(i0, i1, w0, w1) along one dim: PyTorch's compute_source_index_and_lambda in its
    opmath type t (the input's float type)."""
    index = np.arange(out)
    if out == n:
        return index, index, np.ones(out, t), np.zeros(out, t)
    if align_corners:
        ratio = t(n - 1) / t(out - 1) if out > 1 else t(0)
        real = ratio * index.astype(t)
    else:  # (ratio * (i + 0.5) - 0.5, fused as PyTorch's compiled kernel computes it)
        ratio = t(1.0 / scale) if scale is not None and scale > 0 else t(n) / t(out)
        real = np.maximum(fused(ratio, index.astype(t) + t(0.5), t(-0.5)), t(0)).astype(t)
    i0 = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), n - 1)
    w1 = np.minimum(np.maximum(real - i0.astype(t), t(0)), t(1)).astype(t)
    return i0, i0 + (i0 < n - 1), (t(1) - w1).astype(t), w1


def _per_dim(input_size, output_size, scales, align_corners, dtype):
    """Each spatial dim's sources: [index] (nearest) or [(i0, w0), (i1, w1)] (linear)."""
    out = []
    for n, o, s in zip(input_size[2:], output_size, scales):
        if align_corners is None:
            out.append([(_nearest_index(n, o, s), None)])
        else:
            i0, i1, w0, w1 = _linear_weights(n, o, s, align_corners, dtype.type)
            out.append([(i0, w0), (i1, w1)])
    return out


def _upsample(nd, linear):
    def forward(a, output_size, *rest):
        align_corners, scales = (rest[0], rest[1:]) if linear else (None, rest)
        _check_sizes(a.shape, output_size)
        check_numel(a.shape[:2] + tuple(output_size))
        if not a.size:  # (an empty batch: no sources made for its output_size)
            return np.empty(a.shape[:2] + tuple(output_size), a.dtype)
        t = a.dtype.type
        if linear and _channels_last(a.shape, output_size):
            return _bilinear_channels_last(a, output_size, align_corners, scales)
        result = a
        per_dim = _per_dim(a.shape, output_size, scales, align_corners, a.dtype)
        for axis in range(nd - 1, -1, -1):  # (the last dim innermost)
            sources = per_dim[axis]
            d = axis + 2
            shape = result.shape[:d] + (output_size[axis],) + result.shape[d + 1:]
            check_numel(shape)
            shaped = (-1,) + (1,) * (nd - 1 - axis)
            terms = [(np.take(result, index, axis=d), w) for index, w in sources]
            if len(terms) == 1:
                result = terms[0][0]
            else:  # t0 w0 + t1 w1, the first product fused (PyTorch's compiled kernel)
                (t0, w0), (t1, w1) = terms
                w0, w1 = (w.reshape(shaped).astype(t) for w in (w0, w1))
                result = fused(t0, w0, t1 * w1).astype(t)
        return np.ascontiguousarray(result, a.dtype)
    return forward


def _channels_last(shape, output_size):
    """Whether PyTorch's CPU build takes its channels-last kernel: an input of more than 3
    channels whose spatial size is 1 (channels-last contiguous too), or a 2-d output of
    H + W <= 128."""
    return shape[1] > 3 and math.prod(shape[2:]) == 1 or \
        len(output_size) == 2 and sum(output_size) <= 128


def _bilinear_channels_last(a, output_size, align_corners, scales):
    """upsample_bilinear2d by PyTorch's channels-last kernel, which its CPU build takes for
    outputs with H + W <= 128 (and for 1 x 1 inputs of more than 3 channels): the four corners'
    weights multiplied first, then summed by fused multiply-adds in one order for the
    channels its vector registers hold and in another for the rest (vectors of 4 float64 or 8
    float32, as its kernel runs on the x86-64 machine the oracle tests were recorded on)."""
    t = a.dtype.type
    (h0, h1, hw0, hw1), (w0, w1, ww0, ww1) = (
        _linear_weights(n, o, s, align_corners, t)
        for n, o, s in zip(a.shape[2:], output_size, scales))
    corner = {(i, j): a[:, :, hi][:, :, :, wj]
              for i, hi in enumerate((h0, h1)) for j, wj in enumerate((w0, w1))}
    weight = {(i, j): (hw[:, None] * ww[None, :]).astype(t)
              for i, hw in enumerate((hw0, hw1)) for j, ww in enumerate((ww0, ww1))}

    def chain(order, channels):
        first, *rest = order
        acc = corner[first][:, channels] * weight[first]
        for key in rest:
            acc = fused(corner[key][:, channels], weight[key], acc).astype(t)
        return acc
    width = 4 if t is np.float64 else 8
    vector = a.shape[1] - a.shape[1] % width
    out = np.empty(a.shape[:2] + tuple(output_size), a.dtype)
    out[:, :vector] = chain(((1, 0), (1, 1), (0, 1), (0, 0)), slice(0, vector))
    out[:, vector:] = chain(((0, 1), (0, 0), (1, 0), (1, 1)), slice(vector, None))
    return out


def _upsample_backward(nd, linear):
    def backward(grad_output, output_size, input_size, *rest):
        """Each output's shares added to its sources, in the order of the outputs (and of the
        2^d corners, the outer dim's first), as PyTorch's loop adds them."""
        align_corners, scales = (rest[0], rest[1:]) if linear else (None, rest)
        expected = tuple(input_size[:2]) + tuple(output_size)
        if grad_output.ndim != nd + 2:
            raise RuntimeError(f"Expected grad_output to be a tensor of dimension {nd + 2} but "
                               f"got: dimension {grad_output.ndim}")
        for i, (want, got) in enumerate(zip(expected, grad_output.shape)):
            if want != got:
                raise RuntimeError(f"Expected grad_output to have the same shape as output; "
                                   f"output.size({i}) = {want} but got grad_output.size({i}) = "
                                   f"{got}")
        check_numel(tuple(input_size))
        rows = input_size[0] * input_size[1]
        corners = 2 ** nd if linear else 1
        check_numel((rows, math.prod(output_size) * corners))
        if not rows:
            return np.zeros(tuple(input_size), grad_output.dtype)
        t = grad_output.dtype.type
        index = np.zeros((1,) * nd + (1,), np.int64)
        weight = None
        for axis, sources in enumerate(_per_dim(input_size, output_size, scales, align_corners,
                                                grad_output.dtype)):
            index = _combine(index, sources, axis, nd, input_size[axis + 2])
            if linear:
                w = np.stack([w for _, w in sources], -1).astype(t)
                w = w.reshape([output_size[axis] if k == axis else 1 for k in range(nd)] + [2])
                weight = w if weight is None else (weight[..., :, None] * w[..., None, :]).reshape(
                    np.broadcast_shapes(weight.shape[:-1], w.shape[:-1]) + (-1,))
        g = np.broadcast_to(grad_output.reshape((rows,) + tuple(output_size) + (1,)),
                            (rows,) + tuple(output_size) + (corners,)).reshape(rows, -1)
        index = np.broadcast_to(index, tuple(output_size) + (corners,)).reshape(-1)
        result = np.zeros((rows, math.prod(input_size[2:])), grad_output.dtype)
        if weight is None:
            np.add.at(result, (np.arange(rows)[:, None], index[None]), g)
        else:
            weight = np.broadcast_to(weight, tuple(output_size) + (corners,)).reshape(-1)
            _fused_add_at(result, index, weight, g)
        return result.reshape(tuple(input_size))
    return backward


def _fused_add_at(result, index, weight, g):
    """result[:, index[k]] = fused(weight[k], g[:, k], result[:, index[k]]) for k in order
    (PyTorch's loop, its `+=` of a product compiled into a fused multiply-add): in rounds, the
    r-th share of every element at once.  An element with more shares than the rounds' bound
    (upsampling one element to thousands) adds them as np.add.at does, product then sum, which
    may differ from PyTorch in the last bit."""
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    rank = np.empty(index.size, np.int64)
    rank[order] = np.arange(index.size) - np.repeat(starts, np.diff(np.r_[starts, index.size]))
    rounds = int(rank.max()) + 1 if rank.size else 0
    if rounds > max(4096, g.size // 64):  # (the rounds' time kept in proportion to the shares)
        np.add.at(result, (np.arange(g.shape[0])[:, None], index[None]), weight * g)
        return
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.searchsorted(rank[by_rank], np.arange(rounds + 1))
    for r in range(rounds):
        k = by_rank[bounds[r]:bounds[r + 1]]
        result[:, index[k]] = fused(weight[k], g[:, k], result[:, index[k]])


def _combine(index, sources, axis, nd, n):
    """The flat input index of each output's corners: index (..., corners) of the dims
    before `axis`, extended by this dim's sources (the corners the outer dim's first)."""
    this = np.stack([i for i, _ in sources], -1)
    this = this.reshape([this.shape[0] if k == axis else 1 for k in range(nd)] + [len(sources)])
    combined = index[..., :, None] * n + this[..., None, :]
    return combined.reshape(combined.shape[:-2] + (-1,))


def _node(nd, linear):
    return "Upsample" + ({1: "Linear", 2: "Bilinear", 3: "Trilinear"}[nd] if linear else
                         "Nearest") + f"{nd}D"


def _samples(nd, linear):
    """A resizing to other sizes (by sizes) and an upsampling by scale factors (small: the
    gradchecks' finite differences run the fused backward once an element)."""
    shape = (1, 2) + (2, 3, 4)[3 - nd:] if nd < 3 else (1, 1, 2, 2, 3)
    align = {"align_corners": False} if linear else {}
    sizes = {"output_size": (3, 2, 5)[3 - nd:], **align, **dict.fromkeys(_SCALES[nd])}
    scaled = {"output_size": tuple(int(n * 1.5) for n in shape[2:]),
              **({"align_corners": True} if linear else {}),
              **dict.fromkeys(_SCALES[nd], 1.5)}
    return [Sample(shape, attrs=sizes), Sample(shape, attrs=scaled)]


UPSAMPLE = {}
for _nd in (1, 2, 3):
    for _linear in (False, True):
        _name = _op_name(_nd, _linear)
        _attrs = ("output_size",) + (("align_corners",) if _linear else ()) + _SCALES[_nd]
        _rest = ", ".join(_attrs[1:])
        _samp = _samples(_nd, _linear)
        UPSAMPLE[_nd, _linear] = register(Op(
            _name, _upsample(_nd, _linear),
            f"self: {_name}_backward(grad, output_size, self_shape, {_rest})", jvp="linear",
            attrs=_attrs, grad_fn=f"{_node(_nd, _linear)}Backward0", dtype="same", method=False,
            public=False, kind="pooling", samples=_samp,
            doc=f"{'linear' if _linear else 'nearest'} {_nd}-d upsampling to output_size"))
        register(Op(
            f"{_name}_backward", _upsample_backward(_nd, _linear),
            (f"grad_output: {_name}(grad, output_size, {_rest})",), jvp="linear",
            inputs=("grad_output",), attrs=("output_size", "input_size") + _attrs[1:],
            grad_fn=f"{_node(_nd, _linear)}BackwardBackward0", dtype="same", method=False,
            public=False, kind="backward", doc=f"the gradient of {_name}",
            samples=[Sample(s.shapes[0][:2] + s.attrs["output_size"],
                            attrs={"input_size": s.shapes[0], **s.attrs}) for s in _samp]
        )).hidden_saved = ("input_size",)  # (PyTorch's node saves the others)


# ------------------------------------------------------------------ F.interpolate

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _per_dim_values(value, input, what, shown, form):
    """size or scale_factor as one value a spatial dim (PyTorch's ValueError for a sequence
    of another length)."""
    dim = input.dim() - 2
    if not isinstance(value, (list, tuple)):
        return [value] * dim
    if len(value) != dim:
        raise ValueError(
            f"Input and {what} must have the same number of spatial dimensions, but got input "
            f"with spatial dimensions of {list(input.shape[2:])} and {shown} {value}. Please "
            f"provide input tensor in (N, C, d1, d2, ...,dK) format and {form} format.")
    return value


def _sizes(input, size, scale_factor, recompute_scale_factor, mode):
    """torch.nn.functional.interpolate's output size and scale factors (exactly one set),
    its checks and words."""
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    output_size = scales = None
    if size is not None:
        output_size = _per_dim_values(size, input, "output", "output size of",
                                      "output size in (o1, o2, ...,oK)")
        if isinstance(size, (list, tuple)) and not all(_is_int(v) for v in size):
            raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                            "or Tuple[int, int, int], but got size with types "
                            f"{[type(v) for v in size]}")
    elif scale_factor is not None:
        scales = _per_dim_values(scale_factor, input, "scale_factor", "scale_factor of shape",
                                 "scale_factor in (s1, s2, ...,sK)")
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area" and output_size is None:
        output_size = [int(input.shape[i + 2] * scales[i]) for i in range(dim)]
        scales = None
    return output_size, scales


def _call_sizes(input, output_size, scales, fn):
    """The C++ op's output size: output_size, or each input size times its scale factor
    (truncated) — its TypeErrors for what is not an int or a float."""
    def number(v):
        return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    if output_size is not None and not all(_is_int(v) for v in output_size) or \
            scales is not None and not all(number(v) for v in scales):
        got = ", ".join(type(v).__name__ for v in (output_size, scales))
        raise TypeError(f"{fn}() received an invalid combination of arguments - got (Tensor, "
                        f"{got}), but expected one of: (Tensor input, tuple of ints output_size, "
                        "tuple of floats scale_factors)")
    if output_size is not None:
        return tuple(int(v) for v in output_size), (None,) * len(output_size)
    scales = tuple(float(v) for v in scales)
    return tuple(int(n * s) for n, s in zip(input.shape[2:], scales)), scales


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate: modes nearest, linear, bilinear, trilinear (with
    align_corners) and area (adaptive_avg_pool)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    output_size, scales = _sizes(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")
    nd = input.dim() - 2
    linear = {"linear": 1, "bilinear": 2, "trilinear": 3}.get(mode)
    if mode == "area" and nd in (1, 2, 3):
        return OPS[f"adaptive_avg_pool{nd}d"](input, output_size)
    if not antialias and (mode == "nearest" and nd in (1, 2, 3) or linear == nd):
        fn = _op_name(nd, linear is not None)
        sizes, scales = _call_sizes(input, output_size, scales, fn)
        kind, name = input.dtype.np.kind, input.dtype.np.name
        if kind in "biu" and not (name == "uint8" and linear is None):
            kernel = (f"{fn}_channels_last" if _channels_last(input.shape, sizes) else
                      f"compute_indices_weights_{'linear' if linear else 'nearest'}")
            raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype.short}\'')
        if linear and name not in ("float32", "float64"):
            raise NotImplementedError(f"gradcli: interpolate's mode '{mode}' of {name} is not "
                                      "supported (float32 and float64 are)")
        flag = (bool(align_corners),) if linear else ()
        return UPSAMPLE[nd, linear is not None].apply((input,), (sizes,) + flag + scales)
    if mode in ("bicubic", "lanczos", "nearest-exact") and nd in (1, 2, 3) or antialias:
        raise NotImplementedError(f"gradcli: interpolate's mode '{mode}'"
                                  f"{' with antialias' if antialias else ''} is not supported "
                                  "(nearest, linear, bilinear, trilinear and area are)")
    if linear and nd in (1, 2, 3):
        needs = {1: "3D", 2: "4D", 3: "5D"}[linear]
        raise NotImplementedError(f"Got {nd + 2}D input, but {mode} mode needs {needs} input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{input.dim()}D) for the modes: {_MODES} (got {mode})")


_entry = register(Plain("interpolate", interpolate, "the input resized to size or by "
                        "scale_factor (nearest, (bi/tri)linear with align_corners, area)",
                        kind="pooling", signature=f"interpolate{inspect.signature(interpolate)}",
                        via=tuple(_op_name(nd, lin) for nd in (1, 2, 3)
                                  for lin in (False, True))))
_entry.function = False  # (torch.nn.functional's only)
