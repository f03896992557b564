"""Upsampling as PyTorch's CPU kernels compute it (aten/src/ATen/native/UpSample.h and
cpu/UpSampleKernel.cpp): upsample_nearest1d/2d/3d, _upsample_nearest_exact1d/2d/3d,
upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d, upsample_bicubic2d and
_upsample_bilinear2d_aa/_upsample_bicubic2d_aa, each with its backward as an op of its own (PyTorch's nodes, first and second order), and F.interpolate
over them (mode 'area' is adaptive_avg_pool).

Nearest: output i reads input min(floor(i * scale), n - 1), the scale a float32 as PyTorch's
(1 / scale_factor when one is given, else n / out); out == n and out == 2 n are exact;
nearest-exact reads the input under the output's centre, floor((i + 0.5) * scale).  Linear:
each dim's two source indices and weights as PyTorch computes them (in the input's precision;
the index floored as a float32), the output t0 w0 + t1 w1 one dim inside the other (the last
dim innermost), so float64 results are PyTorch's to the bit; the backward adds each output's
2^d shares, (w_outer * ... * w_inner) * grad, in the order of the outputs, as PyTorch's loop.
Bicubic: four taps a dim, the indices clamped to the border, the weights the cubic convolution
of A = -0.75 with its kernel's fused multiply-adds; t0 w0 + t1 w1 + t2 w2 + t3 w3 as its
compiled code sums them forward, the backward's 16 shares (g wy) wx added output by output,
unfused (an output of the input's size copies the gradient).  Antialias (2-d bilinear and
bicubic): separable passes, the width's then the height's (where the size changes), each
output the normalized triangle or cubic (a = -0.5) window over its sources, summed as PyTorch's
compiled loop sums them (the terms after the first in vector-wide groups unfused, the rest
fused; a height pass over a width of one repeats the first row, as PyTorch's does); the
backward adds (wx wy) g fused, output by output.  Float32 and float64 results of all of these
are PyTorch's to the bit (tests/nn/test_conv_oracle.py).
"""

import inspect
import math

import numpy as np

from ..engine.messages import not_implemented
from ..engine.tensor import check_numel
from .numerics import fused
from .registry import OPS, Op, Plain, Sample, register

_SCALES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}
_LINEAR = {1: "linear1d", 2: "bilinear2d", 3: "trilinear3d"}
_AXES = {1: "W", 2: "HW", 3: "DHW"}
# the kinds of upsampling: whether the op takes align_corners, each one's node name
_ALIGNED = {"nearest": False, "nearest_exact": False, "linear": True, "cubic": True,
            "linear_aa": True, "cubic_aa": True}


def _op_name(nd, kind):
    return {"nearest": f"upsample_nearest{nd}d", "nearest_exact": f"_upsample_nearest_exact{nd}d",
            "linear": f"upsample_{_LINEAR.get(nd)}", "cubic": "upsample_bicubic2d",
            "linear_aa": "_upsample_bilinear2d_aa", "cubic_aa": "_upsample_bicubic2d_aa"}[kind]


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


def _nearest_index(n, out, scale, exact=False):
    """PyTorch's nearest_idx (exact: nearest_exact_idx, the index of the output's centre)
    for every output index along one dim."""
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else \
        np.float32(n) / np.float32(out)
    if exact:  # ((i + 0.5) * scale in double, then floorf of it as a float)
        source = ((np.arange(out) + 0.5) * np.float64(s)).astype(np.float32)
        return np.minimum(np.floor(source).astype(np.int64), n - 1)
    if out == n:
        return np.arange(out)
    if out == 2 * n:
        return np.arange(out) >> 1
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


_A = -0.75  # (the cubic convolution's constant, as PyTorch's and OpenCV's)


def _cubic_weights(n, out, scale, align_corners, t, contracted=True):
    """The four source indices (clamped to the border) and weights along one dim, each (out,
    4): compute_indices_weights_cubic's, whose compiled code fuses the source index's
    multiply-add and all but the last multiply-add of each cubic (contracted); the backward's
    kernel, compiled without fused multiply-adds, rounds every step."""
    index = np.arange(out).astype(t)
    if align_corners:
        ratio = t(n - 1) / t(out - 1) if out > 1 else t(0)
        real = (ratio * index).astype(t)
    else:
        ratio = t(1.0 / scale) if scale is not None and scale > 0 else t(n) / t(out)
        real = (fused(ratio, index + t(0.5), t(-0.5)) if contracted else
                ratio * (index + t(0.5)) - t(0.5)).astype(t)
    i0 = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), n - 1)  # (guarded)
    lam = np.minimum(np.maximum(real - i0.astype(t), t(0)), t(1)).astype(t)

    def mul_add(a, x, c):
        return (fused(a, x, c) if contracted else a * x + c).astype(t)

    def near(x):  # ((A + 2) x - (A + 3)) x x + 1
        return ((mul_add(t(_A + 2), x, t(-(_A + 3))) * x) * x + t(1)).astype(t)

    def far(x):  # ((A x - 5 A) x + 8 A) x - 4 A
        return (mul_add(mul_add(t(_A), x, t(-5 * _A)), x, t(8 * _A)) * x - t(4 * _A)).astype(t)
    rest = (t(1) - lam).astype(t)
    weights = np.stack([far((lam + t(1)).astype(t)), near(lam), near(rest),
                        far((rest + t(1)).astype(t))], -1)
    indices = np.clip(i0[:, None] + np.arange(-1, 3)[None, :], 0, n - 1)
    return indices, weights


def _per_dim(input_size, output_size, scales, align_corners, dtype, kind):
    """Each spatial dim's sources: [(index, None)] (nearest), or [(index, weight)] of each of
    its taps (linear: 2, cubic: 4)."""
    out = []
    for n, o, s in zip(input_size[2:], output_size, scales):
        if kind in ("nearest", "nearest_exact"):
            out.append([(_nearest_index(n, o, s, kind == "nearest_exact"), None)])
        elif kind == "cubic":
            indices, weights = _cubic_weights(n, o, s, align_corners, dtype.type)
            out.append(list(zip(indices.T, weights.T)))
        else:
            i0, i1, w0, w1 = _linear_weights(n, o, s, align_corners, dtype.type)
            out.append([(i0, w0), (i1, w1)])
    return out


def _half_weights(per_dim, kind):
    """The weights of a float16 input as PyTorch's kernel keeps them: computed in float
    (opmath), stored as float16 (a linear tap's lambda0 as 1 - lambda1 of the stored lambda1),
    then used in float: float16's taps add in float32, rounded once at the end."""
    h, f = np.float16, np.float32
    if kind == "linear":
        return [[(i0, (f(1) - w1.astype(h).astype(f)).astype(h).astype(f)),
                 (i1, w1.astype(h).astype(f))] for (i0, _), (i1, w1) in per_dim]
    return [[(i, w.astype(h).astype(f)) for i, w in taps] for taps in per_dim]


def _upsample(nd, kind):
    aligned = _ALIGNED[kind]

    def forward(a, output_size, *rest):
        align_corners, scales = (rest[0], rest[1:]) if aligned else (None, rest)
        _check_sizes(a.shape, output_size)
        check_numel(a.shape[:2] + tuple(output_size))
        if not a.size:  # (an empty batch: no sources made for its output_size)
            return np.empty(a.shape[:2] + tuple(output_size), a.dtype)
        half = a.dtype == np.float16 and kind in ("linear", "cubic")
        t = np.float32 if half else a.dtype.type
        if kind == "linear" and nd == 2 and _channels_last(a.shape, output_size):
            return _bilinear_channels_last(a, output_size, align_corners, scales)
        result = a.astype(t) if half else a
        per_dim = _per_dim(a.shape, output_size, scales, align_corners, np.dtype(t), kind)
        if half:
            per_dim = _half_weights(per_dim, kind)
        for axis in range(nd - 1, -1, -1):  # (the last dim innermost)
            sources = per_dim[axis]
            d = axis + 2
            shape = result.shape[:d] + (output_size[axis],) + result.shape[d + 1:]
            check_numel(shape)
            shaped = (-1,) + (1,) * (nd - 1 - axis)
            terms = [(np.take(result, index, axis=d), None if w is None else
                      w.reshape(shaped).astype(t)) for index, w in sources]
            if len(terms) == 1:
                result = terms[0][0]
            else:  # t0 w0 + t1 w1 + ..., the first product fused and each next one
                (t0, w0), (t1, w1) = terms[:2]  # (PyTorch's compiled kernel)
                result = fused(t0, w0, t1 * w1).astype(t)
                for tk, wk in terms[2:]:
                    result = fused(tk, wk, result).astype(t)
        return np.ascontiguousarray(result, a.dtype)
    return forward


def _channels_last(shape, output_size):
    """Whether PyTorch's CPU build takes its channels-last kernel: an input of more than 3
    channels whose spatial size is 1 (channels-last contiguous too), or a 2-d output of
    H + W <= 128."""
    if len(shape) not in (4, 5):  # (its channels-last kernels are 2-d and 3-d)
        return False
    return shape[1] > 3 and math.prod(shape[2:]) == 1 or \
        len(output_size) == 2 and sum(output_size) <= 128


def _bilinear_channels_last(a, output_size, align_corners, scales):
    """upsample_bilinear2d by PyTorch's channels-last kernel, which its CPU build takes for
    outputs with H + W <= 128 (and for 1 x 1 inputs of more than 3 channels): the four corners'
    weights multiplied first, then summed by fused multiply-adds in one order for the
    channels its vector registers hold and in another for the rest (vectors of 4 float64 or 8
    float32, as its kernel runs on the x86-64 machine the oracle tests were recorded on)."""
    half = a.dtype == np.float16   # (float16: computed in float, its weights too, rounded once)
    t = np.float32 if half else a.dtype.type
    a = a.astype(t) if half else a
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
    width = 4 if t is np.float64 else 16 if half else 8
    vector = a.shape[1] - a.shape[1] % width
    out = np.empty(a.shape[:2] + tuple(output_size), np.float16 if half else a.dtype)
    orders = HALF_ORDERS if half else ORDERS
    out[:, :vector] = chain(orders[0], slice(0, vector))
    out[:, vector:] = chain(orders[1], slice(vector, None))
    return out


# the corners' order of the channels-last kernel's sums: (vectors, the rest), of float32 and
# float64, and of float16 (16 channels a vector, each a float, the sums rounded once)
ORDERS = (((1, 0), (1, 1), (0, 1), (0, 0)), ((0, 1), (0, 0), (1, 0), (1, 1)))
HALF_ORDERS = (((1, 1), (1, 0), (0, 1), (0, 0)), ((0, 0), (0, 1), (1, 0), (1, 1)))


def _upsample_backward(nd, kind):
    aligned, linear = _ALIGNED[kind], kind == "linear"

    def backward(grad_output, output_size, input_size, *rest):
        """Each output's shares added to its sources, in the order of the outputs (and of the
        2^d corners, the outer dim's first), as PyTorch's loop adds them (float16's in float,
        rounded once at the end)."""
        if grad_output.dtype == np.float16:
            return backward(grad_output.astype(np.float32), output_size, input_size,
                            *rest).astype(np.float16)
        align_corners, scales = (rest[0], rest[1:]) if aligned else (None, rest)
        _check_grad_output(grad_output, nd, output_size, input_size)
        if kind == "cubic":
            return _bicubic_backward(grad_output, output_size, input_size, align_corners,
                                     scales)
        rows = input_size[0] * input_size[1]
        corners = 2 ** nd if linear else 1
        check_numel((rows, math.prod(output_size) * corners))
        if not rows:
            return np.zeros(tuple(input_size), grad_output.dtype)
        t = grad_output.dtype.type
        index = np.zeros((1,) * nd + (1,), np.int64)
        weight = None
        for axis, sources in enumerate(_per_dim(input_size, output_size, scales, align_corners,
                                                grad_output.dtype, kind)):
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


# ------------------------------------------------------------------ antialias (2-d)

def _aa_filter(x, cubic, t):
    """The antialiasing filters at x: the triangle (bilinear), or Keys' cubic of a = -0.5
    (bicubic), each multiply-add fused as its compiled kernel fuses them."""
    x = np.abs(x)
    if not cubic:
        return np.where(x < 1, t(1) - x, t(0)).astype(t)
    a = t(-0.5)
    near = fused(fused(t(a + 2), x, t(-(a + 3))) * x, x, t(1))
    far = fused(fused(fused(a, x, t(-5 * a)), x, t(8 * a)), x, t(-4 * a))
    return np.where(x < 1, near, np.where(x < 2, far, t(0))).astype(t)


def _aa_weights(n, out, scale, align_corners, t, cubic):
    """_compute_indices_min_size_weights_aa for every output along one dim: the first source
    index, the count of sources, and their weights (out, the most sources; zeros past the
    count), normalized by their sum, in the input's precision as PyTorch computes them."""
    if align_corners:
        ratio = t(n - 1) / t(out - 1) if out > 1 else t(0)
    else:
        ratio = t(1.0 / scale) if scale is not None and scale > 0 else t(n) / t(out)
    half = (4 if cubic else 2) * 0.5
    support = t(half * float(ratio)) if ratio >= 1 else t(half)
    most = int(math.ceil(support)) * 2 + 1
    invscale = t(1.0 / float(ratio)) if ratio >= 1 else t(1)
    center = (np.float64(ratio) * (np.arange(out) + 0.5)).astype(t)
    # (C++'s promotions: the + 0.5 and the product by invscale in double)
    low = np.maximum(((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    high = np.minimum(((center + support).astype(np.float64) + 0.5).astype(np.int64), n)
    count = np.clip(high - low, 0, most)
    taps = np.arange(most)
    x = ((((low[:, None] + taps[None, :]).astype(t) - center[:, None]).astype(np.float64)
          + 0.5) * np.float64(invscale)).astype(t)
    weights = np.where(taps[None, :] < count[:, None], _aa_filter(x, cubic, t), t(0))
    total = np.zeros(out, t)
    for j in range(most):  # (the sum in the order of the taps)
        total = (total + weights[:, j]).astype(t)
    weights = np.where(total[:, None] != 0, weights / np.where(total == 0, 1, total)[:, None],
                       weights).astype(t)
    return low, count, weights


def _aa_pass(a, axis, out, scale, align_corners, cubic):
    """One separable pass along axis: each output the sum of its sources times their weights,
    t0 w0 then each next term added, as PyTorch's compiled loop adds them: the terms after
    the first in groups of one vector (2 float64, 4 float32) rounded as products then added,
    the rest fused."""
    t = a.dtype.type
    low, count, weights = _aa_weights(a.shape[axis], out, scale, align_corners, t, cubic)
    moved = np.moveaxis(a, axis, -1)
    n = moved.shape[-1]
    width = 2 if t is np.float64 else 4
    plain = (count - 1) // width * width  # (the steps summed unfused)

    def term(j):
        return np.take(moved, np.minimum(low + j, n - 1), axis=-1)
    result = (term(0) * weights[:, 0]).astype(t)
    for j in range(1, weights.shape[1]):
        values, w = term(j), weights[:, j]
        step = np.where(j - 1 < plain, (result + (values * w).astype(t)).astype(t),
                        fused(values, w, result).astype(t))
        result = np.where(j < count, step, result).astype(t)
    return np.moveaxis(result, -1, axis)


def _upsample_aa(cubic):
    def forward(a, output_size, align_corners, scales_h, scales_w):
        """_upsample_bilinear2d_aa / _upsample_bicubic2d_aa: the width pass, then the height
        pass, each only where its size changes (an output of the input's size is a copy)."""
        _check_sizes(a.shape, output_size)
        check_numel(a.shape[:2] + tuple(output_size))
        result = a
        if output_size[1] != a.shape[3]:
            result = _aa_pass(result, 3, output_size[1], scales_w, align_corners, cubic)
        if output_size[0] != a.shape[2]:
            result = _aa_pass(result, 2, output_size[0], scales_h, align_corners, cubic)
            if result.shape[3] == 1:  # (PyTorch's height pass over a width of one reads the
                result = np.broadcast_to(result[:, :, :1], result.shape)  # first row's
        return np.ascontiguousarray(result, a.dtype)  # weights for every row)
    return forward


def _upsample_aa_backward(cubic):
    def backward(grad_output, output_size, input_size, align_corners, scales_h, scales_w):
        """cpu_upsample_genNd_backward_aa: for each output (row by row), its sources'
        shares (wx wy) g added, fused, row by row of the window."""
        _check_grad_output(grad_output, 2, output_size, input_size)
        t = grad_output.dtype.type
        (ylow, ycount, wy), (xlow, xcount, wx) = (
            _aa_weights(n, o, s, align_corners, t, cubic)
            for n, o, s in zip(input_size[2:], output_size, (scales_h, scales_w)))
        rows, width = input_size[0] * input_size[1], input_size[3]
        oh, ow = output_size
        ys, xs = np.arange(wy.shape[1]), np.arange(wx.shape[1])
        # shares (oh, ow, y, x) in the loop's order, those past each window's size left out
        index = ((ylow[:, None, None, None] + ys[None, None, :, None]) * width
                 + xlow[None, :, None, None] + xs[None, None, None, :])
        weight = (wy[:, None, :, None] * wx[None, :, None, :]).astype(t)
        kept = ((ys[None, None, :, None] < ycount[:, None, None, None])
                & (xs[None, None, None, :] < xcount[None, :, None, None]))
        kept = np.broadcast_to(kept, index.shape)
        check_numel((rows, int(kept.sum())))
        g = np.broadcast_to(grad_output.reshape(rows, oh, ow, 1, 1), (rows,) + index.shape)
        result = np.zeros((rows, input_size[2] * width), grad_output.dtype)
        _fused_add_at(result, index[kept], np.broadcast_to(weight, index.shape)[kept],
                      g[:, kept])
        return result.reshape(tuple(input_size))
    return backward


def _check_grad_output(grad_output, nd, output_size, input_size):
    """The backward kernels' checks of grad_output's shape (and the input's size held to the
    element limit)."""
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


def _bicubic_backward(grad_output, output_size, input_size, align_corners, scales):
    """upsample_bicubic2d_backward's loop: for each output (row by row), its 4 x 4 shares
    (g * wy) * wx, the x tap outer, added to their clamped sources; its weights rounded at
    every step (its kernel has no fused multiply-adds)."""
    t = grad_output.dtype.type
    if tuple(input_size[2:]) == tuple(output_size):  # (its kernel copies the gradient then)
        return grad_output.copy()
    (iy, wy), (ix, wx) = (_cubic_weights(n, o, s, align_corners, t, contracted=False)
                          for n, o, s in zip(input_size[2:], output_size, scales))
    rows, (oh, ow), width = input_size[0] * input_size[1], output_size, input_size[3]
    check_numel((rows, oh * ow * 16))
    g = grad_output.reshape(rows, oh, ow, 1, 1)
    # shares (rows, oh, ow, x tap, y tap) and their flat sources, in the loop's order
    shares = ((g * wy[None, :, None, None, :]).astype(t) * wx[None, None, :, :, None]).astype(t)
    index = iy[:, None, None, :] * width + ix[None, :, :, None]
    result = np.zeros((rows, input_size[2] * width), grad_output.dtype)
    _add_in_order(result, np.broadcast_to(index, (oh, ow, 4, 4)).reshape(-1),
                  shares.reshape(rows, -1))
    return result.reshape(tuple(input_size))


def _share_rounds(index, count):
    """The positions k of the shares in rounds, each source at most once a round and its
    shares in their order; None for more rounds than the bound (upsampling one element to
    thousands) that keeps their time in proportion to the count of shares."""
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    rank = np.empty(index.size, np.int64)
    rank[order] = np.arange(index.size) - np.repeat(starts, np.diff(np.r_[starts, index.size]))
    rounds = int(rank.max()) + 1 if rank.size else 0
    if rounds > max(4096, count // 64):
        return None
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.searchsorted(rank[by_rank], np.arange(rounds + 1))
    return [by_rank[bounds[r]:bounds[r + 1]] for r in range(rounds)]


def _add_in_order(result, index, shares):
    """result[:, index[k]] += shares[:, k] for k in order (past the rounds' bound, as
    np.add.at adds them, which may differ from PyTorch in the last bit)."""
    rounds = _share_rounds(index, shares.size)
    if rounds is None:
        np.add.at(result, (np.arange(shares.shape[0])[:, None], index[None]), shares)
        return
    for k in rounds:
        result[:, index[k]] += shares[:, k]


def _fused_add_at(result, index, weight, g):
    """result[:, index[k]] = fused(weight[k], g[:, k], result[:, index[k]]) for k in order
    (PyTorch's loop, its `+=` of a product compiled into a fused multiply-add): in rounds, the
    r-th share of every element at once.  An element with more shares than the rounds' bound
    (upsampling one element to thousands) adds them as np.add.at does, product then sum, which
    may differ from PyTorch in the last bit."""
    rounds = _share_rounds(index, g.size)
    if rounds is None:
        np.add.at(result, (np.arange(g.shape[0])[:, None], index[None]), weight * g)
        return
    for k in rounds:
        result[:, index[k]] = fused(weight[k], g[:, k], result[:, index[k]])


def _combine(index, sources, axis, nd, n):
    """The flat input index of each output's corners: index (..., corners) of the dims
    before `axis`, extended by this dim's sources (the corners the outer dim's first)."""
    this = np.stack([i for i, _ in sources], -1)
    this = this.reshape([this.shape[0] if k == axis else 1 for k in range(nd)] + [len(sources)])
    combined = index[..., :, None] * n + this[..., None, :]
    return combined.reshape(combined.shape[:-2] + (-1,))


def _node(nd, kind):
    return "Upsample" + {"nearest": "Nearest", "nearest_exact": "NearestExact",
                         "linear": {1: "Linear", 2: "Bilinear", 3: "Trilinear"}.get(nd),
                         "cubic": "Bicubic"}[kind] + f"{nd}D"


def _samples(nd, kind):
    """A resizing to other sizes (by sizes) and an upsampling by scale factors (small: the
    gradchecks' finite differences run the fused backward once an element)."""
    shape = (1, 2) + (2, 3, 4)[3 - nd:] if nd < 3 else (1, 1, 2, 2, 3)
    aligned = _ALIGNED[kind]
    sizes = {"output_size": (3, 2, 5)[3 - nd:], **({"align_corners": False} if aligned else {}),
             **dict.fromkeys(_SCALES[nd])}
    scaled = {"output_size": tuple(int(n * 1.5) for n in shape[2:]),
              **({"align_corners": True} if aligned else {}),
              **dict.fromkeys(_SCALES[nd], 1.5)}
    return [Sample(shape, attrs=sizes), Sample(shape, attrs=scaled)]


UPSAMPLE = {}
for _nd, _kind in [(nd, kind) for nd in (1, 2, 3) for kind in ("nearest", "linear")] + \
        [(nd, "nearest_exact") for nd in (1, 2, 3)] + [(2, "cubic")]:
    _name = _op_name(_nd, _kind)
    _attrs = ("output_size",) + (("align_corners",) if _ALIGNED[_kind] else ()) + _SCALES[_nd]
    _rest = ", ".join(_attrs[1:])
    _samp = _samples(_nd, _kind)
    UPSAMPLE[_nd, _kind] = register(Op(
        _name, _upsample(_nd, _kind),
        f"self: {_name}_backward(grad, output_size, self_shape, {_rest})", jvp="linear",
        attrs=_attrs, grad_fn=f"{_node(_nd, _kind)}Backward0", dtype="same", method=False,
        public=False, kind="pooling", samples=_samp,
        doc=f"{_kind.replace('_', '-')} {_nd}-d upsampling to output_size"))
    register(Op(
        f"{_name}_backward", _upsample_backward(_nd, _kind),
        (f"grad_output: {_name}(grad, output_size, {_rest})",), jvp="linear",
        inputs=("grad_output",), attrs=("output_size", "input_size") + _attrs[1:],
        grad_fn=f"{_node(_nd, _kind)}BackwardBackward0", dtype="same", method=False,
        public=False, kind="backward", doc=f"the gradient of {_name}",
        samples=[Sample(s.shapes[0][:2] + s.attrs["output_size"],
                        attrs={"input_size": s.shapes[0], **s.attrs}) for s in _samp]
    )).hidden_saved = ("input_size",)  # (PyTorch's node saves the others)


for _cubic, _node_name in ((False, "UpsampleBilinear2DAa"), (True, "UpsampleBicubic2DAa")):
    _name = f"_upsample_{'bicubic' if _cubic else 'bilinear'}2d_aa"
    _rest = "align_corners, scales_h, scales_w"
    _samp = _samples(2, "cubic")
    UPSAMPLE[2, f"{'cubic' if _cubic else 'linear'}_aa"] = register(Op(
        _name, _upsample_aa(_cubic),
        f"self: {_name}_backward(grad, output_size, self_shape, {_rest})", jvp="linear",
        attrs=("output_size", "align_corners", "scales_h", "scales_w"),
        grad_fn=f"{_node_name}Backward0", dtype="same", method=False, public=False,
        kind="pooling", samples=_samp,
        doc=f"{'bicubic' if _cubic else 'bilinear'} 2-d resizing with antialiasing"))
    register(Op(
        f"{_name}_backward", _upsample_aa_backward(_cubic),
        (f"grad_output: {_name}(grad, output_size, {_rest})",), jvp="linear",
        inputs=("grad_output",),
        attrs=("output_size", "input_size", "align_corners", "scales_h", "scales_w"),
        grad_fn=f"{_node_name}BackwardBackward0", dtype="same", method=False, public=False,
        kind="backward", doc=f"the gradient of {_name}",
        samples=[Sample(s.shapes[0][:2] + s.attrs["output_size"],
                        attrs={"input_size": s.shapes[0], **s.attrs}) for s in _samp]
    )).hidden_saved = ("input_size",)


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
    sizes = [n * s for n, s in zip(input.shape[2:], scales)]
    if not all(-2 ** 63 <= v < 2 ** 63 for v in sizes):  # (an infinite or NaN factor too)
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return tuple(int(v) for v in sizes), scales


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate: modes nearest, nearest-exact, linear, bilinear,
    bicubic, trilinear (with align_corners), area (adaptive_avg_pool), and antialias for
    bilinear and bicubic."""
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
    kind = {"nearest": "nearest", "nearest-exact": "nearest_exact", "bicubic": "cubic"}.get(
        mode, "linear" if linear == nd else None)
    if antialias and kind is not None:
        kind += "_aa"
    if (nd, kind) in UPSAMPLE:
        fn = _op_name(nd, kind)
        sizes, scales = _call_sizes(input, output_size, scales, fn)
        nearest = not _ALIGNED.get(kind, True)
        dtype_kind, name = input.dtype.np.kind, input.dtype.np.name
        # (uint8: PyTorch's own kernel for bilinear and bicubic 2-d, with integer weights)
        own_uint8 = name == "uint8" and (nearest or nd == 2)
        # (antialias: its weights' kernel has float32 and float64 only, and uint8's)
        if dtype_kind in "biu" and not own_uint8 or antialias and name == "float16":
            weights = "nearest" if nearest else kind
            shown = _op_name(nd, "nearest") if nearest else fn  # (exact's kernel is nearest's)
            kernel = ("compute_index_ranges_weights" if antialias else
                      f"{shown}_channels_last" if kind != "cubic" and
                      _channels_last(input.shape, sizes) else
                      f"compute_indices_weights_{weights}")
            raise not_implemented(kernel, input.dtype)
        if not nearest and name not in ("float32", "float64", "float16"):
            raise NotImplementedError(f"gradcli: interpolate's mode '{mode}' of {name} is not "
                                      "supported (float16, float32 and float64 are)")
        flag = () if nearest else (bool(align_corners),)
        return UPSAMPLE[nd, kind].apply((input,), (sizes,) + flag + scales)
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if mode == "lanczos":  # (4-d, with antialias: the checks above)
        raise NotImplementedError("gradcli: interpolate's mode 'lanczos' is not supported "
                                  "(nearest, nearest-exact, linear, bilinear and bicubic (with "
                                  "antialias too), trilinear and area are)")
    if linear and nd in (1, 2, 3):
        needs = {1: "3D", 2: "4D", 3: "5D"}[linear]
        raise NotImplementedError(f"Got {nd + 2}D input, but {mode} mode needs {needs} input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{input.dim()}D) for the modes: {_MODES} (got {mode})")


_entry = register(Plain("interpolate", interpolate, "the input resized to size or by "
                        "scale_factor (nearest(-exact), (bi/tri)linear and bicubic with "
                        "align_corners, area; antialias for bilinear and bicubic)",
                        kind="pooling", signature=f"interpolate{inspect.signature(interpolate)}",
                        via=tuple(_op_name(nd, kind) for nd, kind in UPSAMPLE)))
_entry.function = False  # (torch.nn.functional's only)
