"""In-place methods against PyTorch: a sweep of `x.op_(...)` on a non-leaf (and on views of
one), each compared with torch for the node and its edges, what the node saved (PyTorch's
original_self: where the formula reads the input before the write, `_saved_self` is a clone
made just after the node, grad_fn=<CloneBackward0>), the version counter, the gradients, a
later write to the result (the version-counter error PyTorch raises, or none: the clone is not
the result), the graph of a create_graph gradient and the second derivative.

The graphs of create_graph gradients are compared for all cases but those of
NOT_DOUBLE_GRAPH, whose values only would be compared.  Not compared: index_add's saved
source (PyTorch saves the tensor and its dim, gradcli its shape) and saved shapes
(_sym_sizes)."""

import numpy as np
import pytest

import gradcli
from op_oracle import assert_matches


X = [[0.5, -0.2, 0.7], [-0.3, 0.8, 0.25]]
O = [[1.5, 0.6, -0.9], [0.4, -1.1, 2.0]]
Q = [[0.3, -0.2, 0.1], [0.5, 0.4, -0.6], [0.2, 0.9, 0.7]]

CALLS = {
    "abs_": "a.abs_()", "acos_": "a.acos_()", "acosh_": "(a.abs() + 1.5).acosh_()",
    "asin_": "a.asin_()", "asinh_": "a.asinh_()", "atan_": "a.atan_()", "atanh_": "a.atanh_()",
    "cos_": "a.cos_()", "cosh_": "a.cosh_()", "sin_": "a.sin_()", "sinh_": "a.sinh_()",
    "tan_": "a.tan_()", "tanh_": "a.tanh_()", "sigmoid_": "a.sigmoid_()", "exp_": "a.exp_()",
    "exp2_": "a.exp2_()", "expm1_": "a.expm1_()", "log_": "(a.abs() + 0.1).log_()",
    "log10_": "(a.abs() + 0.1).log10_()", "log1p_": "a.log1p_()",
    "log2_": "(a.abs() + 0.1).log2_()", "sqrt_": "(a.abs() + 0.1).sqrt_()",
    "rsqrt_": "(a.abs() + 0.1).rsqrt_()", "reciprocal_": "a.reciprocal_()", "erf_": "a.erf_()",
    "erfc_": "a.erfc_()", "erfinv_": "a.erfinv_()", "digamma_": "(a.abs() + 0.5).digamma_()",
    "lgamma_": "(a.abs() + 0.5).lgamma_()", "logit_": "(a.abs() * 0.5 + 0.1).logit_()",
    "logit_eps": "a.abs().logit_(0.1)", "sinc_": "a.sinc_()", "square_": "a.square_()",
    "neg_": "a.neg_()", "sign_": "a.sign_()", "relu_": "a.relu_()", "frac_": "a.frac_()",
    "trunc_": "a.trunc_()", "round_": "a.round_()", "deg2rad_": "a.deg2rad_()",
    "rad2deg_": "a.rad2deg_()", "nan_to_num_": "a.nan_to_num_()", "pow_scalar": "a.pow_(3)",
    "pow_scalar2": "a.pow_(2)", "pow_tensor": "(a.abs() + 0.1).pow_(o)", "mul_": "a.mul_(o)",
    "mul_const": "a.mul_(c)", "mul_scalar": "a.mul_(3.0)", "mul_self": "a.mul_(a)",
    "div_": "a.div_(o)", "div_const": "a.div_(c)", "div_scalar": "a.div_(3.0)",
    "add_": "a.add_(o)", "add_alpha": "a.add_(o, alpha=2)", "sub_": "a.sub_(o)",
    "addcmul_": "a.addcmul_(o, o, value=0.5)", "addcdiv_": "a.addcdiv_(o, o + 3, value=0.5)",
    "atan2_": "a.atan2_(o)", "hypot_": "a.hypot_(o)", "copysign_": "a.copysign_(o)",
    "copysign_s": "a.copysign_(-1.0)", "fmod_": "a.fmod_(o)", "fmod_s": "a.fmod_(0.3)",
    "remainder_": "a.remainder_(o)", "remainder_s": "a.remainder_(0.3)",
    "lerp_s": "a.lerp_(o, 0.3)", "lerp_t": "a.lerp_(o, o.sigmoid())",
    "xlogy_": "a.xlogy_(o.abs())", "xlogy_s": "a.xlogy_(2.0)",
    "clamp_": "a.clamp_(-0.25, 0.6)", "clamp_min_": "a.clamp_min_(0.1)",
    "clamp_max_": "a.clamp_max_(0.1)", "clamp_t": "a.clamp_(o * 0.1, o.abs() + 0.5)",
    "clamp_min_t": "a.clamp_min_(o * 0.1)", "clamp_max_t": "a.clamp_max_(o * 0.1)",
    "masked_fill_": "a.masked_fill_(o > 0, 0.5)", "masked_fill_t": "a.masked_fill_(o > 0, o.sum())",
    "copy_": "a.copy_(o)", "zero_": "a.zero_()", "fill_": "a.fill_(0.5)",
    "fill_t": "a.fill_(o.sum())", "floor_": "a.floor_()", "ceil_": "a.ceil_()",
    "cumsum_": "a.cumsum_(1)", "cumprod_": "a.cumprod_(1)",
    "cumprod_zeros": "a.relu().cumprod_(1)", "cumprod_size1": "a[:, :1].cumprod(1)",
    "abs_twice": "a.abs_().abs_()", "sin_then_mul": "a.sin_().mul_(o)",
    # on views: the node is the view's, rebased (CopySlices on the base)
    "square_view": "a[0].square_()", "sin_view": "a[:, 1].sin_()", "exp_view": "a.t().exp_()",
    "mul_view": "a[1].mul_(o[0])", "pow_view": "a[:, :2].pow_(3)",
    "sigmoid_view": "a[1].sigmoid_()", "view_of_view": "a.t()[1:].mul_(o.t()[1:])",
    "copy_view": "a[:, 0].copy_(o[:, 1])", "twice_view": "a[0].mul_(o[1]).exp_()",
    # no derivative: a NotImplemented node named for the in-place op (aten::floor_divide_)
    "floor_divide_": "a.floor_divide_(o)", "floor_divide": "a // o", "heaviside_": "a.heaviside_(o)",
    "div_floor_": "a.div_(o, rounding_mode='floor')", "div_trunc": "a.div(o, rounding_mode='trunc')",
    # the saved result, read only by a formula that does not run, is still checked
    "pow_tensor_const": "(a.abs() + 0.1).pow_(c)", "pow_const": "(a.abs() + 0.1).pow(c)",
    "copysign_into_const": "c.clone().copysign_(a)",
    # nn.functional's in-place activations, and views
    "hardtanh_": "F.hardtanh_(a, -0.2, 0.3)", "leaky_relu_": "F.leaky_relu(a, 0.2, inplace=True)",
    "threshold_": "F.threshold_(a, 0.1, -1.0)", "silu_": "F.silu(a, inplace=True)",
    "mish_": "F.mish(a, inplace=True)", "hardswish_": "F.hardswish(a, inplace=True)",
    "hardsigmoid_": "F.hardsigmoid(a * 4, inplace=True)", "relu6_": "F.relu6(a * 4, inplace=True)",
    "softplus_view": "F.softplus(a[0])", "sigmoid_t": "a.t().sigmoid_()", "tanh_view": "a[1].tanh_()",
    "F.elu_": "F.elu_(a, 0.5)", "F.elu_flag": "F.elu(a, 1.5, inplace=True)",
    "F.leaky_relu_": "F.leaky_relu_(a, 0.2)", "F.selu_": "F.selu_(a)",
    "F.celu_": "F.celu_(a, 0.5)", "F.celu_flag": "F.celu(a, inplace=True)",
    "F.relu_": "F.relu_(a)", "F.elu_view": "F.elu_(a[1])",
    "masked_scatter_": "a.masked_scatter_(o > 0, o * 3)",
    "masked_scatter_const": "a.masked_scatter_(o > 0, c)",
    "masked_scatter_bcast": "a.masked_scatter_(torch.tensor([True, False, True]), o.t())",
    "masked_scatter_view": "a[0].masked_scatter_(o[1] > 0, o[0])",
    "masked_scatter_into": "c.clone().masked_scatter_(o > 0, a)",
    "dropout_": "(torch.manual_seed(1), F.dropout(a, 0.4, inplace=True))[1]",
    "dropout_view": "(torch.manual_seed(2), F.dropout(a[:, 1:], 0.5, inplace=True))[1]",
    "alpha_dropout_": "(torch.manual_seed(3), F.alpha_dropout(a, 0.3, True, True))[1]",
    "relu_view": "a[:, 1].relu_()", "index_add_": "a.index_add_(1, torch.tensor([2, 0, 1]), o, alpha=0.5)",
    # item assignment through a basic index: CopySlices of a copy_ (or fill_) of the region
    "setitem": "a.__setitem__((0, 1), o[1, 1] * 2) or a",
    "setitem_slice": "a.__setitem__(slice(0, 1), o[1:] * o[1:]) or a",
    "setitem_broadcast": "a.__setitem__((slice(None), 1), o[0, 2]) or a",
    "setitem_number": "a.__setitem__((1, slice(1, None)), 0.5) or a",
}

# cases whose create_graph gradients do not build PyTorch's nodes yet (none now; the graphs
# are compared 6 nodes deep)
NOT_DOUBLE_GRAPH = set()
DOUBLE_GRAPH = set(CALLS) - NOT_DOUBLE_GRAPH


def _graph(fn, depth=0):
    if fn is None:
        return None
    if depth > 6:
        return fn.name()
    return (fn.name(),) + tuple(_graph(n, depth + 1) for n, _ in fn.next_functions)


def _seq(fn):
    return fn._sequence_nr() if hasattr(fn, "_sequence_nr") else fn._seq


def _value(t):
    return None if t is None else np.asarray(t.detach().tolist(), dtype=np.float64)


def _error(e):
    return [type(e).__name__, str(e).split("\n")[0]]


def run(lib, name):
    call = CALLS[name]
    x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    o = lib.tensor(O, dtype=lib.float64, requires_grad=True)
    c = lib.tensor(O, dtype=lib.float64)
    q = lib.tensor(Q, dtype=lib.float64, requires_grad=True)
    leaves = (x, o, q)

    def fresh():
        return eval(call, {"a": x * 1, "o": o, "c": c, "q": q, "torch": lib,
                           "F": lib.nn.functional})

    report = {}
    try:
        y = fresh()
    except Exception as e:  # noqa: BLE001 - the error is what we compare
        return {"error": _error(e)}
    fn = y.grad_fn
    report["graph"] = _graph(fn)
    saved = {}
    for key in sorted(dir(fn)) if fn is not None else ():
        if not key.startswith("_saved_") or key.endswith(("_sym_sizes", "_sym_strides")) or \
                key.startswith("_saved_source"):
            continue
        try:
            value = getattr(fn, key)
        except Exception as e:  # noqa: BLE001
            saved[key] = _error(e)
            continue
        if isinstance(value, lib.Tensor):
            node = value.grad_fn
            saved[key] = [None if node is None else node.name(),
                          None if node is None else _seq(node) > _seq(fn), value is y,
                          _value(value)]
        else:
            saved[key] = repr(value)
    report["saved"] = saved
    report["version"] = y._version
    try:
        grads = lib.autograd.grad(y.sum(), leaves, allow_unused=True, retain_graph=True)
        report["grads"] = [_value(g) for g in grads]
    except Exception as e:  # noqa: BLE001
        report["grads"] = _error(e)
    try:
        grads = lib.autograd.grad((y * y).sum(), leaves, allow_unused=True, create_graph=True)
        if name in DOUBLE_GRAPH:
            report["double graph"] = [None if g is None else _graph(g.grad_fn) for g in grads]
        gx = grads[0]
        if gx is not None and gx.requires_grad:
            second = lib.autograd.grad(gx.sum(), leaves, allow_unused=True)
            report["second"] = [_value(g) for g in second]
    except Exception as e:  # noqa: BLE001
        report["double"] = _error(e)
    y = fresh()
    try:
        y.add_(1.0)
        lib.autograd.grad(y.sum(), leaves, allow_unused=True)
        report["after a write"] = "ok"
    except Exception as e:  # noqa: BLE001
        report["after a write"] = _error(e)
    return report


@pytest.mark.parametrize("name", sorted(CALLS))
def test_inplace_method_matches_pytorch(name, oracle):
    assert_matches(run(gradcli, name), oracle(lambda torch: run(torch, name)), name,
                   rtol=1e-8)
