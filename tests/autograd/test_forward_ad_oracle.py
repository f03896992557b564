"""Forward-mode AD where a tangent is missing, against PyTorch: an op of a dual tensor and
plain tensors, unpack_dual of results with and without a tangent, ops whose tangent is zeros
(sgn, sign, floor), ops without a forward derivative (heaviside, in-place acosh_), and the
jvp of torch.autograd.functional and torch.func of functions whose outputs do not depend on
the input, or are integers."""

import numpy as np
import pytest

import gradcli

X = [0.5, -1.0, 2.0]
T = [1.0, 2.0, 3.0]
Y = [3.0, 4.0, 5.0]

DUAL_CASES = {
    "mul_plain": lambda lib, d, y: d * y, "plain_mul": lambda lib, d, y: y * d,
    "add_plain": lambda lib, d, y: d + y, "atan2_plain": lambda lib, d, y: lib.atan2(y, d),
    "plain_only": lambda lib, d, y: y.sin(), "plain_itself": lambda lib, d, y: y,
    "detach": lambda lib, d, y: d.detach(), "where": lambda lib, d, y: lib.where(y > 3.5, d, y),
    "pow_plain_base": lambda lib, d, y: y ** d, "cat": lambda lib, d, y: lib.cat([d, y]),
    "stack": lambda lib, d, y: lib.stack([y, d]),
    "maximum": lambda lib, d, y: lib.maximum(d, y),
    "sub_alpha": lambda lib, d, y: lib.sub(y, d, alpha=2),
    "lerp_end": lambda lib, d, y: lib.lerp(y, d, 0.3),
    "lerp_weight": lambda lib, d, y: lib.lerp(y, y * 2, d),
    "addcmul": lambda lib, d, y: lib.addcmul(y, y, d),
    "copy_into_plain": lambda lib, d, y: y.clone().copy_(d),
    "inplace_on_plain": lambda lib, d, y: y.clone().mul_(d),
    "inplace_on_dual": lambda lib, d, y: (d * 1).mul_(y),
    "zeros_like": lambda lib, d, y: lib.zeros_like(d),
    "sum_plain": lambda lib, d, y: (y * 2).sum(),
    "masked_fill_value": lambda lib, d, y: y.masked_fill(y > 3.5, d.sum()),
    "dot": lambda lib, d, y: lib.dot(y, d), "var_mean": lambda lib, d, y: lib.var_mean(d),
    "sign": lambda lib, d, y: d.sign(), "sgn": lambda lib, d, y: d.sgn(),
    "floor": lambda lib, d, y: d.floor(), "gt": lambda lib, d, y: d > 0,
    "argmax": lambda lib, d, y: d.argmax(), "max_dim": lambda lib, d, y: lib.max(d[None], 1),
    "sort": lambda lib, d, y: lib.sort(d), "aminmax": lambda lib, d, y: lib.aminmax(d),
    "heaviside": lambda lib, d, y: lib.heaviside(d, y),
    "acosh_": lambda lib, d, y: (d.abs() + 1.5).acosh_(),
    "detach_times_dual": lambda lib, d, y: d.detach() * d,
    "to_float32": lambda lib, d, y: d.to(lib.float32),
}


def _value(t):
    if t is None:
        return None
    return [str(t.dtype), np.asarray(t.tolist(), dtype=np.float64)]


def _error(e):
    return [type(e).__name__, str(e).split("\n")[0]]


def dual_case(lib, name):
    fw = lib.autograd.forward_ad
    x, t, y = (lib.tensor(v, dtype=lib.float64) for v in (X, T, Y))
    with fw.dual_level():
        d = fw.make_dual(x, t)
        try:
            result = DUAL_CASES[name](lib, d, y)
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            return _error(e)
        results = result if isinstance(result, tuple) else (result,)
        report = []
        for r in results:
            unpacked = fw.unpack_dual(r)
            report.append([_value(unpacked.primal), _value(unpacked.tangent),
                           unpacked.primal is r])
        plain = fw.unpack_dual(y)
        report.append([plain.tangent is None, plain.primal is y])
    return report


@pytest.mark.parametrize("name", sorted(DUAL_CASES))
def test_forward_ad_of_partly_dual_ops_matches_pytorch(name, oracle):
    ours, theirs = dual_case(gradcli, name), oracle(lambda torch: dual_case(torch, name))
    assert repr(ours) == repr(theirs)


JVP_FUNCTIONS = {
    "constant": lambda y: lambda a: y * 2, "identity": lambda y: lambda a: a,
    "pair": lambda y: lambda a: (a * 2, y), "mixed": lambda y: lambda a: a * y,
    "detached": lambda y: lambda a: a.detach() * 2, "sign": lambda y: lambda a: a.sign(),
    "integers": lambda y: lambda a: (a > 0).long(),
}


def jvp_case(lib, name, api):
    x, v, y = (lib.tensor(w, dtype=lib.float64) for w in (X, T, Y))
    f = JVP_FUNCTIONS[name](y)
    try:
        if api == "functional":
            out = lib.autograd.functional.jvp(f, x, v)
        elif api == "functional_strict":
            out = lib.autograd.functional.jvp(f, x, v, strict=True)
        else:
            out = lib.func.jvp(f, (x,), (v,))
    except Exception as e:  # noqa: BLE001
        return _error(e)

    def show(r):
        if isinstance(r, tuple):
            return [show(q) for q in r]
        return [_value(r), r.requires_grad]
    return show(out)


@pytest.mark.parametrize("api", ["functional", "functional_strict", "func"])
@pytest.mark.parametrize("name", sorted(JVP_FUNCTIONS))
def test_jvp_of_outputs_without_a_tangent_matches_pytorch(name, api, oracle):
    ours, theirs = jvp_case(gradcli, name, api), oracle(lambda torch: jvp_case(torch, name, api))
    assert repr(ours) == repr(theirs)
