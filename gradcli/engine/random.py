"""PyTorch's CPU random number generator, bit for bit: an MT19937 stream seeded like
`torch.manual_seed` (NumPy's legacy MT19937 seeding is the same init_genrand), and PyTorch's
recipes for rand, randn and randint on top of it — so that a seeded tutorial snippet draws the
same numbers as in PyTorch.

The recipes follow aten/src/ATen/core/DistributionsHelper.h and native/cpu/DistributionTemplates.h:
uniform floats take the low 24 bits of one 32-bit draw (doubles the low 53 bits of a 64-bit draw
made of two 32-bit draws, the first one high); tensors of 16 or more elements are filled with
uniforms and transformed 16 at a time by Box-Muller; smaller ones draw double normals one by one,
caching the second value of each pair."""

import math

import numpy as np

DEFAULT_SEED = 67280421310721  # PyTorch's default generator seed
MT_N = 624  # the Mersenne Twister's state words


class TorchGenerator:
    """The state of one of torch's CPU generators (the default one behind torch.rand, or a
    torch.Generator of the program's): its seed, its MT19937 stream and the second normal of
    the last Box-Muller pair.  The draws are private (`_uniform`, `_normal`, `_integers`):
    what a program calls is PyTorch's API, made in gradcli.ops.creation."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _wrap_draws(cls)

    def __init__(self, seed=DEFAULT_SEED):
        self.manual_seed(seed)

    def manual_seed(self, seed):
        self._seed = int(seed) % (1 << 64)  # (a negative seed wraps, as PyTorch's uint64)
        self._bits = None
        self._next_normal = None
        self._pristine = True  # seeded, nothing drawn: PyTorch's state says next = 0
        return self

    def _get_state(self):
        """A copy of the whole state (`_set_state` goes back to it: the same draws again)."""
        return (self._seed, None if self._bits is None else self._bits.state, self._next_normal,
                self._pristine)

    def _set_state(self, state):
        self._seed, bits, self._next_normal, pristine = state
        self._bits = None
        if bits is not None:
            self._stream().state = bits
        self._pristine = pristine

    def _stream(self):
        self._pristine = False
        if self._bits is None:
            self._bits = np.random.RandomState(self._seed & 0xFFFFFFFF)._bit_generator
        return self._bits

    def _random32(self, n):
        """n raw 32-bit draws (as uint64)."""
        return self._stream().random_raw(n).astype(np.uint64) if n else np.zeros(0, np.uint64)

    def _random64(self, n):
        raw = self._random32(2 * n)
        return (raw[0::2] << np.uint64(32)) | raw[1::2]

    def _uniform(self, n, dtype):
        """n uniforms in [0, 1) as PyTorch's uniform_real_distribution draws them."""
        if np.dtype(dtype) == np.float64:
            bits = self._random64(n) & np.uint64((1 << 53) - 1)
            return bits.astype(np.float64) * (2.0 ** -53)
        bits = self._random32(n) & np.uint64((1 << 24) - 1)
        return (bits.astype(np.float64) * (2.0 ** -24)).astype(dtype)

    def _words(self, n, wide=False):
        """n raw draws as PyTorch's random() (32 bits) or, wide, random64() (64 bits) give
        them, as uint64."""
        return self._random64(n) if wide else self._random32(n)

    def _double_normals(self, n):
        """n normals drawn one by one as normal_distribution<double> draws them (float64): the
        cached second value of the last pair first, then pairs of uniforms (u1, u2) giving
        r * cos(theta) and r * sin(theta), the last sine cached when n runs out."""
        out = np.empty(n, np.float64)
        start = 0
        if n and self._next_normal is not None:
            out[0], self._next_normal, start = self._next_normal, None, 1
        pairs = (n - start + 1) // 2
        if pairs:
            u = self._uniform(2 * pairs, np.float64)
            radius = np.sqrt(-2.0 * libm(math.log1p, -u[1::2]))
            theta = 2.0 * math.pi * u[0::2]
            values = np.empty(2 * pairs)
            values[0::2] = radius * libm(math.cos, theta)
            values[1::2] = radius * libm(math.sin, theta)
            out[start:] = values[:n - start]
            if 2 * pairs > n - start:
                self._next_normal = float(values[-1])
        return out

    def _normal(self, n, dtype):
        """n standard normals as torch.randn draws them for a contiguous tensor."""
        dtype = np.dtype(dtype)
        if n < 16:
            return self._double_normals(n).astype(dtype)
        data = self._uniform(n, dtype)
        _box_muller16(data, 0)
        if n % 16:
            data[n - 16:] = self._uniform(16, dtype)
            _box_muller16(data, n - 16)
        return data

    def _normal_fill(self, n, dtype):
        """The standard normals normal_ draws for a contiguous tensor of n elements: below 16,
        doubles drawn one by one (normal_distribution<double>, float64 here); from 16 on, in
        the tensor's dtype (its Box-Muller fill).  One draw, so that inside vmap the batch's
        size decides, as PyTorch's normal_ on the batched tensor does."""
        return self._double_normals(n) if n < 16 else self._normal(n, dtype)

    def _each(self, n, sample):
        """sample(n): the values of n elements a kernel draws one after another, each as many
        draws as it needs (poisson); inside vmap, one sample's part of the batched draw."""
        return sample(n)

    def _integers(self, low, high, n):
        span = int(high) - int(low)
        if span <= 0:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                               f">= to={high}")
        draws = self._random64(n) if span >= 1 << 28 else self._random32(n)
        return (draws % np.uint64(span)).astype(np.int64) + int(low)

    # PyTorch's CPUGeneratorImplState, the bytes of Generator.get_state(): the legacy
    # THGeneratorState (the_initial_seed u64, left i32, seeded i32, next u64, state u64[624],
    # normal_x, normal_y, normal_rho f64, normal_is_valid i32) and a float normal (f32, bool)
    _STATE_LAYOUT = np.dtype([("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"),
                             ("next", "<u8"), ("state", "<u8", (MT_N,)), ("normal_x", "<f8"),
                             ("normal_y", "<f8"), ("normal_rho", "<f8"),
                             ("normal_is_valid", "<i4"), ("pad", "<i4"),
                             ("float_normal", "<f4"), ("float_normal_is_valid", "u1"),
                             ("pad2", "u1", (3,))])

    def _state_bytes(self):
        """The generator's state as PyTorch's get_state() gives it (uint8, _STATE_LAYOUT)."""
        record = np.zeros((), self._STATE_LAYOUT)
        record["seed"], record["seeded"] = self._seed, 1
        if self._pristine:  # PyTorch's engine right after seeding: left 1, next 0
            words = np.random.RandomState(self._seed & 0xFFFFFFFF)._bit_generator.state
            left, position = 1, 0
        else:
            words = self._stream().state
            # NumPy draws word `pos` next and mixes when pos reaches 624; PyTorch's engine
            # mixes when `left` counts down to 0 and then draws word `next`
            position = words["state"]["pos"]
            left = MT_N + 1 - position
        record["left"], record["next"] = left, position
        record["state"] = words["state"]["key"]
        if self._next_normal is not None:
            record["normal_is_valid"], record["normal_y"] = 1, self._next_normal
        return record.reshape(1).view(np.uint8).copy()

    def _load_state_bytes(self, data):
        """Go back to a state that _state_bytes (or PyTorch's get_state) gave."""
        record = data.view(self._STATE_LAYOUT)[0]
        left, position = int(record["left"]), int(record["next"])
        if not 1 <= left <= MT_N or int(record["seeded"]) != 1:
            raise RuntimeError("Invalid mt19937 state")
        pristine = left == 1 and position == 0
        if not pristine and left + position != MT_N + 1:
            raise RuntimeError(f"gradcli cannot restore an mt19937 state whose next word "
                               f"({position}) and words left ({left}) disagree")
        self._seed = int(record["seed"])
        self._bits = np.random.RandomState(0)._bit_generator
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": record["state"].astype(np.uint32),
                                      "pos": MT_N if pristine else position}}
        self._next_normal = float(record["normal_y"]) if record["normal_is_valid"] else None
        self._pristine = pristine


def _box_muller16(data, i):
    """normal_fill_16 on the blocks of 16 uniforms data[i:i + 16], data[i + 16:i + 32], ...:
    cos into the first 8 of each, sin into the last 8."""
    blocks = data[i:i + (data.size - i) // 16 * 16].reshape(-1, 16)
    u1, u2 = 1 - blocks[:, :8], blocks[:, 8:]
    if data.dtype == np.float64:  # libm's log, cos and sin, one value at a time as the
        # kernel calls them (NumPy's vectorised loops may differ in the last bit)
        radius = np.sqrt(-2 * libm(math.log, u1))
        theta = 2 * np.pi * u2
        blocks[:, :8], blocks[:, 8:] = radius * libm(math.cos, theta), radius * libm(
            math.sin, theta)
        return
    radius = np.sqrt(-2 * np.log(u1))
    theta = np.float32(2 * np.pi) * u2
    blocks[:, :8], blocks[:, 8:] = radius * np.cos(theta), radius * np.sin(theta)


def libm(fn, values):
    """fn (a C library function, from math) on each value of an array: PyTorch's kernels call
    libm one value at a time, where NumPy's vectorised loops may round differently."""
    return np.asarray(np.frompyfunc(fn, 1, 1)(values), np.float64)  # (0-d: a float comes)


# ---------------------------------------------------------------------- vmap's randomness

VMAP_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please "
                     "either use the 'same' or 'different' randomness flags on vmap or perform "
                     "the randomness operation out of vmap")
VMAP_SAME_BATCHED = ("Vmap does not currently support same randomness with a batched tensor "
                     "input. Please file an issue with functorch")
VMAP_SAMPLE_ORDER = ("vmap: gradcli draws a random op on a batched input that draws as much as "
                     "each element needs (poisson) sample after sample, as PyTorch's one draw "
                     "over the batch does, only as the last random op of a function that no "
                     "other vmap encloses")
VMAP_RANDOM_UNEVEN = ("vmap: the function drew random numbers differently for different "
                      "samples (gradcli runs it once per sample and hands each sample its slice "
                      "of one batched draw: the draws must be the same for every sample)")


class VmapLevel:
    """One torch.func.vmap running its function sample by sample: its randomness mode, batch
    size, the sample running, and the draws its first sample made (PyTorch draws once for the
    whole batch: 'different' hands each sample its row of a draw of batch x n values, 'same'
    hands every sample the one draw of n)."""

    __slots__ = ("mode", "size", "index", "calls", "draws", "in_order")

    def __init__(self, mode, size):
        self.mode, self.size, self.index, self.calls, self.draws = mode, size, 0, 0, []
        self.in_order = False  # sample 0 drew straight from the generator (sample_by_sample)

    def start_sample(self, index):
        self.index, self.calls = index, 0


class Vmap:
    """The vmaps running, innermost last (gradcli.func.vmap pushes and pops them)."""
    levels = []
    drawing = False   # a draw on its way to the generator (its inner draws are its own)


def _request(depth, n, draw):
    """n values for the vmap level at depth (-1: the generator itself)."""
    if depth < 0:
        Vmap.drawing = True
        try:
            return draw(n)
        finally:
            Vmap.drawing = False
    level = Vmap.levels[depth]
    if level.mode == "error":
        raise RuntimeError(VMAP_RANDOM_ERROR)
    if level.in_order and level.index == 0:  # (after a draw made sample by sample)
        raise RuntimeError(VMAP_SAMPLE_ORDER)
    k = level.calls
    level.calls += 1
    if level.index == 0:
        wanted = n if level.mode == "same" else level.size * n
        level.draws.append((n, _request(depth - 1, wanted, draw)))
    elif k >= len(level.draws) or level.draws[k][0] != n:
        raise RuntimeError(VMAP_RANDOM_UNEVEN)
    values = level.draws[k][1]
    if level.mode == "same":
        return values.copy()
    return values[level.index * n:(level.index + 1) * n].copy()


def sample_by_sample(draw):
    """draw(), a random op on one sample of a batched input under randomness='different' whose
    elements draw as many values as they need: straight from the generator, so that the samples
    draw one after another as PyTorch's one draw over the batched tensor does (its elements in
    the batch's order), which holds when no other draw of the function follows it."""
    level = Vmap.levels[-1]
    if len(Vmap.levels) > 1 or level.index == 0 and level.in_order:
        raise RuntimeError(VMAP_SAMPLE_ORDER)
    level.in_order = True
    Vmap.drawing = True
    try:
        return draw()
    finally:
        Vmap.drawing = False


def _vmapped(method, count_position):
    """A draw of TorchGenerator that, inside vmap, is one sample's part of the batched draw."""
    def draw(self, *args):
        if not Vmap.levels or Vmap.drawing:
            return method(self, *args)

        def with_count(n):
            values = list(args)
            values[count_position] = n
            return method(self, *values)
        return _request(len(Vmap.levels) - 1, args[count_position], with_count)
    draw.__name__ = draw.__qualname__ = method.__name__
    draw.__doc__ = method.__doc__
    return draw


def _wrap_draws(cls):
    """Inside vmap, the draws (uniform, normal, integers, words) that cls defines are each one
    sample's part of a batched draw (a subclass's are wrapped too: __init_subclass__)."""
    for method, position in (("_uniform", 0), ("_normal", 0), ("_integers", 2), ("_words", 0),
                             ("_double_normals", 0), ("_normal_fill", 0), ("_each", 0)):
        if method in vars(cls):
            setattr(cls, method, _vmapped(vars(cls)[method], position))


_wrap_draws(TorchGenerator)
