"""NumPy arrays of uint16, uint32 and uint64 meeting tensors, and the tensors of those dtypes
PyTorch 2.13 makes of them (its "barebones" unsigned types: made, converted, viewed, printed;
no promotion with another integer type; no kernel of add, sub, pow, floor_divide, remainder,
maximum, ...).  Checked against torch (README "The oracle tests")."""

import pytest
from processes import gradcli_answer, torch_answer

T = "torch.ones(3)"
L = "torch.ones(3, dtype=torch.long)"
A = "np.array([1, 2, 3], dtype=np.{})"
CASES = {
    "t + a": f"r = {T} + np.array([1, 2, 3], dtype=np.uint16)",
    "a + t": f"r = np.array([1, 2, 3], dtype=np.uint16) + {T}",
    "uint32 a + long t": f"r = {A.format('uint32')} + {L}",
    "long t * uint64 a": f"r = {L} * {A.format('uint64')}",
    "uint8 t + uint16 a": f"r = torch.ones(3, dtype=torch.uint8) + {A.format('uint16')}",
    "t == a": f"r = {T} == np.array([1, 2, 3], dtype=np.uint32)",
    "t += a": f"t = {T}\nt += np.array([1, 2, 3], dtype=np.uint64)\nr = t",
    "torch.add(t, a)": f"r = torch.add({T}, np.array([1, 2, 3], dtype=np.uint16))",
    "from_numpy uint16": "r = torch.from_numpy(np.array([1, 2, 3], dtype=np.uint16))",
    "tensor uint32": "r = torch.tensor(np.array([[1, 2], [3, 4]], dtype=np.uint32)).t()",
    "as_tensor uint64": "r = torch.as_tensor(np.array([2 ** 64 - 1], dtype=np.uint64))",
    "repr": "r = repr(torch.tensor([1, 2, 3], dtype=torch.uint16))",
    "type": "r = torch.tensor([1], dtype=torch.uint32).type()",
    "overflow": "r = torch.tensor([70000], dtype=torch.uint16)",
    "iinfo": "r = str(torch.iinfo(torch.uint64))",
    "zeros": "r = torch.zeros(2, dtype=torch.uint64)",
    "to": "r = torch.tensor([1, 2], dtype=torch.uint16).to(torch.uint32)",
    "float": "r = torch.tensor([1, 2], dtype=torch.uint16).float() * 2",
    "numpy": "r = torch.tensor([1, 2], dtype=torch.uint32).numpy()",
    "tolist": "r = torch.tensor([1, 2], dtype=torch.uint64).tolist()",
    "promote with long": f"r = torch.tensor([1, 2, 3], dtype=torch.uint16) == {L}",
    "promote with bool": "r = torch.tensor([1], dtype=torch.uint64) + torch.tensor([True])",
    "promote uint32 and uint16": "r = torch.promote_types(torch.uint32, torch.uint16)",
    "promote with complex": "r = torch.promote_types(torch.uint16, torch.complex64)",
    "promote with half": "r = torch.promote_types(torch.uint32, torch.float16)",
    "with float": "r = torch.tensor([1], dtype=torch.uint16) + torch.ones(1)",
}
U = "torch.tensor([1, 2, 3], dtype=torch.{})"
for _name, _expression in {
        "a * a": "a * a", "a * 2": "a * 2", "a + a": "a + a", "a + 1": "a + 1", "1 + a": "1 + a",
        "a - 1": "a - 1", "1 - a": "1 - a", "a ** 2": "a ** 2", "a // a": "a // a",
        "a % 2": "a % 2", "maximum": "torch.maximum(a, a)", "minimum": "torch.minimum(a, a)",
        "div trunc": "torch.div(a, a, rounding_mode='trunc')", "a / a": "a / a",
        "sum": "a.sum()", "prod": "a.prod()", "cumsum": "a.cumsum(0)", "a & a": "a & a",
        "sqrt": "a.sqrt()", "cat": "torch.cat([a, a])", "slice": "a[1:]",
        "where": "torch.where(a == 2, a, a)", "add_": "a.add_(a)", "mul_": "a.mul_(a)",
        "clamp_min": "torch.clamp_min(a, a)", "fmod": "torch.fmod(a, 2)"}.items():
    for _dtype in ("uint16", "uint64"):
        CASES[f"{_name} {_dtype}"] = f"a = {U.format(_dtype)}\nr = {_expression}"


@pytest.mark.parametrize("source", CASES.values(), ids=CASES.keys())
def test_wide_unsigned_arrays_and_tensors_behave_as_in_pytorch(source, oracle):
    assert gradcli_answer(source) == oracle(lambda torch: torch_answer(torch, source))
