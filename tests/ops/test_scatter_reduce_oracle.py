"""scatter_reduce on random cases against PyTorch: shapes of one to three dimensions, a
negative or positive dim, an index smaller than self (or empty) and a src larger than the index,
every reduction with and without self, float32, float64 and int64, values with ties and zeros.
The forward values must be PyTorch's to the bit (float32 sums and products in PyTorch's order),
the float64 gradients of both inputs equal, and every error PyTorch raises on the way (in the
forward or the backward) the same, type and message."""

import numpy as np
import pytest

import gradcli

N_CASES = 60
REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def case(k):
    """Case k as plain data (the same on every machine)."""
    rng = np.random.default_rng(1000 + k)
    nd = int(rng.integers(1, 4))
    shape = [int(s) for s in rng.integers(1, 5, nd)]
    dim = int(rng.integers(-nd, nd))
    d = dim % nd
    ishape = [int(rng.integers(0 if i == d else 1, (6 if i == d else shape[i]) + 1))
              for i in range(nd)]
    sshape = [n + int(rng.integers(0, 2)) * (k % 4 == 0) for n in ishape]
    small = k % 3 == 0  # small integers: ties and zeros
    draw = ((lambda s: rng.integers(-2, 3, s).astype(float)) if small
            else (lambda s: np.round(rng.standard_normal(s), 3)))
    return {"self": draw(shape), "src": draw(sshape), "dim": dim,
            "index": rng.integers(0, shape[d], ishape),
            "weights": rng.standard_normal(shape), "reduce": REDUCTIONS[k % 5],
            "include_self": bool((k // 5) % 2), "dtype": ("float32", "float64", "int64")[k % 3]}


def run(lib, c):
    dtype = getattr(lib, c["dtype"])
    index = lib.tensor(c["index"].reshape(-1).tolist(), dtype=lib.int64).reshape(
        c["index"].shape)

    def tensor(a, dt, grad=False):
        return lib.tensor(a.reshape(-1).tolist(), dtype=dt).reshape(a.shape).requires_grad_(grad)

    out = {}
    try:
        y = lib.scatter_reduce(tensor(c["self"], dtype), c["dim"], index, tensor(c["src"], dtype),
                               c["reduce"], include_self=c["include_self"])
        out["value"] = np.asarray(y.tolist(), dtype=np.float64)
        if c["dtype"] != "int64":
            a = tensor(c["self"], lib.float64, True)
            s = tensor(c["src"], lib.float64, True)
            y = lib.scatter_reduce(a, c["dim"], index, s, c["reduce"],
                                   include_self=c["include_self"])
            grads = lib.autograd.grad((y * tensor(c["weights"], lib.float64)).sum(), (a, s))
            out["grads"] = [np.asarray(g.tolist(), dtype=np.float64) for g in grads]
    except Exception as e:  # noqa: BLE001 - the error is part of the answer
        out["error"] = [type(e).__name__, str(e)]
    return out


@pytest.mark.parametrize("k", range(N_CASES))
def test_scatter_reduce_matches_pytorch(k, oracle):
    c = case(k)
    expected = oracle(lambda torch: run(torch, c))
    got = run(gradcli, c)
    assert sorted(got) == sorted(expected), (got, expected)
    if "error" in expected:
        assert got["error"] == list(expected["error"])
    if "value" in expected:
        assert got["value"].tobytes() == np.asarray(expected["value"]).tobytes()
    for g, e in zip(got.get("grads", ()), expected.get("grads", ())):
        np.testing.assert_array_equal(g, e)
