"""0-d float64 arithmetic runs on Python floats (Op.on_floats) and overloaded operators call
the op they choose directly: both must give NumPy's bits, nodes and errors exactly."""

import math
import operator

import numpy as np
import pytest

import gradcli as torch

SPECIAL = [0.0, -0.0, 1.0, -2.5, 1e-310, 1e308, -1e308, np.inf, -np.inf, np.nan, 3]
OPERATORS = {"+": (operator.add, np.add), "-": (operator.sub, np.subtract),
             "*": (operator.mul, np.multiply), "/": (operator.truediv, np.true_divide)}


def _bits(value):
    return np.asarray(value, dtype=np.float64).view(np.int64).item()


def _pairs():
    rng = np.random.default_rng(7)
    values = SPECIAL + list(rng.standard_normal(20) * 10.0 ** rng.integers(-300, 300, 20))
    return [(a, b) for a in values for b in values]


@pytest.mark.parametrize("symbol", OPERATORS)
def test_zero_dim_float64_arithmetic_has_numpy_s_bits(symbol):
    python_op, ufunc = OPERATORS[symbol]
    for a, b in _pairs():
        expected = ufunc(np.float64(a), np.float64(b))
        # `a / tensor` is PyTorch's reciprocal-then-multiply (0. / 1e-310 is nan there too)
        reflected = (np.float64(a) * np.reciprocal(np.float64(b)) if symbol == "/"
                     else expected)
        ta = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        tb = torch.tensor(b, dtype=torch.float64)
        for result, expected in ((python_op(ta, tb), expected), (python_op(ta, b), expected),
                                 (python_op(a, tb), reflected)):
            assert result.dtype == torch.float64 and result.shape == ()
            got = result.detach().numpy()
            assert type(got) is np.ndarray
            if np.isnan(expected):
                assert np.isnan(got), (a, symbol, b)
            else:
                assert _bits(got) == _bits(expected), (a, symbol, b)


def test_reflected_and_named_forms_keep_their_nodes():
    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    w = torch.tensor(4.0, dtype=torch.float64, requires_grad=True)
    cases = {"AddBackward0": x + w, "SubBackward0": x - 1, "RsubBackward1": 1 - x,
             "RsubBackward0": torch.rsub(x, w), "MulBackward0": 3 * x,
             "DivBackward0": x / w, "PowBackward0": x ** 2, "PowBackward1": x ** w,
             "PowBackward2": 2 ** x, "RemainderBackward0": x % 3}
    for name, result in cases.items():
        assert type(result.grad_fn).__name__ == name
    y = (1 - x) * (x / w) + x * 0.5
    y.backward()
    assert x.grad.item() == -2.0 / 4.0 + (1 - 2.0) / 4.0 + 0.5
    assert w.grad.item() == -(1 - 2.0) * 2.0 / 16.0


def test_division_by_zero_and_huge_numbers_take_numpy_s_way():
    x = torch.tensor(1.0, dtype=torch.float64)
    assert (x / 0).item() == np.inf and (-x / 0.0).item() == -np.inf
    assert np.isnan((x * 0 / 0).item())
    assert (x * 10 ** 300).item() == 1e300
    with pytest.raises((OverflowError, RuntimeError)):
        x * 10 ** 400


def test_float32_and_integer_tensors_keep_their_dtypes():
    f = torch.tensor(0.1)
    assert (f * 3.3).dtype == torch.float32
    assert (f * 3.3).item() == float(np.float32(0.1) * np.float32(3.3))
    i = torch.tensor(7)
    assert (i * 2).dtype == torch.int64 and (i / 2).item() == 3.5


def test_overloaded_operators_return_not_implemented_for_foreign_operands():
    x = torch.tensor(2.0, dtype=torch.float64)
    for expression in (lambda: x / "a", lambda: "a" ** x, lambda: 1j - [x], lambda: x % {}):
        with pytest.raises(TypeError, match="unsupported operand"):
            expression()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_zero_dim_gradients_accumulate_with_numpy_s_bits(dt):
    """Gradients meeting in a 0-d buffer, and a second pass into `.grad`, are added through
    Python floats (graph._add_into): the sums must be NumPy's in float32 as in float64."""
    values = [v for v in SPECIAL if not (isinstance(v, float) and abs(v) > 1e38)]
    rng = np.random.default_rng(11)
    values += list(rng.standard_normal(12) * 10.0 ** rng.integers(-30, 30, 12))
    cast = {np.float32: torch.float32, np.float64: torch.float64}[dt]
    for a in values:
        for b in values:
            x = torch.tensor(1.0, dtype=cast, requires_grad=True)
            (x * a + x * b).backward()  # two gradients meet in x's buffer
            expected = np.add(dt(a), dt(b))
            got = x.grad.numpy()
            assert got.dtype == dt and got.shape == ()
            assert got.tobytes() == np.asarray(expected, dt).tobytes() or (
                np.isnan(got) and np.isnan(expected)), (a, b)
            (x * a).backward()  # and a second pass into .grad
            assert x.grad.numpy().tobytes() == np.asarray(np.add(expected, dt(a)), dt).tobytes() \
                or np.isnan(np.add(expected, dt(a))), (a, b)


# ------------------------------------------------------------------ VJPs on Python floats

def _float_vjps():
    """Every VJP of the op table that runs on Python floats for 0-d float64 gradients."""
    from gradcli.ops import dispatch, nodes, registry
    found = []
    for op in registry.OPS.values():
        for i, entry in enumerate(getattr(op, "vjps", None) or ()):
            if entry is None or entry[0] is nodes.passthrough:
                continue
            fn, kinds = entry
            if (len(kinds) >= 2 and kinds[0] == (nodes.G, 0)
                    and all(k in (nodes.INPUT, nodes.RESULT, nodes.ATTR)
                            for k, _ in kinds[1:])
                    and dispatch._float_formula(fn) is not None):
                found.append(pytest.param(fn, len(kinds) - 1, id=f"{op.name}-{i}"))
    return found


FLOAT_VJPS = _float_vjps()


def test_the_table_has_vjps_on_floats():
    names = {p.id.rsplit("-", 1)[0] for p in FLOAT_VJPS}
    assert {"mul", "div.Tensor", "exp", "log", "sqrt", "tan", "sin", "cos", "sinh"} <= names


@pytest.mark.parametrize("fn, n_saved", FLOAT_VJPS)
def test_vjp_on_floats_has_the_tensor_formula_s_bits(fn, n_saved):
    from gradcli.ops.dispatch import _FloatArg, _float_formula, _on_floats
    methods = _float_formula(fn)
    rng = np.random.default_rng(3)
    values = SPECIAL + list(rng.standard_normal(8) * 10.0 ** rng.integers(-200, 200, 8))
    others = [values[k] for k in (2, 3, 10, 12)]  # (the other saved values of 3-input VJPs)
    with torch.no_grad():
        for g in values:
            tg = torch.tensor(g, dtype=torch.float64)
            for x in values:
                for rest in ([()] if n_saved == 1 else [(y,) * (n_saved - 1) for y in others]):
                    saved = (x,) + rest
                    tensors = [torch.tensor(v, dtype=torch.float64) for v in saved]
                    expected = fn(tg, *tensors).numpy()
                    floats = [_FloatArg(v) if methods else float(v) for v in saved]
                    got = _on_floats(fn, tg, floats[0], tuple(floats[1:]) or None)
                    if got is None:  # (x / 0.: the tensor formula runs)
                        continue
                    assert type(got) is float
                    assert _bits(got) == _bits(expected) or (
                        np.isnan(got) and np.isnan(expected)), (g, saved)
                    # a float gradient (graph._run) gives the same
                    assert _bits(_on_floats(fn, float(g), floats[0],
                                            tuple(floats[1:]) or None)) == _bits(got)
                    if not methods:  # a saved Python number (a scalar operand) as it is
                        numbers = [v if type(v) is int else float(v) for v in saved]
                        again = _on_floats(fn, tg, numbers[0], tuple(numbers[1:]) or None)
                        assert again is not None and _bits(again) == _bits(got)


def test_scalar_gradients_have_the_bits_of_one_element_tensors():
    # 0-d float64 graphs take the float path, one-element vectors the tensor formulas
    def grads(shape):
        rng = np.random.default_rng(5)
        out = []
        for _ in range(30):
            a, b = rng.uniform(0.1, 0.9, 2)
            x = torch.tensor(a, dtype=torch.float64).reshape(shape).requires_grad_()
            w = torch.tensor(b, dtype=torch.float64).reshape(shape).requires_grad_()
            y = (x * w / (w + 1)).exp().log1p().sqrt() * x.tan().atan()
            y = y.reciprocal().square() + torch.lerp(x, w, 0.3).expm1() / x.log().atanh()
            y = y / (x + w) - x.sin() * w.cos() / (x * 3 - w).exp()
            y = torch.add(y, w, alpha=2.5) - torch.sub(x, y, alpha=-3) + torch.rsub(w, y, alpha=0.3)
            y = torch.rsub(y, 2.0, alpha=1.7) + (1 - y) * torch.add(x, w, alpha=1)
            y.sum().backward()
            out.append((x.grad.numpy().tobytes(), w.grad.numpy().tobytes()))
        return out
    assert grads(()) == grads((1,))


def test_float_path_leaves_create_graph_division_by_zero_and_errors_alone():
    x = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x * x * x, x, create_graph=True)
    assert g.item() == 27.0 and g.grad_fn is not None  # a graph for the second derivative
    (gg,) = torch.autograd.grad(g, x)
    assert gg.item() == 18.0
    z = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    z.log().backward()  # 1 / 0 raises on floats: the tensor formula gives NumPy's inf
    assert z.grad.item() == np.inf
    y = x * 1
    out = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()
    f = torch.tensor(0.1, requires_grad=True)  # float32: the tensor formulas
    (f * 3.3).backward()
    assert f.grad.dtype == torch.float32 and f.grad.item() == float(np.float32(3.3))


def _vjp(expression):
    """The function the declaration `self: expression` of a two-input op compiles to."""
    from gradcli.ops.registry import Op
    op = Op("probe", None, f"self: {expression}", inputs=("self", "other"))
    return op.prepare().vjps[0][0]


def test_float_formula_reads_the_formula():
    from gradcli.ops.dispatch import _float_formula
    arithmetic = ["grad * other", "-grad * self / (self * 2.0)", "grad * (1 - self)",
                  "grad / (2 * other)"]
    with_methods = ["grad * self.cos()", "grad * -self.sin()", "self.exp() * grad + self.log()"]
    rejected = ["grad ** 2", "2.0 / self * grad", "grad * True", "grad * abs(self)",
                "grad // self", "grad * math.pi",  # a global
                "grad * (1 - self * self).rsqrt()",  # a method of a computed value
                "grad * self.cos().sin()", "grad.cos() * self",
                "grad * self.relu()",  # not a ufunc op
                "grad * self.sum()", "grad * self.cos(1)", "grad * self.shape",
                "grad * self if self else grad"]  # a branch
    assert all(_float_formula(_vjp(f)) is False for f in arithmetic)
    assert all(_float_formula(_vjp(f)) is True for f in with_methods)
    assert all(_float_formula(_vjp(f)) is None for f in rejected)
    assert _float_formula(lambda g, s: g * s) is None  # written by hand: the tensor formula


def _ufunc_ops():
    from gradcli.ops import dispatch, nodes, registry
    return [op.name for op in registry.OPS.values() if isinstance(op, registry.Op)
            and op.rule is nodes._PROMOTE and dispatch.float64_ufunc(op) is not None]


@pytest.mark.parametrize("name", _ufunc_ops())
def test_one_input_ufunc_ops_on_0d_float64_have_the_array_loop_s_bits(name):
    # 0-d float64: the ufunc runs on a Python float; one-element vectors: on the array
    rng = np.random.default_rng(9)
    values = SPECIAL + list(rng.uniform(-3, 3, 30)) + [0.5, 1.5, 700.0, -740.0]
    op = getattr(torch, name)
    for v in values:
        scalar = op(torch.tensor(v, dtype=torch.float64))
        vector = op(torch.tensor([v], dtype=torch.float64))
        assert scalar.shape == () and scalar.dtype == torch.float64
        assert scalar.numpy().tobytes() == vector.numpy()[0].tobytes() or (
            np.isnan(scalar.item()) and np.isnan(vector[0].item())), (name, v)
    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    assert op(x).grad_fn is not None and op(torch.tensor(0.5)).dtype == torch.float32


# ------------------------------------------------------------------ float gradients in the engine

def _f64(v, grad=True):
    return torch.tensor(v, dtype=torch.float64, requires_grad=grad)


def test_hooks_retained_and_captured_gradients_of_a_scalar_graph_are_tensors():
    x, w = _f64(0.5), _f64(1.5)
    a = (x * w).sin()
    b = a * w + x
    seen = []
    a.register_hook(lambda g: seen.append(g))
    b.retain_grad()
    c = (b / w).exp()
    c.backward()
    expected_a = math.exp(b.item() / 1.5) / 1.5 * 1.5
    assert type(seen[0]) is torch.Tensor and seen[0].dtype == torch.float64
    assert seen[0].shape == () and seen[0].item() == pytest.approx(expected_a)
    assert type(b.grad) is torch.Tensor and b.grad.item() == pytest.approx(c.item() / 1.5)
    assert type(x.grad) is torch.Tensor and type(w.grad) is torch.Tensor
    ga, gx = torch.autograd.grad((x * w).sin() * w, (w, x))
    assert type(ga) is torch.Tensor and type(gx) is torch.Tensor
    assert gx.item() == pytest.approx(math.cos(0.75) * 1.5 * 1.5)


def test_a_hook_may_replace_a_scalar_gradient():
    x = _f64(2.0)
    y = x * 3.0
    y.register_hook(lambda g: g * 10)
    (y * y).backward()
    assert x.grad.item() == 2 * 6.0 * 10 * 3.0


def test_float_gradients_reach_other_nodes_and_other_dtypes_as_tensors():
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            assert type(g) is torch.Tensor and g.dtype == torch.float64 and g.shape == ()
            return g * 2

    x = _f64(0.3)
    Twice.apply(x.sin() * 3.0).exp().backward()
    assert x.grad.item() == pytest.approx(math.exp(math.sin(0.3) * 6) * 6 * math.cos(0.3))
    f = torch.tensor(0.5, requires_grad=True)  # float32 times a float64 scalar: float64
    w = _f64(4.0)
    y = (f * w).sin()
    assert y.dtype == torch.float64
    y.backward()
    assert f.grad.dtype == torch.float32 and w.grad.dtype == torch.float64
    assert f.grad.item() == pytest.approx(math.cos(2.0) * 4.0, rel=1e-6)
    v = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    p, q = v.unbind()  # a node of two outputs
    (p.sin() * q.cos()).backward()
    assert v.grad.tolist() == pytest.approx([math.cos(1.0) * math.cos(2.0),
                                             -math.sin(1.0) * math.sin(2.0)])


def test_anomaly_mode_names_the_node_of_a_nan_float_gradient():
    x = _f64(0.0)
    with pytest.warns(UserWarning), torch.autograd.detect_anomaly():
        y = x.sqrt() * 0.0  # backward: 0 / (2 * sqrt(0)) is nan
        with pytest.raises(RuntimeError,
                           match="'SqrtBackward0' returned nan values in its 0th output"):
            y.backward()


def test_scalar_graph_backward_twice_and_retain_graph():
    x = _f64(1.25)
    y = (x * x).sin() / x
    y.backward(retain_graph=True)
    first = x.grad.item()
    y.backward()
    assert x.grad.item() == 2 * first
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        y.backward()


def _random_graph_gradients(seed, shape, second=False):
    """The leaves' gradients of a random graph of 30 ops on three float64 leaves of the given
    shape (() takes the float paths, (1,) the tensor formulas)."""
    import random
    rng = random.Random(seed)
    leaves = [torch.tensor(rng.uniform(-2, 2), dtype=torch.float64).reshape(shape)
              .requires_grad_() for _ in range(3)]
    values = list(leaves)
    unary = [lambda a: a.sin(), lambda a: a.cos(), lambda a: (a * 0.1).exp(), lambda a: a.tanh(),
             lambda a: a.sigmoid(), lambda a: a.atan(), lambda a: (a.abs() + 0.1).log(),
             lambda a: (a.abs() + 0.1).sqrt(), lambda a: -a, lambda a: a.square(),
             lambda a: (a * a + 0.5).reciprocal(), lambda a: a.relu(), lambda a: a * 1.5,
             lambda a: 2.5 - a, lambda a: a / 3.0, lambda a: 0.5 / (a * a + 1)]
    binary = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b,
              lambda a, b: a / (b * b + 0.5), lambda a, b: torch.hypot(a, b),
              lambda a, b: torch.atan2(a, b), lambda a, b: torch.maximum(a, b),
              lambda a, b: torch.lerp(a, b, 0.3), lambda a, b: a ** 2 + b]
    for _ in range(30):
        if rng.random() < 0.5:
            values.append(rng.choice(unary)(rng.choice(values)))
        else:
            values.append(rng.choice(binary)(rng.choice(values), rng.choice(values)))
    y = sum(values[-5:]).sum()
    if second:
        grads = torch.autograd.grad(y, leaves, create_graph=True, allow_unused=True)
        y = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)
        if not isinstance(y, torch.Tensor):
            return None
    y.backward()
    return [None if leaf.grad is None else leaf.grad.numpy().tobytes() for leaf in leaves]


@pytest.mark.parametrize("second", [False, True], ids=["first", "second-order"])
def test_random_scalar_graphs_have_the_bits_of_one_element_tensors(second):
    for seed in range(60):
        assert _random_graph_gradients(seed, (), second) == \
            _random_graph_gradients(seed, (1,), second), seed
