"""Random ops on uint16, uint32 and uint64 tensors as PyTorch 2.13 runs them: random_(to) and
random_(from, to) draw what they draw for the other integer dtypes, random_() is refused
("random_kernel_cpu"), as are bernoulli (scalar and tensor p: "bernoulli_scalar_cpu_",
"bernoulli_tensor_cpu_self_") and geometric_ ("geometric_cpu"), which take uint8; bounds and
continuous-distribution errors name the C++ type as PyTorch's typeid does ("short unsigned
int")."""

import pytest

import gradcli

CALLS = {
    "random_": "torch.zeros(4, dtype=d).random_()",
    "random_to": "torch.zeros(4, dtype=d).random_(5)",
    "random_from_to": "torch.zeros(4, dtype=d).random_(2, 9)",
    "random_big": "torch.zeros(4, dtype=d).random_(0, 2**31)",
    "random_negative": "torch.zeros(4, dtype=d).random_(-1, 5)",
    "bernoulli_scalar": "torch.zeros(4, dtype=d).bernoulli_(0.5)",
    "bernoulli_tensor": "torch.zeros(4, dtype=d).bernoulli_(torch.full((4,), .5))",
    "bernoulli": "torch.bernoulli(torch.zeros(4, dtype=d))",
    "geometric_": "torch.zeros(4, dtype=d).geometric_(0.5)",
    "cauchy_": "torch.zeros(4, dtype=d).cauchy_()",
    "exponential_": "torch.zeros(4, dtype=d).exponential_()",
    "randint": "torch.randint(0, 7, (4,), dtype=d)",
    "randint_like": "torch.randint_like(torch.zeros(4, dtype=d), 7)",
}


def _outcome(lib, dtype, call):
    lib.manual_seed(0)
    try:
        result = eval(call, {"torch": lib, "d": getattr(lib, dtype)})
    except Exception as e:
        return [type(e).__name__, str(e)]
    return ["value", result.tolist(), str(result.dtype)]


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_random_ops_on_unsigned_dtypes_are_pytorchs(name, dtype, oracle):
    call = CALLS[name]
    assert _outcome(gradcli, dtype, call) == oracle(lambda torch: _outcome(torch, dtype, call))
