"""Gradients built with create_graph=True end in PyTorch's backward-of-backward nodes
(TanhBackwardBackward0, ThresholdBackwardBackward0, ...), as the ops of
gradcli/ops/backward_ops.py make them: for each activation and loss, against PyTorch, the grad_fn
graph (names and next_functions) and requires_grad of the first and second create_graph
gradients, and the values of the first, second and third derivatives (None where PyTorch gives
None, zeros where it gives zeros)."""

import numpy as np
import pytest

import gradcli
from op_oracle import assert_matches


X = [0.5, -1.2, 2.0]
X2 = [[0.5, -1.2, 2.0], [-0.3, 0.8, -2.5]]
PROBS = [0.2, 0.7, 1.0]


def _graph(fn, depth=0, max_depth=8):
    """A grad_fn and what it leads to, as nested tuples of names (None for a missing edge)."""
    if fn is None:
        return None
    name = fn.name().replace("torch::autograd::", "")
    if depth >= max_depth:
        return name
    return (name,) + tuple(_graph(n, depth + 1, max_depth) for n, _ in fn.next_functions)


def _name(t):
    return None if t is None or t.grad_fn is None else t.grad_fn.name()


def _value(t):
    # (+ 0.0: PyTorch's second derivative of abs is an efficient zero tensor, which tolist()
    # refuses; the sum is a plain tensor)
    return None if t is None else np.asarray((t.detach() + 0.0).tolist(), dtype=np.float64)


# name -> (f(lib, x, leaves) -> output, x, {leaf name: value}); leaves requiring grad besides x
CASES = {
    "tanh": (lambda lib, x, _: x.tanh(), X, {}),
    "sigmoid": (lambda lib, x, _: x.sigmoid(), X, {}),
    "relu": (lambda lib, x, _: x.relu(), X, {}),
    "relu_F": (lambda lib, x, _: lib.nn.functional.relu(x), X2, {}),
    "leaky_relu": (lambda lib, x, _: lib.nn.functional.leaky_relu(x, 0.1), X, {}),
    "leaky_relu_default": (lambda lib, x, _: lib.nn.functional.leaky_relu(x), X2, {}),
    "elu": (lambda lib, x, _: lib.nn.functional.elu(x), X, {}),
    "elu_alpha": (lambda lib, x, _: lib.nn.functional.elu(x, 0.5), X2, {}),
    "selu": (lambda lib, x, _: lib.nn.functional.selu(x), X, {}),
    "celu": (lambda lib, x, _: lib.nn.functional.celu(x, 0.5), X, {}),
    "gelu": (lambda lib, x, _: lib.nn.functional.gelu(x), X, {}),
    "gelu_tanh": (lambda lib, x, _: lib.nn.functional.gelu(x, approximate="tanh"), X2, {}),
    "softplus": (lambda lib, x, _: lib.nn.functional.softplus(x), X, {}),
    "softplus_beta": (lambda lib, x, _: lib.nn.functional.softplus(x, 2.0, 1.0), X, {}),
    "hardtanh": (lambda lib, x, _: lib.nn.functional.hardtanh(x), X, {}),
    "hardtanh_bounds": (lambda lib, x, _: lib.nn.functional.hardtanh(x, -0.5, 1.5), X2, {}),
    "relu6": (lambda lib, x, _: lib.nn.functional.relu6(x * 3), X, {}),
    "log_softmax": (lambda lib, x, _: lib.nn.functional.log_softmax(x, 0), X, {}),
    "log_softmax_dim1": (lambda lib, x, _: lib.nn.functional.log_softmax(x, 1), X2, {}),
    "softmax": (lambda lib, x, _: lib.nn.functional.softmax(x, 0), X, {}),
    "softmax_dim0": (lambda lib, x, _: lib.nn.functional.softmax(x, 0), X2, {}),
    "logsigmoid": (lambda lib, x, _: lib.nn.functional.logsigmoid(x), X, {}),
    "hardswish": (lambda lib, x, _: lib.nn.functional.hardswish(x * 2), X, {}),
    "mse_loss": (lambda lib, x, _: lib.nn.functional.mse_loss(x, lib.zeros(3, dtype=lib.float64)), X, {}),
    "mse_loss_target": (lambda lib, x, t: lib.nn.functional.mse_loss(x, t["target"]), X,
                        {"target": [0.1, 0.2, 0.3]}),
    "mse_loss_sum": (lambda lib, x, t: lib.nn.functional.mse_loss(x, t["target"], reduction="sum"),
                     X2, {"target": [[0.1, 0.2, 0.3], [1.0, -1.0, 0.0]]}),
    "mse_loss_none": (lambda lib, x, t: lib.nn.functional.mse_loss(
        x, t["target"], reduction="none"), X, {"target": [0.1, 0.2, 0.3]}),
    "bce": (lambda lib, x, _: lib.nn.functional.binary_cross_entropy(x.sigmoid(), lib.ones(3, dtype=lib.float64)),
            X, {}),
    "bce_target": (lambda lib, x, t: lib.nn.functional.binary_cross_entropy(
        x.sigmoid(), t["target"]), X, {"target": PROBS}),
    "bce_sum_weight": (lambda lib, x, t: lib.nn.functional.binary_cross_entropy(
        x.sigmoid(), t["target"], weight=lib.tensor([1.0, 2.0, 0.5], dtype=lib.float64),
        reduction="sum"), X, {"target": PROBS}),
    "bce_none": (lambda lib, x, t: lib.nn.functional.binary_cross_entropy(
        x.sigmoid(), t["target"], reduction="none"), X, {"target": PROBS}),
    "smooth_l1_loss": (lambda lib, x, _: lib.nn.functional.smooth_l1_loss(x, lib.zeros(3, dtype=lib.float64)), X, {}),
    "smooth_l1_loss_target": (lambda lib, x, t: lib.nn.functional.smooth_l1_loss(
        x, t["target"], beta=0.5, reduction="sum"), X, {"target": [0.1, 0.2, 0.3]}),
    "huber_loss": (lambda lib, x, _: lib.nn.functional.huber_loss(x, lib.zeros(3, dtype=lib.float64)), X, {}),
    "huber_loss_target": (lambda lib, x, t: lib.nn.functional.huber_loss(
        x, t["target"], delta=0.5, reduction="none"), X, {"target": [0.1, 0.2, 0.3]}),
    "threshold": (lambda lib, x, _: lib.nn.functional.threshold(x, 0.1, 20.0), X, {}),
    # in place: the backward reads the result (is_result=True), an edge to the in-place node
    "relu_inplace": (lambda lib, x, _: (x * 1).relu_(), X, {}),
    "leaky_relu_inplace": (lambda lib, x, _: lib.nn.functional.leaky_relu(x * 1, 0.1, True), X, {}),
    "elu_inplace": (lambda lib, x, _: lib.nn.functional.elu(x * 1, 0.5, True), X, {}),
    "selu_inplace": (lambda lib, x, _: lib.nn.functional.selu(x * 1, True), X, {}),
    "celu_inplace": (lambda lib, x, _: lib.nn.functional.celu(x * 1, 0.5, True), X, {}),
    "sigmoid_inplace": (lambda lib, x, _: (x * 1).sigmoid_(), X, {}),
    "tanh_inplace": (lambda lib, x, _: (x * 1).tanh_(), X, {}),
    # in place, the backward reading self: PyTorch saves self.clone() taken before the write
    # (original_self), so the second derivative goes through a CloneBackward0
    "hardtanh_inplace": (lambda lib, x, _: lib.nn.functional.hardtanh(x * 1, -0.5, 1.5, True),
                         X2, {}),
    "hardtanh_": (lambda lib, x, _: lib.nn.functional.hardtanh_(x * 2), X, {}),
    "relu6_inplace": (lambda lib, x, _: lib.nn.functional.relu6(x * 3, True), X, {}),
    "threshold_inplace": (lambda lib, x, _: lib.nn.functional.threshold(x * 1, 0.1, 20.0, True),
                          X, {}),
    "threshold_": (lambda lib, x, _: lib.nn.functional.threshold_(x * 1, 0.1, 20.0), X2, {}),
    "hardswish_inplace": (lambda lib, x, _: lib.nn.functional.hardswish(x * 2, True), X, {}),
    "silu": (lambda lib, x, _: lib.nn.functional.silu(x), X, {}),
    "silu_inplace": (lambda lib, x, _: lib.nn.functional.silu(x * 1, inplace=True), X, {}),
    "hardsigmoid": (lambda lib, x, _: lib.nn.functional.hardsigmoid(x * 3), X2, {}),
    "mish": (lambda lib, x, _: lib.nn.functional.mish(x), X, {}),
    "abs": (lambda lib, x, _: x.abs(), X2, {}),
    "erf": (lambda lib, x, _: x.erf(), X, {}),
    "erfc": (lambda lib, x, _: x.erfc(), X, {}),
    "rsqrt": (lambda lib, x, _: (x * x + 0.5).rsqrt(), X, {}),
    "atan2": (lambda lib, x, t: lib.atan2(x, t["other"]), X, {"other": [0.3, -0.4, 1.5]}),
    "atan2_other": (lambda lib, x, t: lib.atan2(t["other"], x), X2,
                    {"other": [[0.3, -0.4, 1.5], [1.0, 0.2, -0.7]]}),
    # index_add/index_copy: the source's gradient is index_select(...).expand_as(source)
    "index_add": (lambda lib, x, t: (x * 1).index_add_(0, lib.tensor([1, 0]), t["src"] * t["src"],
                                                      alpha=0.5), X2, {"src": X2}),
    "index_copy": (lambda lib, x, t: (x * 1).index_copy(1, lib.tensor([2, 0, 1]),
                                                        t["src"] * t["src"]), X2, {"src": X2}),
    # var_mean/std_mean: one node (VarMeanBackward0, StdMeanBackward0) for both outputs; its
    # formula adds only the parts of the outputs that received a gradient
    "var": (lambda lib, x, _: x.var(), X, {}),
    "var_dim": (lambda lib, x, _: x.var(1, keepdim=True), X2, {}),
    "std": (lambda lib, x, _: x.std(), X, {}),
    "std_dim": (lambda lib, x, _: x.std(0, correction=0), X2, {}),
    "var_mean": (lambda lib, x, _: _both(lib.var_mean(x)), X, {}),
    "var_mean_dim": (lambda lib, x, _: _both(lib.var_mean(x, 1)), X2, {}),
    "var_mean_keepdim": (lambda lib, x, _: _both(lib.var_mean(x, 0, keepdim=True, correction=0)),
                         X2, {}),
    "var_mean_var_only": (lambda lib, x, _: lib.var_mean(x, 1)[0], X2, {}),
    "var_mean_mean_only": (lambda lib, x, _: lib.var_mean(x, 1)[1], X2, {}),
    "std_mean": (lambda lib, x, _: _both(lib.std_mean(x)), X, {}),
    "std_mean_dim": (lambda lib, x, _: _both(lib.std_mean(x, 1)), X2, {}),
    "std_mean_keepdim": (lambda lib, x, _: _both(lib.std_mean(x, (0, 1), keepdim=True,
                                                              correction=2)), X2, {}),
    "std_mean_std_only": (lambda lib, x, _: lib.std_mean(x, 0, False)[0], X2, {}),
    "std_mean_mean_only": (lambda lib, x, _: lib.std_mean(x)[1], X, {}),
    # (a product of the two outputs: its MulBackward0 computes `other`'s gradient first)
    "var_mean_product": (lambda lib, x, _: _product(lib.var_mean(x, 1)), X2, {}),
    "std_mean_product": (lambda lib, x, _: _product(lib.std_mean(x)), X, {}),
}
NAMES = sorted(CASES)


def _both(pair):
    """Both outputs of var_mean/std_mean in one tensor."""
    return pair[0] * 3 + pair[1]


def _product(pair):
    return pair[0] * pair[1] + pair[0]


def run(lib, name, weighted):
    """Describe the first, second and third derivatives of case `name` in lib.

    weighted=False: g = d(f(x).sum())/dx, like the measurements in the task; weighted=True:
    the upstream gradient is a leaf v that requires grad (so the grad_output input of the
    backward op has an edge), and the second pass also differentiates with respect to v and the
    case's other leaves."""
    f, x_value, extra = CASES[name]
    x = lib.tensor(x_value, dtype=lib.float64, requires_grad=True)
    leaves = {k: lib.tensor(v, dtype=lib.float64, requires_grad=True) for k, v in extra.items()}
    y = f(lib, x, leaves)
    report = {"y": _graph(y.grad_fn, max_depth=3)}
    if weighted:
        v = lib.tensor(np.linspace(-1.0, 1.5, y.numel()).reshape(tuple(y.shape)).tolist(),
                       dtype=lib.float64, requires_grad=True)
        leaves["v"] = v
        wrt = [x] + list(leaves.values())
        grads = lib.autograd.grad(y, wrt, v, create_graph=True, allow_unused=True)
    else:
        wrt = [x] + list(leaves.values())
        grads = lib.autograd.grad(y.sum(), wrt, create_graph=True, allow_unused=True)
    g = grads[0]
    report["g"] = (_graph(g.grad_fn), g.requires_grad, _value(g))
    report["g other"] = [(_name(t), None if t is None else t.requires_grad, _value(t))
                         for t in grads[1:]]
    if not g.requires_grad:
        return report
    u = lib.tensor(np.linspace(0.5, 2.0, g.numel()).reshape(tuple(g.shape)).tolist(),
                   dtype=lib.float64)
    try:
        g2s = lib.autograd.grad((g * u).sum(), wrt, create_graph=True, allow_unused=True)
    except RuntimeError as e:  # (hardsigmoid_backward: PyTorch has no derivative for it)
        report["g2 error"] = str(e)
        return report
    report["g2"] = [(_graph(t.grad_fn) if t is not None else None,
                     None if t is None else t.requires_grad, _value(t)) for t in g2s]
    g2 = g2s[0]
    if g2 is not None and g2.requires_grad:
        g3 = lib.autograd.grad(g2.sum(), wrt, allow_unused=True)
        report["g3"] = [_value(t) for t in g3]
    return report


@pytest.mark.parametrize("weighted", [False, True], ids=["sum", "weighted"])
@pytest.mark.parametrize("name", NAMES)
def test_double_backward_matches_pytorch(name, weighted, oracle):
    assert_matches(run(gradcli, name, weighted), oracle(lambda torch: run(torch, name, weighted)),
                   name, rtol=1e-9)


def _find(graph, name):
    """The first subgraph (depth first) whose node is called name."""
    if not isinstance(graph, tuple):
        return None
    if graph[0] == name:
        return graph
    for part in graph[1:]:
        found = _find(part, name)
        if found is not None:
            return found
    return None


VIEW_CASES = {
    "hardtanh_": ("HardtanhBackwardBackward0",
                  lambda F, v: F.hardtanh(v, -0.5, 1.5, inplace=True)),
    "relu6_": ("HardtanhBackwardBackward0", lambda F, v: F.relu6(v * 1, inplace=True)),
    "threshold_": ("ThresholdBackwardBackward0", lambda F, v: F.threshold_(v, 0.1, 20.0)),
}


@pytest.mark.parametrize("view", ["select", "slice", "t"])
@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_inplace_on_a_view_saves_a_clone_of_the_view(name, view, oracle):
    """On a view of a leaf's clone, the saved self is a clone of the view before the write:
    the second derivative reaches the view's own node through CloneBackward0; around it,
    the double backward of the base's CopySlices records PyTorch's steps (CopyBackwards,
    AsStridedBackward0, CloneBackward0, CopySlices of a new base), and the second and third
    derivatives are PyTorch's."""
    node, f = VIEW_CASES[name]
    take = {"select": lambda b: b[1], "slice": lambda b: b[:, 1:], "t": lambda b: b.t()}[view]

    def inner(lib):
        x = lib.tensor(X2, dtype=lib.float64, requires_grad=True)
        y = f(lib.nn.functional, take(x.clone()))
        saved = str(y.grad_fn._saved_self) if hasattr(y.grad_fn, "_saved_self") else None
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        graph = _graph(g.grad_fn, max_depth=12)
        g2, = lib.autograd.grad((g * g).sum(), x, create_graph=True)
        g3, = lib.autograd.grad(g2.sum(), x, allow_unused=True)
        return [_find(graph, node), graph, _graph(g2.grad_fn, max_depth=6), _value(g2),
                _value(g3), saved]

    assert_matches(inner(gradcli), oracle(inner), name, rtol=1e-9)


COPY_SLICES_CASES = {
    "sin_": lambda v, w: v.sin_(), "mul_": lambda v, w: v.mul_(w), "exp_": lambda v, w: v.exp_(),
    "pow_": lambda v, w: v.pow_(3), "copy_": lambda v, w: v.copy_(w * w),
    "addcmul_": lambda v, w: v.addcmul_(w, w, value=0.5), "twice": lambda v, w: v.mul_(w).sin_(),
    "setitem": lambda v, w: v.__setitem__(Ellipsis, w * w),
}


@pytest.mark.parametrize("view", ["select", "slice", "t", "view_of_view"])
@pytest.mark.parametrize("name", sorted(COPY_SLICES_CASES))
def test_double_backward_through_copy_slices_matches_pytorch(name, view, oracle):
    """A leaf's clone written in place through a view, then a create_graph gradient, then
    gradients of it: PyTorch's graph (CopySlices::apply_impl's steps, as_strided_backward's)
    and values, first to third order, for the leaf and the other operand."""
    take = {"select": lambda b: b[1], "slice": lambda b: b[:, 1:], "t": lambda b: b.t(),
            "view_of_view": lambda b: b[:, 1:][1]}[view]

    def inner(lib):
        x = lib.tensor(X2, dtype=lib.float64, requires_grad=True)
        base = x.clone()
        v = take(base)
        w = lib.tensor(np.linspace(0.5, 1.5, v.numel()).reshape(tuple(v.shape)).tolist(),
                       dtype=lib.float64, requires_grad=True)
        COPY_SLICES_CASES[name](v, w)
        g = lib.autograd.grad((base * base).sum(), (x, w), create_graph=True,
                              allow_unused=True)
        total = (g[0] * g[0]).sum() + (0.0 if g[1] is None else g[1].sum())
        g2 = lib.autograd.grad(total, (x, w), create_graph=True, allow_unused=True)
        g3 = lib.autograd.grad(sum(t.sum() for t in g2 if t is not None and t.requires_grad),
                               (x, w), allow_unused=True)
        return [[None if t is None else _graph(t.grad_fn, max_depth=10) for t in g],
                [_value(t) for t in g],
                [None if t is None else _graph(t.grad_fn, max_depth=6) for t in g2],
                [_value(t) for t in g2], [_value(t) for t in g3]]
    assert_matches(inner(gradcli), oracle(inner), name, rtol=1e-9)


# ------------------------------------------------------------------ the nodes themselves

FIRST_NODE = {
    "tanh": ("TanhBackwardBackward0", [None, "TanhBackward0"]),
    "sigmoid": ("SigmoidBackwardBackward0", [None, "SigmoidBackward0"]),
    "relu": ("ThresholdBackwardBackward0", [None, "ReluBackward0"]),
    "leaky_relu": ("LeakyReluBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
    "elu": ("EluBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
    "selu": ("EluBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
    "celu": ("EluBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
    "gelu": ("GeluBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
    "softplus": ("SoftplusBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
    "hardtanh": ("HardtanhBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
    "relu6": ("HardtanhBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
    "log_softmax": ("LogSoftmaxBackwardDataBackward0", [None, "LogSoftmaxBackward0"]),
    "softmax": ("SoftmaxBackwardDataBackward0", [None, "SoftmaxBackward0"]),
    "mse_loss": ("MseLossBackwardBackward0", [None, "torch::autograd::AccumulateGrad", None]),
    "bce": ("SigmoidBackwardBackward0", ["BinaryCrossEntropyBackwardBackward0",
                                         "SigmoidBackward0"]),
    "logsigmoid": ("LogSigmoidBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
    "smooth_l1_loss": ("SmoothL1LossBackwardBackward0",
                       [None, "torch::autograd::AccumulateGrad", None]),
    "huber_loss": ("HuberLossBackwardBackward0", [None, "torch::autograd::AccumulateGrad", None]),
    "hardswish": ("HardswishBackwardBackward0", [None, "torch::autograd::AccumulateGrad"]),
}


UNSCALED = {"relu6": lambda lib, x, _: lib.nn.functional.relu6(x),
            "hardswish": lambda lib, x, _: lib.nn.functional.hardswish(x)}


@pytest.mark.parametrize("name", sorted(FIRST_NODE))
def test_create_graph_gradient_ends_in_the_backward_node(name):
    """Without torch: the node names the task measured on tensor([0.5, -1.2, 2.0])."""
    f = UNSCALED.get(name, CASES[name][0])
    x = gradcli.tensor(X, dtype=gradcli.float64, requires_grad=True)
    g, = gradcli.autograd.grad(f(gradcli, x, {}).sum(), x, create_graph=True)
    node, edges = FIRST_NODE[name]
    assert g.requires_grad
    assert g.grad_fn.name() == node
    assert [None if fn is None else fn.name() for fn, _ in g.grad_fn.next_functions] == edges


def test_relu_create_graph_gradient_can_be_differentiated_again():
    x = gradcli.tensor([0.5, -1.2, 2.0], requires_grad=True)
    g, = gradcli.autograd.grad(x.relu().sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == "ThresholdBackwardBackward0"
    g.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("fn", [
    lambda F, x: F.leaky_relu(x, 0.1), lambda F, x: F.hardtanh(x), lambda F, x: F.relu6(x)],
    ids=["leaky_relu", "hardtanh", "relu6"])
def test_piecewise_linear_second_derivative_is_a_zero_tensor(fn):
    x = gradcli.tensor([0.5, -1.2, 2.0], requires_grad=True)
    g, = gradcli.autograd.grad(fn(gradcli.nn.functional, x).sum(), x, create_graph=True)
    g.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    g2, = gradcli.autograd.grad(g.sum(), x, allow_unused=True)
    assert g2 is not None and not g2.requires_grad and g2.tolist() == [0.0, 0.0, 0.0]


def test_backward_ops_are_internal_table_ops():
    from gradcli.ops import OPS
    for name in ["tanh_backward", "sigmoid_backward", "threshold_backward",
                 "leaky_relu_backward", "hardtanh_backward", "elu_backward", "gelu_backward",
                 "softplus_backward", "_log_softmax_backward_data", "_softmax_backward_data",
                 "mse_loss_backward", "binary_cross_entropy_backward", "log_sigmoid_backward",
                 "smooth_l1_loss_backward", "huber_loss_backward", "hardswish_backward"]:
        op = OPS[name]
        assert not op.public and not op.method and op.samples and op.differentiable
        assert not hasattr(gradcli, name)


# ------------------------------------------------------------------ the order of the formulas

ORDER_CASES = {
    "mul": lambda lib, a, b: a * b, "div": lambda lib, a, b: a / b,
    "pow": lambda lib, a, b: a ** b, "atan2": lambda lib, a, b: lib.atan2(a, b),
    "hypot": lambda lib, a, b: lib.hypot(a, b), "maximum": lambda lib, a, b: lib.maximum(a, b),
    "xlogy": lambda lib, a, b: lib.xlogy(a, b), "lerp": lambda lib, a, b: lib.lerp(a, b, 0.3),
    "logaddexp": lambda lib, a, b: lib.logaddexp(a, b), "sub": lambda lib, a, b: (a - b) * 2,
    "logaddexp2": lambda lib, a, b: lib.logaddexp2(a, b),
    "minimum": lambda lib, a, b: lib.minimum(a, b * 0 + 2.0),
    "addcmul": lambda lib, a, b: lib.addcmul(b, a, b), "fmod": lambda lib, a, b: lib.fmod(a, b),
    "mm": lambda lib, a, b: a.unsqueeze(1).mm(b.unsqueeze(0)),
    "copysign": lambda lib, a, b: lib.copysign(a * a, b) * b,
}


@pytest.mark.parametrize("name", sorted(ORDER_CASES))
def test_create_graph_gradients_are_made_in_pytorchs_order(name, oracle):
    """PyTorch's generated backward of an op with one formula per input runs them in the
    order of its inputs' names (derivatives.yaml's keys, sorted: `other` before `self`), so
    the nodes of a create_graph gradient get their sequence numbers in that order, which
    orders a later backward pass through them."""
    def inner(lib):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([3.0, 0.5], dtype=lib.float64, requires_grad=True)
        y = ORDER_CASES[name](lib, a, b)
        v = lib.ones(tuple(y.shape), dtype=lib.float64, requires_grad=True)
        ga, gb = lib.autograd.grad(y, (a, b), v, create_graph=True)

        def seq(fn):
            return fn._sequence_nr() if hasattr(fn, "_sequence_nr") else fn._seq
        return [_graph(ga.grad_fn), _graph(gb.grad_fn),
                None if ga.grad_fn is None or gb.grad_fn is None
                else seq(ga.grad_fn) > seq(gb.grad_fn)]
    assert inner(gradcli) == oracle(inner)
