"""PyTorch's CPU float sum, added in PyTorch's order.

PyTorch's CPU `sum` (aten/src/ATen/native/cpu/SumKernel.cpp, `cascade_sum`) adds float32 in
float32 and float64 in float64, in its own order: TensorIterator orders and coalesces the
dimensions, each 2-d loop runs one of four kernels (vectorised inner or outer sum, scalar inner
or outer sum) built on `row_sum` (four interleaved partial sums) and `multi_row_sum` (a
four-level cascade whose level holds 2**max(4, ceil(log2 n) / 4) rows), and each result is added
into an output filled with zeros.  The vectors are 32 bytes (8 floats, 4 doubles) on every CPU:
the sum kernel is not compiled for AVX512, which runs the AVX2 kernel.  CPU `mean` is that sum
divided by n.  From 32768 elements on, `parallel_reduce` splits the work between threads
(`two_pass_reduction` for one output element, `parallel_dim_reduction` otherwise), which
changes the order again: the split is reproduced for `get_num_threads()` threads.

Everything here works on whole NumPy arrays: a level of the cascade is one `np.add.reduce`
over the axis of a reshaped view whose inner axes are kept, which NumPy adds row after row
(never pairwise, which it does only along the innermost reduced axis); where those rows are
short runs of memory (4 vectors: 128 bytes), they are first copied whole, step axis first, so
that NumPy's inner loop runs over long rows (`_block_sums`).  An output of at most three
elements along one dimension is NumPy's own reduction: every kernel adds them one after another.
"""
import math
import os

import numpy as np

from .numerics import fused

GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE
MAX_THREADS = 4096
_VEC_BYTES = 32     # Vectorized<float> of the AVX2 (and default) kernel: 8 floats, 4 doubles


def _default_threads():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


_threads = [_default_threads()]


def get_num_threads():
    """The number of threads whose split of a long sum is reproduced (torch.get_num_threads)."""
    return _threads[0]


def set_num_threads(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    if n > MAX_THREADS:
        raise RuntimeError(f"gradcli reproduces the sums of at most {MAX_THREADS} threads")
    _threads[0] = int(n)


# ------------------------------------------------------------------ the kernels, on arrays
# Each takes x of shape (n, ...) and reduces axis 0 in the kernel's order; the trailing axes are
# independent columns (or batches of loops).

def _rows_outside(x, axis):
    """x, laid out so that NumPy's reduction over `axis` adds whole rows one after another:
    NumPy adds pairwise along the axis its inner loop runs over, the one of smallest stride."""
    if x.flags.c_contiguous and math.prod(x.shape[axis + 1:]) > 1:
        return x
    inner = [abs(st) for d, (n, st) in enumerate(zip(x.shape, x.strides)) if d != axis and n > 1]
    if inner and min(inner) < abs(x.strides[axis]) and min(x.strides) >= 0:
        return x
    return np.ascontiguousarray(x)


def _seq(x, axis=0):
    """0 + x[0] + x[1] + ... along `axis` (0 or 1), one slice after another (but the sign of a
    zero)."""
    n = x.shape[axis]
    if n <= 2:
        if not n:
            return np.zeros(x.shape[:axis] + x.shape[axis + 1:], x.dtype)
        first = x[0] if axis == 0 else x[:, 0]
        if n == 1:
            return first.copy()
        return first + (x[1] if axis == 0 else x[:, 1])
    if math.prod(x.shape[axis + 1:]) == 1:
        return np.cumsum(x, axis=axis)[-1 if axis == 0 else (slice(None), -1)]  # one by one
    return np.add.reduce(_rows_outside(x, axis), axis=axis)


MOVE_RUN = 256
"""_block_sums moves rows of memory of up to this many bytes (longer ones NumPy adds in long
enough inner loops already) ..."""
MOVE_ROWS = 128
"""... when there are at least this many of them."""


def _block_sums(x):
    """x (blocks, step, ...) -> (blocks, ...): the rows of each block added one after another.

    A level of the cascade adds rows of 4 vectors (128 bytes), and NumPy's reduction over the
    step axis runs its inner loop once a row.  When the trailing axes hold such short runs of
    memory, they are copied whole (as void items of the run's bytes, a memcpy each) into an array
    whose step axis comes first, which NumPy adds slice after slice in long inner loops: the copy
    and the addition cost about half the reduction (bench/bench_sum.py).  The order of the
    additions is the same: each output adds its block's rows one after another from 0."""
    blocks, step = x.shape[:2]
    if x.size * x.itemsize < MOVE_ROWS * 64:
        return _seq(x, 1)
    if x.flags.c_contiguous:          # (the cascade of one contiguous loop)
        nbytes = x.size // (blocks * step) * x.itemsize
        if not 128 <= nbytes <= MOVE_RUN or blocks * step < MOVE_ROWS:
            return _seq(x, 1)
        items = x.reshape(blocks, step, -1).view(np.dtype((np.void, nbytes)))
        moved = items.reshape(blocks, step).T.copy()            # (step, blocks)
        return np.add.reduce(moved.view(x.dtype).reshape((step, blocks) + x.shape[2:]), axis=0)
    if x.strides[-1] == x.itemsize and x.shape[-1] * x.itemsize > MOVE_RUN:
        return _seq(x, 1)             # (an outer sum's rows: long enough)
    strides = x.strides[2:]
    run_axes, nbytes = [], x.itemsize
    while nbytes in strides:                    # the run: axes each as long as those inside
        d = 2 + strides.index(nbytes)
        if x.shape[d] == 1:
            break
        run_axes.insert(0, d)
        nbytes *= x.shape[d]
    if not 128 <= nbytes <= MOVE_RUN or x.size * x.itemsize // nbytes < MOVE_ROWS:
        return _seq(x, 1)
    others = [d for d in range(2, x.ndim) if d not in run_axes]
    dims = [0] + others + run_axes          # x's axes as sums will hold them (the run last)
    ordered = dims == [0, *range(2, x.ndim)]
    rows = x if ordered else x.transpose([0, 1] + dims[1:])
    rows = rows.reshape(rows.shape[:2 + len(others)] + (-1,))   # the run: one axis (a view)
    items = rows.view(np.dtype((np.void, nbytes)))[..., 0]      # (blocks, step, others...)
    moved = np.ascontiguousarray(items.swapaxes(0, 1))          # (step, blocks, others...)
    sums = np.add.reduce(moved.view(x.dtype).reshape(
        moved.shape + tuple(x.shape[d] for d in run_axes)), axis=0)   # one slice after another
    return sums if ordered else sums.transpose(sorted(range(len(dims)), key=dims.__getitem__))


def _ceil_log2(n):
    return 0 if n <= 1 else int(n - 1).bit_length()


def multi_row_sum(x):
    """multi_row_sum over axis 0 of x (n, ...): the four-level cascade.  Each level holds the
    sums of `step` rows of the one below; the kernel's acc[j] the rows of level j left over
    (a partial block), added level after level at the end (zeros left out: only a zero's sign
    could change, and the sum's final 0 + ... settles it)."""
    step = 1 << max(4, _ceil_log2(x.shape[0]) // 4)
    acc = None
    for _ in range(3):
        blocks = x.shape[0] // step
        if blocks * step < x.shape[0]:
            rows = x[blocks * step:]
            part = _seq(rows) if rows.size * rows.itemsize < MOVE_ROWS * 64 else \
                _block_sums(rows[None])[0]
            acc = part if acc is None else acc + part
        if not blocks:
            return acc
        x = _block_sums(x[:blocks * step].reshape(blocks, step, *x.shape[1:]))
    part = _seq(x)
    return part if acc is None else acc + part


def row_sum(x):
    """row_sum over axis 0 of x (n, ...): four interleaved partial sums, the rows left over
    added to the first, then the other three to it."""
    k = x.shape[0] // 4
    if not k:
        return _seq(x)
    parts = multi_row_sum(x[:4 * k].reshape(k, 4, *x.shape[1:]))  # (4, ...)
    first = parts[0]
    for i in range(4 * k, x.shape[0]):
        first = first + x[i]
    return first + parts[1] + parts[2] + parts[3]


def inner_vectorized(x, lanes):
    """vectorized_inner_sum over axis 0 of x (n, ...), contiguous along axis 0, n >= lanes."""
    n = x.shape[0]
    v = n // lanes
    vec = row_sum(x[:v * lanes].reshape(v, lanes, *x.shape[1:]))  # (lanes, ...)
    if x.ndim == 1:
        return _scalars(x[v * lanes:], vec)
    return _seq(np.concatenate([x[v * lanes:], vec])) if v * lanes < n else _seq(vec)


def _scalars(*parts):
    """0 + the elements of the 1-d arrays `parts` one after another (a NumPy scalar): a few
    scalar additions cost less than a ufunc call (Python's floats are IEEE doubles)."""
    if parts[0].dtype == np.float64:
        total = 0.0
        for part in parts:
            for value in part.tolist():
                total += value
        return np.float64(total)
    total = parts[0].dtype.type(0)
    for part in parts:
        for value in part:
            total = total + value
    return total


def outer_vectorized(x, lanes):
    """vectorized_outer_sum: x (size0, size1, ...), contiguous along axis 1, size1 >= lanes."""
    size1 = x.shape[1]
    wide = size1 // (4 * lanes) * 4 * lanes
    narrow = size1 // lanes * lanes
    parts = []
    if wide:
        parts.append(multi_row_sum(x[:, :wide]))
    if narrow > wide:
        m = (narrow - wide) // lanes
        # each vector a row_sum of its own: (size0, m, lanes, ...) reduced over axis 0
        parts.append(row_sum(x[:, wide:narrow].reshape(x.shape[0], m, lanes, *x.shape[2:]))
                     .reshape(narrow - wide, *x.shape[2:]))
    if size1 > narrow:
        parts.append(row_sum(x[:, narrow:]))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def scalar_outer(x):
    """scalar_outer_sum: four columns at a time through multi_row_sum, the rest by row_sum."""
    four = x.shape[1] // 4 * 4
    if four == x.shape[1]:
        return multi_row_sum(x)
    if not four:
        return row_sum(x)
    return np.concatenate([multi_row_sum(x[:, :four]), row_sum(x[:, four:])])


def loop2d(x, in0, in1, item, lanes):
    """cascade_sum's 2-d loop over x (size0, size1, ...), axis 0 reduced: (size1, ...)."""
    size0, size1 = x.shape[0], x.shape[1]
    if in0 == item and size0 >= lanes:
        return inner_vectorized(x, lanes)
    if in1 == item and size1 >= lanes:
        return outer_vectorized(x, lanes)
    if in0 < in1:
        return row_sum(x)
    return scalar_outer(x)


def sum_contiguous(flat):
    """The sum of a contiguous 1-d array, as one 1-d loop (a 0-d array, not yet added to 0)."""
    lanes = _VEC_BYTES // flat.itemsize
    if flat.size >= lanes:
        return inner_vectorized(flat, lanes)
    if flat.size < 4:
        return _scalars(flat)
    return row_sum(flat)


def _parallel_for(begin, end, grain, threads):
    """at::parallel_for's chunks (OpenMP): [(thread, begin, end), ...]."""
    n = end - begin
    if n <= grain or n <= 1 or threads <= 1:
        return [(0, begin, end)]
    nt = min(threads, -(-n // grain)) if grain > 0 else threads
    chunk = -(-n // nt)
    return [(t, begin + t * chunk, min(end, begin + (t + 1) * chunk))
            for t in range(nt) if begin + t * chunk < end]


# ------------------------------------------------------------------ the iterator

_PLANS = {}
PLANS = 256   # shapes, layouts and reduced dimensions whose iterator is kept


def _iterator(a, red):
    """TensorIterator's reduction shape, and a's elements as it iterates them: (shape, view).

    shape is [[size, input stride, output stride], ...] with dimension 0 the innermost,
    reordered and coalesced as TensorIterator does (a list kept for a's shape, strides and
    reduced dimensions: not to be changed); view is a's view of those sizes and strides."""
    key = (a.shape, a.strides, tuple(sorted(red)))
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= PLANS:
            _PLANS.clear()
        plan = _PLANS[key] = _reorder(a, red)
    shape, order, sizes = plan
    return shape, a.transpose(order).reshape(sizes).T


def _reorder(a, red):
    """_iterator's shape, and the transposition and reshape of a that views it (outermost
    dimension first: a's dimensions of size 1, then the others in the iterator's order,
    coalesced)."""
    ndim = a.ndim
    out_strides, s = {}, 1
    for d in reversed(range(ndim)):
        out_strides[d] = 0 if d in red else s
        s *= 1 if d in red else a.shape[d]
    dims = [d for d in range(ndim) if a.shape[d] != 1]
    in_strides = {d: a.strides[d] for d in range(ndim)}

    def should_swap(d0, d1):
        o0, o1 = out_strides[d0], out_strides[d1]
        if (o0 == 0) != (o1 == 0):
            return 1 if o1 == 0 else -1
        if o0 and o1:
            if o0 != o1:
                return -1 if o0 < o1 else 1
            if a.shape[d0] > a.shape[d1]:
                return 1
        i0, i1 = in_strides[d0], in_strides[d1]
        if i0 and i1:
            if i0 != i1:
                return -1 if i0 < i1 else 1
            if a.shape[d0] > a.shape[d1]:
                return 1
        return 0

    perm = dims[::-1]
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    shape = []
    for d in perm:
        entry = [a.shape[d], in_strides[d], out_strides[d]]
        if shape and shape[-1][0] * shape[-1][1] == entry[1] \
                and shape[-1][0] * shape[-1][2] == entry[2]:
            shape[-1][0] *= entry[0]
        else:
            shape.append(entry)
    while len(shape) < 2:
        shape.append([1, 0, 0])
    order = [d for d in range(ndim) if a.shape[d] == 1] + perm[::-1]
    return shape, order, [e[0] for e in reversed(shape)]


def _accumulate(out, pos, vals):
    """out[p] = ((out[p] + v0) + v1) + ... with the values of each position in their order;
    pos and vals flat, in iteration order."""
    if len(pos) == 1 or (len(pos) <= out.size and len(np.unique(pos)) == len(pos)):
        out[pos] = out[pos] + vals
        return
    order = np.argsort(pos, kind="stable")
    pos, vals = pos[order], vals[order]
    uniq = np.unique(pos)
    count = len(pos) // len(uniq)   # a regular iteration: as many values for each position
    table = np.concatenate([out[uniq][:, None], vals.reshape(len(uniq), count)], axis=1)
    out[uniq] = np.cumsum(table, axis=1)[:, -1]   # add.accumulate: one after another


def _serial(view, shape, out, out_offset, item, lanes):
    """serial_for_each over the whole of an iterator (view: its elements, axis 0 innermost):
    every 2-d loop at once, batched over the outer dimensions, then added into `out` in
    iteration order (2-d loops one after another, the second outer dimension fastest)."""
    if 0 in view.shape:
        return
    s0, s1 = shape[0], shape[1]
    outer = shape[2:]
    if not outer and (s0[2] == 0 or s1[2] == 0):    # one 2-d loop, a reduction
        if s0[2] != 0:
            view, s0, s1 = np.swapaxes(view, 0, 1), s1, s0
        vals = loop2d(view, s0[1], s1[1], item, lanes)
        if s1[2] != 0:                               # columns: each its own output
            pos = slice(out_offset, out_offset + s1[2] * (s1[0] - 1) + 1, s1[2])
            out[pos] = out[pos] + vals
        elif s1[0] == 1:
            out[out_offset] = out[out_offset] + vals[0]
        else:                                        # rows added into one output in turn
            out[out_offset] = np.cumsum(np.concatenate([out[out_offset:out_offset + 1],
                                                        vals]))[-1]
        return
    nout = len(outer)
    base = np.full([1] * nout, out_offset, np.int64)
    for k, e in enumerate(outer):
        base = base + (np.arange(e[0], dtype=np.int64) * e[2]).reshape(
            [-1 if j == k else 1 for j in range(nout)])
    if s0[2] != 0 and s1[2] != 0:                # not a reduction: out += x
        pos = base[None, None] \
            + (np.arange(s0[0]) * s0[2]).reshape(-1, 1, *([1] * nout)) \
            + (np.arange(s1[0]) * s1[2]).reshape(1, -1, *([1] * nout))
        vals = view
    else:
        if s0[2] != 0:                           # the reduced dimension first
            view, s0, s1 = np.swapaxes(view, 0, 1), s1, s0
        vals = loop2d(view, s0[1], s1[1], item, lanes)       # (size1, outer...)
        if s1[2] == 0 and all(e[2] for e in outer):  # each outer loop its own output
            out[base] = _seq(np.concatenate([out[base][None], vals]))   # the rows in turn
            return
        pos = base[None] + (np.arange(s1[0]) * s1[2]).reshape(-1, *([1] * nout))
    pos = np.broadcast_to(pos, vals.shape)
    _accumulate(out, pos.reshape(-1, order="F"), np.asarray(vals).reshape(-1, order="F"))


def _ranged(view, shape, begin, end, out, out_offset, item, lanes):
    """serial_for_each over the range [begin, end) of the iteration: the loops DimCounter
    gives (a part of a row, whole 2-d loops, a part of a row), one after another."""
    sizes = [e[0] for e in shape]
    ndim = len(sizes)
    values = [int(v) for v in np.unravel_index(begin, sizes[::-1])][::-1]
    offset = begin
    while offset < end:
        step0 = min(sizes[0] - values[0], end - offset)
        step1 = 1
        if values[0] == 0:
            step1 = max(1, min(sizes[1] - values[1], (end - offset) // sizes[0]))
        index = (slice(values[0], values[0] + step0), slice(values[1], values[1] + step1),
                 *values[2:])
        outp = out_offset + sum(v * e[2] for v, e in zip(values, shape))
        _serial(view[index], [[step0, *shape[0][1:]], [step1, *shape[1][1:]]], out, outp,
                item, lanes)
        offset += step0 * step1                  # DimCounter.increment
        i, overflow = (1, step1) if step1 != 1 else (0, step0)
        while i < ndim and overflow > 0:
            v = values[i] + overflow
            overflow = int(v >= sizes[i])
            values[i] = v - sizes[i] if overflow else v
            i += 1


def torch_sum(a, ax, threads=None):
    """The float sum of `a` over the axes `ax` (None: all) in the order PyTorch's CPU kernel
    adds, without keepdim; None for what is not emulated (other dtypes, no elements)."""
    if a.dtype.kind != "f" or a.itemsize not in (4, 8) or a.size == 0:
        return None
    long = [n for n in a.shape if n > 1] if ax is None else \
        [a.shape[d] for d in ax if a.shape[d] > 1]
    if len(long) <= 1 and (not long or long[0] <= 3):
        # at most three elements an output, along one dimension: every kernel adds them one
        # after another from 0, as NumPy's reduction does (0 + ... settles the sign of a zero)
        return np.asarray(np.add.reduce(a, axis=None if ax is None else tuple(ax))
                          + a.dtype.type(0))
    threads = _threads[0] if threads is None else threads
    item = a.itemsize
    lanes = _VEC_BYTES // item
    full = ax is None or len(set(ax)) == a.ndim
    if full and (a.flags.c_contiguous or a.flags.f_contiguous):
        flat = a.reshape(-1, order="A")
        chunks = _parallel_for(0, flat.size, GRAIN_SIZE, threads) \
            if flat.size >= GRAIN_SIZE and threads > 1 else [(0, 0, flat.size)]
        if len(chunks) == 1:
            return np.asarray(sum_contiguous(flat) + a.dtype.type(0))
        buffer = np.zeros(threads, a.dtype)
        for t, b, e in chunks:
            buffer[t] = buffer[t] + sum_contiguous(flat[b:e])
        return np.asarray(sum_contiguous(buffer) + a.dtype.type(0))
    if any(s < 0 for s in a.strides):
        a = np.ascontiguousarray(a)    # PyTorch's views have no negative strides
    red = set(range(a.ndim)) if ax is None else set(ax)
    out_shape = tuple(s for d, s in enumerate(a.shape) if d not in red)
    out_numel = math.prod(out_shape)
    shape, view = _iterator(a, red)
    out = np.zeros(out_numel, a.dtype)
    numel = a.size
    if numel < GRAIN_SIZE or threads <= 1:
        _serial(view, shape, out, 0, item, lanes)
    elif out_numel == 1:                       # two_pass_reduction
        buffer = np.zeros(threads, a.dtype)
        for t, b, e in _parallel_for(0, numel, GRAIN_SIZE, threads):
            _ranged(view, shape, b, e, buffer, t, item, lanes)
        out[0] = out[0] + sum_contiguous(buffer)
    else:                                      # parallel_dim_reduction
        reduced = [e[2] == 0 and e[0] > 1 for e in shape]
        dim = len(shape) - 1
        best = dim
        while dim >= 0 and not reduced[dim]:
            if shape[dim][0] >= threads:
                best = dim
                break
            if shape[dim][0] > shape[best][0]:
                best = dim
            dim -= 1
        cols = shape[best][0]
        round_cols = shape[best][1] == item
        for _, b, e in _parallel_for(0, cols, 1, threads):
            if round_cols:
                per = 128 // item
                b = b - b % per
                if e != cols:
                    e = e - e % per
            if b == e:
                continue
            sub = [list(x) for x in shape]
            sub[best][0] = e - b
            index = (slice(None),) * best + (slice(b, e),)
            _serial(view[index], sub, out, b * shape[best][2], item, lanes)
    return out.reshape(out_shape)


# ------------------------------------------------------------------ vector norms

def torch_vector_norm(a, ord, ax, threads=None):
    """linalg_vector_norm of ord 2 or 1 over the axes `ax` as PyTorch's CPU kernel adds it
    (aten/src/ATen/native/cpu/ReduceOpsKernel.cpp, norm_kernel_tensor_iterator_impl), without
    keepdim; None for what is not emulated.

    Ord 2 over one contiguous innermost dimension (the whole of a contiguous tensor too) runs
    the vectorised kernel: 8 float (4 double) lanes of squares, added lane by lane, then the
    lanes in turn, then the leftovers one by one as the compiler made the loop: by four,
    squared and rounded before the addition, the last (fewer than four) by fused multiply-adds.  Otherwise (and for ord 1) each output
    is 0 + x0*x0 + x1*x1 + ... (|x0| + |x1| + ...) in the iterator's order, without fused
    multiply-adds; one output of 32768 elements or more is split between threads, whose partial
    sums are then added in turn."""
    if a.dtype.kind != "f" or a.itemsize not in (4, 8) or a.size == 0 or ord not in (1, 2):
        return None
    threads = _threads[0] if threads is None else threads
    if any(s < 0 for s in a.strides):
        a = np.ascontiguousarray(a)
    item = a.itemsize
    red = set(range(a.ndim)) if ax is None else set(ax)
    out_shape = tuple(s for d, s in enumerate(a.shape) if d not in red)
    shape, view = _iterator(a, red)
    red_axes = [i for i, e in enumerate(shape) if e[2] == 0 and e[0] > 1]
    kept_axes = [i for i, e in enumerate(shape) if e[2] != 0]
    ones = [i for i, e in enumerate(shape) if e[2] == 0 and e[0] == 1]
    rows = view.transpose(kept_axes[::-1] + ones + red_axes[::-1])
    kept = math.prod([shape[i][0] for i in kept_axes])
    rows = rows.reshape(kept, -1)                         # (outputs, reduced in iterator order)
    pos = np.zeros([shape[i][0] for i in kept_axes[::-1]], np.int64)
    for k, i in enumerate(kept_axes[::-1]):
        pos = pos + (np.arange(shape[i][0]) * shape[i][2]).reshape(
            [-1 if j == k else 1 for j in range(len(kept_axes))])
    lastdim = ord == 2 and len(red_axes) == 1 and red_axes[0] == 0 and shape[0][1] == item
    terms = rows * rows if ord == 2 else np.abs(rows)
    if lastdim:
        lanes = _VEC_BYTES // item
        v = terms.shape[1] // lanes
        body = terms[:, :v * lanes].reshape(kept, v, lanes)
        acc = np.add.reduce(_rows_outside(body, 1), axis=1) if v > 1 else (
            body[:, 0] if v else np.zeros((kept, lanes), a.dtype))
        total = np.cumsum(acc, axis=1)[:, -1]
        # the leftovers as the compiled loop adds them: four at a time squared apart (rounded),
        # the last ones (fewer than four) with a fused multiply-add
        tail = rows[:, v * lanes:]
        four = tail.shape[1] // 4 * 4
        for j in range(four):
            total = total + terms[:, v * lanes + j]
        for j in range(four, tail.shape[1]):
            total = fused(tail[:, j], tail[:, j], total)
    elif kept == 1 and terms.shape[1] >= GRAIN_SIZE and threads > 1:
        buffer = np.zeros(threads, a.dtype)
        for t, b, e in _parallel_for(0, terms.shape[1], GRAIN_SIZE, threads):
            buffer[t] = np.cumsum(terms[0, b:e])[-1]
        total = np.cumsum(buffer)[-1:]
    else:
        total = np.cumsum(terms, axis=1)[:, -1] if terms.shape[1] else np.zeros(kept, a.dtype)
    out = np.zeros(kept, a.dtype)
    out[pos.reshape(-1)] = np.sqrt(total) if ord == 2 else total
    return out.reshape(out_shape)


# ------------------------------------------------------------------ var and std

def torch_var(a, ax, correction, take_sqrt, threads=None):
    """var (take_sqrt: std) of float `a` over the axes `ax` (None: all), without keepdim, as
    PyTorch's CPU computes it (ReduceOps.cpp, std_var_out); None for what is not emulated.

    One output element (every dimension reduced, or the others of size 1): std_var_all_cpu,
    the mean in a's dtype (PyTorch's own sum), then sum((double(x) - mean)**2) in double, one
    element after another in TensorIterator's order, each 2-d loop of serial_for_each from 0
    and added into its thread's sum, the threads' sums added in order (parallel_reduce); the
    root and the division in double, rounded to a's dtype once.  Several: Welford's algorithm
    in double (WelfordOps), each output's elements one after another in the iterator's order."""
    if a.dtype.kind != "f" or a.itemsize not in (4, 8) or a.size == 0:
        return None
    threads = _threads[0] if threads is None else threads
    if any(s < 0 for s in a.strides):
        a = np.ascontiguousarray(a)    # PyTorch's views have no negative strides
    red = set(range(a.ndim)) if ax is None else set(ax)
    out_shape = tuple(s for d, s in enumerate(a.shape) if d not in red)
    n_out = math.prod(out_shape)
    if n_out != 1 and not _welford_emulated(n_out, a.size // max(n_out, 1)):
        return None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if n_out == 1:
            out = _var_all(a, correction, take_sqrt, threads)
        else:
            out = _var_welford(a, red, correction, take_sqrt)
        return np.asarray(out).astype(a.dtype).reshape(out_shape)


def _var_all(a, correction, take_sqrt, threads):
    n = a.size
    mean = float(np.asarray(torch_sum(a, None, threads) / a.dtype.type(n), a.dtype))
    shape, view = _iterator(a, set(range(a.ndim)))
    flat = np.ascontiguousarray(view.T).reshape(-1)   # iteration order
    dx = flat.astype(np.float64) - mean
    dx2 = dx * dx
    s0, s1 = shape[0][0], shape[1][0]
    results = []
    for _, begin, end in _parallel_for(0, n, GRAIN_SIZE, threads):
        thread_sum, p = 0.0, begin
        while p < end:                       # serial_for_each's 2-d loops (DimCounter)
            v0, v1 = p % s0, (p // s0) % s1
            step = min(s0 - v0, end - p)
            if v0 == 0:
                step *= max(1, min(s1 - v1, (end - p) // s0))
            thread_sum += float(np.cumsum(dx2[p:p + step])[-1])   # from 0, in order
            p += step
        results.append(thread_sum)
    total = 0.0
    for r in results:
        total += r
    var = np.float64(total) / np.float64(max(0.0, n - correction))
    return np.sqrt(var) if take_sqrt else var


def _var_welford(a, red, correction, take_sqrt):
    x, order = _by_output(a, red)
    mean, m2, n = _welford(x)
    return _project(m2, n, correction, take_sqrt)[order]


def _by_output(a, red):
    """(x, order): a as (outputs, reduced elements) in double, each row an output's elements
    in TensorIterator's order (its reduced dimensions, innermost fastest), and the row of each
    output element (in C order of the output)."""
    shape, view = _iterator(a, red)
    reduced = [k for k, e in enumerate(shape) if e[2] == 0]
    kept = [k for k, e in enumerate(shape) if e[2] != 0]
    x = np.transpose(view, kept[::-1] + reduced[::-1])
    n_red = math.prod([shape[k][0] for k in reduced])
    x = x.reshape(-1, n_red).astype(np.float64)
    position = np.zeros([shape[k][0] for k in kept[::-1]], np.int64)
    for j, k in enumerate(kept[::-1]):
        position = position + (np.arange(shape[k][0]) * shape[k][2]).reshape(
            [-1 if i == j else 1 for i in range(len(kept))])
    order = np.empty(x.shape[0], np.int64)
    order[position.reshape(-1)] = np.arange(x.shape[0])
    return x, order


WELFORD_STEPS = 20_000   # past this many elements an output (of many), NumPy's two passes
WELFORD_ELEMENTS = 200_000  # ... and past this many in all, when there are only a few


def _welford_emulated(n_out, n_red):
    """Whether Welford's loop is run element by element (in Python, as no NumPy reduction
    follows its order): for an output of up to WELFORD_STEPS elements, or a few outputs of up
    to WELFORD_ELEMENTS in all; past that var and std may differ from PyTorch in the last bit."""
    return n_red <= WELFORD_STEPS or (n_out <= 8 and n_out * n_red <= WELFORD_ELEMENTS)


def _welford(x):
    """WelfordOps.reduce over the columns of x, one after another: (mean, m2, n) per row."""
    if x.shape[0] <= 8:   # a few rows: Python's floats (IEEE doubles) are faster than ufuncs
        rows = [_welford_row(row) for row in x.tolist()]
        return (np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
                float(x.shape[1]))
    mean = np.zeros(x.shape[0])
    m2 = np.zeros(x.shape[0])
    for i in range(x.shape[1]):
        data = x[:, i]
        delta = data - mean
        mean = mean + delta / float(i + 1)
        m2 = m2 + delta * (data - mean)
    return mean, m2, float(x.shape[1])


def _welford_row(values):
    mean = m2 = 0.0
    k = 0.0
    for data in values:
        k += 1.0
        delta = data - mean
        mean = mean + delta / k
        m2 = m2 + delta * (data - mean)
    return mean, m2


def _project(m2, n, correction, take_sqrt):
    """WelfordOps.project: m2 over the degrees of freedom (0 when there are none), its root."""
    divisor = n - correction if n > correction else 0.0
    var = m2 / np.float64(divisor)
    return np.sqrt(var) if take_sqrt else var


def _fma(x, y, z):
    """x*y + z in double precision rounded once (the fused multiply-add PyTorch's compiler
    makes of it)."""
    return float(fused(float(x), float(y), float(z)))


def _welford_combine(a, b):
    """WelfordOps.combine of two (mean, m2, n) (scalars), as compiled: both updates fused
    multiply-adds (a.mean + delta*nb_over_n; (a.m2 + b.m2) + (delta*delta*a.n)*nb_over_n)."""
    if a[2] == 0:
        return b
    if b[2] == 0:
        return a
    delta = b[0] - a[0]
    count = a[2] + b[2]
    nb_over_n = b[2] / count
    return (_fma(delta, nb_over_n, a[0]), _fma(delta * delta * a[2], nb_over_n, a[1] + b[1]),
            count)


def torch_var_mean(a, ax, correction, take_sqrt, threads=None):
    """(var or std, mean) of float `a` over the axes `ax` (None: all), without keepdim, as
    PyTorch's CPU var_mean/std_mean compute them: Welford's algorithm in double for every
    output element (no special case for one), the mean Welford's; one output of 32768 elements
    or more is split between threads (binary_kernel_reduce), their accumulators combined in
    order.  None for what is not emulated."""
    if a.dtype.kind != "f" or a.itemsize not in (4, 8) or a.size == 0:
        return None
    threads = _threads[0] if threads is None else threads
    if any(s < 0 for s in a.strides):
        a = np.ascontiguousarray(a)
    red = set(range(a.ndim)) if ax is None else set(ax)
    out_shape = tuple(s for d, s in enumerate(a.shape) if d not in red)
    n_out = math.prod(out_shape)
    if not _welford_emulated(n_out, a.size // max(n_out, 1)):
        return None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x, order = _by_output(a, red)
        if n_out == 1 and a.size >= GRAIN_SIZE and threads > 1:
            flat = x.reshape(-1)
            acc = (0.0, 0.0, 0.0)
            parts = {t: _welford(flat[None, b:e]) for t, b, e in
                     _parallel_for(0, flat.size, GRAIN_SIZE, threads)}
            for t in range(threads):
                if t in parts:
                    mean, m2, n = parts[t]
                    acc = _welford_combine(acc, (mean[0], m2[0], n))
            mean, m2, n = np.array([acc[0]]), np.array([acc[1]]), acc[2]
        else:
            mean, m2, n = _welford(x)
        var = _project(m2, n, correction, take_sqrt)[order]
        return (np.asarray(var).astype(a.dtype).reshape(out_shape),
                np.asarray(mean[order]).astype(a.dtype).reshape(out_shape))
