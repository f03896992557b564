"""Red team, round 11: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session, no evaluator): random
integers outside their dtype, index tensors of the types PyTorch refuses, interpolate's
antialias, group_norm of an empty batch."""

import ast

import pytest
from processes import program_output
from gradcli.engine.messages import UINT8_INDEX


pytestmark = pytest.mark.usefixtures("fresh_engine")


def _pytorchs(oracle, source):
    """What `source` (after `import torch` and `import numpy as np`) prints in PyTorch, or the
    first line of its error (PyTorch 2.13's answer)."""
    def answer(torch):
        import contextlib
        import io
        import numpy as np
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(source, {"torch": torch, "np": np})
        except Exception as e:  # noqa: BLE001
            return ["error", f"{type(e).__name__}: {e}".splitlines()[0]]
        return ["output", out.getvalue()]
    return oracle(answer)


def _ours(source):
    from gradcli.lang.errors import ProgramError
    try:
        return ["output", program_output(f"import torch\nimport numpy as np\n{source}")]
    except ProgramError as e:
        return ["error", e.format()[0]]


def _assert_pytorchs(oracle, source, on_stderr=()):
    """(on_stderr: the warnings PyTorch writes to standard error, which `_pytorchs` does not
    see and gradcli's output shows: left out of gradcli's)"""
    ours = _ours(source)
    for message in on_stderr:
        ours[1] = ours[1].replace(f"UserWarning: {message}\n", "")
    assert ours == _pytorchs(oracle, source)


# ---------------------------------------------------------------------- random integers

RANDINT_BOUNDS = [
    "torch.randint(300, (3,), dtype=torch.uint8)",
    "torch.randint(-5, 3, (3,), dtype=torch.uint8)",
    "torch.randint(5, (3,), dtype=torch.bool)",
    "torch.randint(2 ** 40, (3,), dtype=torch.int32)",
    "torch.randint(2 ** 40, (3,), dtype=torch.float16)",
    "torch.randint(5, (3,), dtype=torch.complex64)",
    "torch.randint(-2 ** 63 - 1, 0, (3,))",
    "torch.randint(2 ** 64, (3,))",
    "torch.randint(200, (3,), out=torch.ones(3, dtype=torch.int8))",
    "torch.randint_like(torch.ones(3, dtype=torch.uint8), 300)",
    "torch.randint_like(torch.ones(3, dtype=torch.uint8), 3, 257)",
    "torch.randint_like(torch.ones(3, dtype=torch.int16), -40000, 0)",
    "torch.randint_like(torch.ones(3, dtype=torch.bool), 5)",
    "torch.randint_like(torch.ones(3, dtype=torch.float16), 2 ** 60)",
    "torch.randint_like(torch.ones(3, dtype=torch.complex64), 5)",
    "torch.randint_like(torch.ones(3, dtype=torch.int64), 2 ** 63)",
    "torch.randint_like(torch.ones(3), 300, dtype=torch.uint8)",
]


@pytest.mark.parametrize("source", RANDINT_BOUNDS, ids=range(len(RANDINT_BOUNDS)))
def test_random_integers_outside_their_dtype_are_refused(source, oracle):
    """randint and randint_like drew from [low, high) and cast the draws to the dtype:
    `torch.randint(300, (3,), dtype=torch.uint8)` wrapped 256..299 to 0..43, a bool tensor
    took any bound, a complex one too.  Expected: PyTorch's check_random_bounds errors (its
    random_'s, which gradcli's random_ already gave)."""
    _assert_pytorchs(oracle, f"r = {source}\n")


def test_random_integers_within_their_dtype_are_drawn():
    out = program_output(
        "import torch\nr = torch.randint(250, 256, (1000,), dtype=torch.uint8)\n"
        "s = torch.randint_like(torch.ones(1000, dtype=torch.int8), -128, 128)\n"
        "b = torch.randint(2, (1000,), dtype=torch.bool)\n"
        "print(r.dtype, int(r.min()) >= 250, s.dtype, int(s.min()) < 0 < int(s.max()), "
        "b.dtype, sorted(set(b.tolist())))\n")
    assert out == "torch.uint8 True torch.int8 True torch.bool [False, True]\n"


# ---------------------------------------------------------------------- index tensors

INDEX_DTYPES = ["int8", "int16", "uint16", "uint32", "uint64"]
INDEXINGS = ["x[t]", "x[t, None]", "x[[t]]", "x.index_put((t,), torch.tensor(1.))",
             "x.index_put((t,), torch.ones(2), accumulate=True)"]


@pytest.mark.parametrize("dtype", INDEX_DTYPES)
@pytest.mark.parametrize("indexing", INDEXINGS)
def test_index_tensors_of_other_integer_types_are_refused(dtype, indexing, oracle):
    """Advanced indexing took a tensor of any integer type as positions, cast to int64: a
    uint64 index 2 ** 64 - 1 (a NumPy array's, torch.from_numpy) wrapped to -1, `x[t]` the
    last element.  Expected: PyTorch's refusal of all but long, int, byte and bool tensors."""
    _assert_pytorchs(oracle, f"t = torch.from_numpy(np.array([1, 2 ** 64 - 1 if '{dtype}' == "
                             f"'uint64' else 2], dtype=np.{dtype}))\nx = torch.arange(5.)\n"
                             f"r = {indexing}\n")


BYTE_MASKS = ["x.index_put((m,), torch.tensor(7.))",
              "x.index_put((m,), torch.tensor(7.), accumulate=True)",
              "x.index_put((m,), torch.tensor([7., 8.]))",
              "x.index_put_((m,), torch.tensor([7., 8.]), accumulate=True)",
              "x[m]"]


@pytest.mark.parametrize("source", BYTE_MASKS, ids=range(len(BYTE_MASKS)))
def test_index_put_takes_a_byte_tensor_as_a_mask(source, oracle):
    """index_put took a uint8 index tensor as positions: `[0, 0, 1, 0, 1]` put its value at 0
    and 1 (accumulate=True: 3 times at 0); PyTorch takes it as a mask (positions 2 and 4), or,
    for a 0-d value without accumulate, refuses it as masked_fill_ does."""
    _assert_pytorchs(oracle, "m = torch.tensor([0, 0, 1, 0, 1], dtype=torch.uint8)\n"
                             f"x = torch.zeros(5)\nr = {source}\nprint(r)\n",
                     on_stderr=[UINT8_INDEX])


NUMPY_INDICES = [("uint64", [1, 2 ** 64 - 1]), ("uint32", [3, 0]), ("int8", [-1, 2]),
                 ("int16", [4, -5]), ("uint16", [0, 4])]


@pytest.mark.parametrize("dtype, values", NUMPY_INDICES, ids=[d for d, _ in NUMPY_INDICES])
def test_numpy_arrays_of_any_integer_type_still_index(dtype, values, oracle):
    """A NumPy array in an index is data, not a tensor: PyTorch makes it a long tensor (a
    uint64 2 ** 64 - 1 wrapping to -1, as NumPy's cast).  (The refusal of
    other index tensors' types must not reach it.)"""
    _assert_pytorchs(oracle, f"a = np.array({values}, dtype=np.{dtype})\n"
                             "x = torch.arange(5.)\ny = x.clone()\ny[a] = torch.tensor([9.])\n"
                             "print(x[a].tolist(), y.tolist(), x[a, None].shape)\n")


def test_long_and_int_index_tensors_still_index():
    assert program_output(
        "import torch\nx = torch.arange(5.)\n"
        "print(x[torch.tensor([4, -1], dtype=torch.int32)].tolist(), "
        "x[torch.tensor([1, 3])].tolist(), x.index_put((torch.tensor([0]),), torch.tensor(9.))"
        ".tolist())\n") == "[4.0, 4.0] [1.0, 3.0] [9.0, 1.0, 2.0, 3.0, 4.0]\n"


# ---------------------------------------------------------------------- interpolate

def test_interpolate_antialias_is_not_ignored(oracle):
    """F.interpolate(mode='bilinear', antialias=True) gave plain bilinear's values (antialias
    refused only in the modes gradcli had not): a wrong result, a downsampling without its
    filter.  gradcli now has the filter: PyTorch's values, to the bit."""
    source = ("x = torch.arange(24.).reshape(1, 2, 3, 4)\n"
              "r = torch.nn.functional.interpolate(x, scale_factor=(1.5, 0.75), mode='bilinear', "
              "antialias=True)\nprint(r.tolist())\n")
    assert _ours(source) == _pytorchs(oracle, source)


# ---------------------------------------------------------------------- group_norm

GROUP_NORMS = ["F.group_norm(x, 2, torch.ones(4, requires_grad=True), torch.zeros(4))",
               "F.group_norm(x, 2)", "torch.nn.GroupNorm(2, 4)(x)"]


@pytest.mark.parametrize("source", GROUP_NORMS, ids=range(len(GROUP_NORMS)))
def test_group_norm_of_an_empty_batch(source, oracle):
    """group_norm of a batch of 0 samples ended in NumPy's `ValueError: cannot reshape array of
    size 0 into shape (0,newaxis)` (its rows reshaped with -1).  Expected: PyTorch's empty
    result and gradients."""
    _assert_pytorchs(oracle, "F = torch.nn.functional\n"
                             "x = torch.ones(0, 4, 3, requires_grad=True)\n"
                             f"y = {source}\ny.sum().backward()\n"
                             "print(y.shape, x.grad.shape)\n")


# ---------------------------------------------------------------------- random out= in vmap

VMAP_OUTS = ["torch.vmap(lambda t: torch.rand(4, out=o), randomness='different')(x)",
             "torch.vmap(lambda t: torch.rand(4, out=t), randomness='same')(x)",
             "torch.vmap(lambda t: torch.randn(4, out=t), randomness='different')(x)",
             "torch.vmap(lambda t: torch.randint(10, (4,), out=t), randomness='different')(x)",
             "torch.vmap(lambda t: torch.randn(4, out=o), randomness='error')(x)",
             "torch.vmap(lambda t: torch.bernoulli(t, out=o), randomness='same')(x)",
             "torch.vmap(lambda t: torch.randperm(4, out=o.long()), randomness='same')(x)"]


@pytest.mark.parametrize("source", VMAP_OUTS, ids=range(len(VMAP_OUTS)))
def test_random_out_variants_are_refused_inside_vmap(source, oracle):
    """A random function's out= inside vmap wrote each sample's draw into one tensor (an
    unbatched `o`: the batch's draws all `o`'s last one, whatever randomness said), or a
    sample's own row.  Expected: PyTorch's refusal of the out variants inside vmap."""
    _assert_pytorchs(oracle, "x = torch.full((3, 4), 0.5)\no = torch.ones(4)\n"
                             f"r = {source}\n")


# ---------------------------------------------------------------------- empty batches

EMPTY_BATCHES = [
    "F.adaptive_avg_pool1d(x[:, :, 0, 0], 3)", "F.adaptive_max_pool1d(x[:, :, 0, 0], 3)",
    "F.adaptive_avg_pool2d(x[:, :, 0], 3)", "F.adaptive_max_pool2d(x[:, :, 0], (2, 4))",
    "F.adaptive_avg_pool3d(x, (1, 5, 2))", "F.adaptive_max_pool3d(x, 3)",
    "F.max_pool2d(x[:, :, 0], 2)", "F.max_pool3d(x, 2)",
    "F.interpolate(x[:, :, 0], size=(5, 7), mode='bilinear')",
    "F.interpolate(x[:, :, 0, 0], size=10 ** 6, mode='linear')",
    "F.interpolate(x, size=(10 ** 6, 1, 1))"]


@pytest.mark.parametrize("source", EMPTY_BATCHES, ids=range(len(EMPTY_BATCHES)))
def test_pooling_and_upsampling_of_an_empty_batch(source, oracle):
    """Adaptive pooling of a batch of 0 samples (and the backward of max pooling's) ended in
    NumPy's `ValueError: cannot reshape array of size 0 into shape (0,1,newaxis)` or an
    IndexError.  Expected: PyTorch's empty result and gradients."""
    _assert_pytorchs(oracle, "F = torch.nn.functional\n"
                             "x = torch.ones(0, 2, 3, 4, 5, requires_grad=True)\n"
                             f"y = {source}\ny.sum().backward()\n"
                             "print(y.shape, x.grad.shape)\n")


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_upsampling_an_empty_batch_makes_no_sources(mode):
    """interpolate made each dim's source indices and weights for the output size asked, also
    for an empty batch, whose result (0 elements) the element limit passes:
    `size=10 ** 9` made an 8 GB array (past the limit, past any memory), `10 ** 12` failed
    with NumPy's `Unable to allocate 3.64 TiB`.  Expected: the empty result, nothing made."""
    from processes import traced_peak
    setup = "import torch\nF = torch.nn.functional\nx = torch.ones(0, 1, 2)\n"
    peak = traced_peak(setup, f"r = F.interpolate(x, size=10 ** 6, mode='{mode}')\n"
                              f"r = F.interpolate(x, size=10 ** 12, mode='{mode}')\n")
    assert peak < 1_000_000, f"{peak:,} bytes"


@pytest.mark.parametrize("pool", ["adaptive_avg_pool1d", "adaptive_max_pool1d"])
def test_adaptive_windows_are_arrays(pool):
    """The adaptive windows were a Python list of (start, end) tuples, 100 bytes and 0.3 us
    each: 10 ** 6 windows over 2 elements 112 MB (and 3 s), 10 ** 8 (within the element limit)
    some 12 GB for a result of 400 MB.  Expected: NumPy arrays of the bounds, some 40 bytes a
    window in all."""
    from processes import traced_peak
    peak = traced_peak("import torch\nF = torch.nn.functional\nx = torch.ones(1, 1, 2)\n"
                       f"F.{pool}(x, 3)\n", f"r = F.{pool}(x, 10 ** 6)\n")
    assert peak < 80_000_000, f"{peak:,} bytes"


GROUP_NORM_HALF_AFFINE = [
    "F.group_norm(x, 2, w)", "F.group_norm(x, 2, None, w)", "F.group_norm(x, 2, weight=w)"]


@pytest.mark.parametrize("source", GROUP_NORM_HALF_AFFINE, ids=range(len(GROUP_NORM_HALF_AFFINE)))
def test_group_norm_with_a_weight_or_a_bias_alone(source, oracle):
    """group_norm with a weight and no bias (or a bias and no weight) reshaped the missing one,
    None: NumPy's `ValueError: cannot reshape array of size 1 into shape (1,2,newaxis)`, for
    every such call.  Expected: PyTorch's values (its kernel takes 1 and 0 for them), and the
    weight's gradients, first and second order."""
    setup = ("F = torch.nn.functional\n"
             "x = torch.linspace(-1, 2, 24, dtype=torch.float64).reshape(2, 4, 3)"
             ".requires_grad_()\nw = torch.linspace(0.5, 2, 4, dtype=torch.float64)"
             ".requires_grad_()\n")
    code = f"y = {source}\nprint(y.tolist())\n"
    if "None" not in source:  # (PyTorch's backward of a bias alone fails: no device)
        code += ("g = torch.autograd.grad((y * y.exp()).sum(), [x, w], create_graph=True)\n"
                 "print([t.tolist() for t in g])\n"
                 "print([t.tolist() for t in torch.autograd.grad(g[0].pow(2).sum(), [x, w])])\n")
    ours, theirs = _ours(setup + code), _pytorchs(oracle, setup + code)
    assert ours[0] == theirs[0] == "output", (ours, theirs)
    assert _numbers(ours[1]) == pytest.approx(_numbers(theirs[1]), rel=1e-9, abs=1e-9)
    assert len(_numbers(ours[1])) == (24 if "None" in source else 24 + 24 + 4 + 24 + 4)


def _numbers(text):
    """The numbers of printed (nested) lists, one flat list."""
    def flat(v):
        return [x for item in v for x in flat(item)] if isinstance(v, list) else [v]
    return flat([ast.literal_eval(line) for line in text.splitlines()])


# ---------------------------------------------------------------------- fills' out=

FILL_OUTS = ["torch.zeros(3, out=x)", "torch.ones(3, out=x.long())", "torch.empty(4, out=x).zero_()",
             "torch.zeros(3, out=x, dtype=torch.float64)", "torch.ones(3, out=b[::2])",
             "torch.zeros(3, out=w)", "torch.ones((2, 2), out=x)"]


@pytest.mark.parametrize("source", FILL_OUTS, ids=range(len(FILL_OUTS)))
def test_zeros_ones_and_empty_write_their_out(source, oracle):
    """torch.zeros, ones and empty took out= and ignored it: `torch.zeros(3, out=x)` returned a
    new tensor and left x as it was (a wrong result wherever x is used next), also an out of
    another dtype or one that requires grad.  Expected: PyTorch's out= (the values written
    into out, resized; its dtype and autograd errors)."""
    _assert_pytorchs(oracle, "x = torch.full((3,), 5.)\nb = torch.full((6,), 5.)\n"
                             "w = torch.ones(3, requires_grad=True)\n"
                             f"r = {source}\nprint(r.tolist(), x.tolist(), b.tolist(), "
                             "r.shape, r.dtype)\n")


OUT_LEAVES = ["torch.rand(3, out=x)", "torch.randint(5, (3,), out=x)", "torch.zeros(3, out=x)",
              "torch.normal(0., 1., (3,), out=x)", "torch.randperm(3, out=x)",
              "torch.rand(3, out=x, requires_grad=True)", "torch.bernoulli(p, out=x)",
              "torch.normal(p, 1., out=x)"]


@pytest.mark.parametrize("source", OUT_LEAVES, ids=range(len(OUT_LEAVES)))
def test_a_factory_sets_its_out_leafs_requires_grad(source, oracle):
    """Under no_grad, a factory's out= that is a leaf requiring grad kept requiring grad: its
    random values then a leaf of the program's graphs.  PyTorch's factory sets the out leaf's
    requires_grad to its requires_grad= argument (False by default); a function of tensors
    (bernoulli, normal of a tensor) leaves it."""
    _assert_pytorchs(oracle, "x = torch.ones(3, requires_grad=True)\np = torch.full((3,), .5)\n"
                             f"with torch.no_grad():\n    r = {source}\n"
                             "print(x.requires_grad, x.is_leaf, r is x)\n")


IGNORED_OUTS = ["F.normalize(torch.tensor([[3., 4.]]), out=o)",
                "torch.linalg.multi_dot([torch.eye(2), torch.eye(2) * 2], out=o)",
                "torch.linalg.pinv(torch.eye(2) * 2, out=o)",
                "torch.linalg.solve_triangular(torch.eye(2) * 2, torch.ones(2, 2), upper=True, "
                "out=o)"]


@pytest.mark.parametrize("source", IGNORED_OUTS, ids=range(len(IGNORED_OUTS)))
def test_an_out_is_written_or_refused(source):
    """F.normalize, linalg.multi_dot, pinv and solve_triangular took out= and ignored it (o
    left as it was, the result a new tensor).  Expected: out= refused, as gradcli's other ops
    without it refuse it (a TypeError), or written as PyTorch writes it."""
    from gradcli.lang.errors import ProgramError
    try:
        out = program_output(f"import torch\nF = torch.nn.functional\no = torch.zeros(2, 2)\n"
                             f"r = {source}\nprint(r is o, o.abs().sum().item() > 0)\n")
    except ProgramError as e:
        assert e.format()[0].endswith("got an unexpected keyword argument 'out'"), e.format()
    else:
        assert out == "True True\n", out


# ---------------------------------------------------------------------- nan through activations

NAN_ACTIVATIONS = ["F.softshrink(x, 0.5)", "F.hardshrink(x, 0.5)", "F.threshold(x, 0.5, -1.)",
                   "torch.nn.Softshrink(0.)(x)", "torch.nn.Hardshrink(0.)(x)",
                   "torch.nn.Threshold(0.1, 20.)(x)"]


@pytest.mark.parametrize("source", NAN_ACTIVATIONS, ids=range(len(NAN_ACTIVATIONS)))
def test_shrinks_and_threshold_keep_nan(source, oracle):
    """softshrink and hardshrink gave 0 for nan (and softshrink 0. for -0.3, PyTorch's -0.),
    threshold gave its value: their comparisons were `|x| > lambd` and `x > threshold`, false
    for nan.  Their gradients at nan were 0.  Expected: PyTorch's kernels' (nan stays nan,
    `a * 0` between softshrink's bounds) and its gradients (grad at nan)."""
    _assert_pytorchs(oracle, "F = torch.nn.functional\n"
                             "x = torch.tensor([float('nan'), -0.3, 0.3, -0.0, 0.0, float('inf'), "
                             "-float('inf'), 2.], requires_grad=True)\n"
                             f"y = {source}\ny.sum().backward()\n"
                             "print(y.tolist(), x.grad.tolist())\n")


NAN_SIGNS = ["torch.sign(x)", "torch.sgn(x).detach()", "x.abs()", "torch.dist(x, torch.zeros(5), 1)",
             "torch.linalg.vector_norm(x, 1)"]


@pytest.mark.parametrize("source", NAN_SIGNS, ids=range(len(NAN_SIGNS)))
def test_sign_of_nan_and_gradients_at_nan(source, oracle):
    """torch.sign(nan) is 0 in PyTorch ((0 < a) - (a < 0), in its vectorized kernel and its
    scalar one alike); gradcli gave NumPy's nan, and so abs's gradient (grad * sgn) and the
    1-norms' at nan were nan, not 0."""
    _assert_pytorchs(oracle, "F = torch.nn.functional\n"
                             "x = torch.tensor([float('nan'), -0.3, -0.0, 0.7, -2.], "
                             "dtype=torch.float64, requires_grad=True)\n"
                             f"y = {source}\nprint(y.tolist())\n"
                             "if y.requires_grad:\n    y.sum().backward()\n"
                             "    print(x.grad.tolist())\n")
