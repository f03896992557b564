"""Red team, round 11: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session, no evaluator): random
integers outside their dtype, index tensors of the types PyTorch refuses, interpolate's
antialias, group_norm of an empty batch."""

import ast

import pytest
from processes import program_output


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


def _assert_pytorchs(oracle, source):
    assert _ours(source) == _pytorchs(oracle, source)


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
                             f"x = torch.zeros(5)\nr = {source}\nprint(r)\n")


def test_long_and_int_index_tensors_still_index():
    assert program_output(
        "import torch\nx = torch.arange(5.)\n"
        "print(x[torch.tensor([4, -1], dtype=torch.int32)].tolist(), "
        "x[torch.tensor([1, 3])].tolist(), x.index_put((torch.tensor([0]),), torch.tensor(9.))"
        ".tolist())\n") == "[4.0, 4.0] [1.0, 3.0] [9.0, 1.0, 2.0, 3.0, 4.0]\n"


# ---------------------------------------------------------------------- interpolate

def test_interpolate_antialias_is_not_ignored(oracle):
    """F.interpolate(mode='bilinear', antialias=True) gave plain bilinear's values (antialias
    refused only in the modes gradcli has not): a wrong result, a downsampling without its
    filter.  Expected: PyTorch's values, or gradcli's NotImplementedError until it has them."""
    source = ("x = torch.arange(24.).reshape(1, 2, 3, 4)\n"
              "r = torch.nn.functional.interpolate(x, scale_factor=(1.5, 0.75), mode='bilinear', "
              "antialias=True)\nprint(r.tolist())\n")
    ours = _ours(source)
    if ours[0] == "error":
        assert ours[1].startswith("NotImplementedError: gradcli: interpolate's mode 'bilinear' "
                                  "with antialias is not supported"), ours
    else:
        theirs = _pytorchs(oracle, source)
        assert ast.literal_eval(ours[1]) == pytest.approx(ast.literal_eval(theirs[1]))


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
