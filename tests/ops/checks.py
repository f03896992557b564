"""Derivative checks for the op table, independent of `gradcli.autograd.gradcheck` (HIPS
autograd's `check_grads`): reverse mode (to second order) and forward mode against central
finite differences, in float64, for one op called on one of its `Sample`s.

Every function here takes the op and the sample straight from `gradcli.ops.OPS`, so the tests
built on it cover new ops as soon as they are declared.
"""

import contextlib
import zlib

import numpy as np

import gradcli
import gradcli.nn.functional  # noqa: F401  (loaded at first use: its ops join the table)
from gradcli.engine.tensor import Tensor
from gradcli.ops import OPS
from gradcli.engine.tangents import ForwardAD
from gradcli.ops.registry import Op, Overload

try:
    from gradcli.autograd import forward_ad
except ImportError:  # forward-mode API not built yet: drive the table's JVPs directly
    forward_ad = None

EPS = 1e-6
ATOL = 1e-5
RTOL = 1e-3
MAX_ROWS = 64  # past this many output elements, project the Jacobian on random rows


# ------------------------------------------------------------------ the table

def table_ops():
    """Every Op of the table, once: the entries of OPS and the members of its Overloads."""
    seen = {}
    for entry in OPS.values():
        for op in entry.ops if isinstance(entry, Overload) else (entry,):
            if isinstance(op, Op):
                seen.setdefault(id(op), op)
    return list(seen.values())


def overload_of(op):
    """The Overload that has op among its members, or None."""
    for entry in OPS.values():
        if isinstance(entry, Overload) and any(m is op for m in entry.ops):
            return entry
    return None


def cases(predicate=lambda op: True):
    """(op, sample) for every sample of every table op that satisfies predicate."""
    return [(op, s) for op in table_ops() if predicate(op) for s in op.samples]


def finite_differences_apply(op):
    """Whether op's derivative is checked against central differences: not for the ops whose
    gradient PyTorch defines as zero although their draws move with the input (torch.normal's
    draw shifts with mean: test_distributions_oracle checks their zero gradients instead)."""
    return op.differentiable and not getattr(op, "zero_by_definition", False)


def case_id(op, sample):
    return f"{op.name}-{sample!r}"


def ids(case_list):
    return [case_id(*case) for case in case_list]


# ------------------------------------------------------------------ building calls

def differentiable_positions(op, sample):
    """Input positions that get a random float tensor the op has a VJP for (or, for a
    composite op, that are edges of the nodes it makes)."""
    out = []
    for i, shape in enumerate(sample.shapes):
        if shape is None or i in sample.values:
            continue
        if op.per_input and not op.variadic and (i >= len(op.vjps) or op.vjps[i] is None):
            continue
        if op.edge_index is not None and i not in op.edge_index:
            continue  # (a composite op's input that only its shape is read from)
        out.append(i)
    return out


def sample_arrays(op, sample):
    """The sample's inputs: float64 arrays drawn uniformly from [low, high] (seeded by the case
    id) for tensor shapes, the sample's `values` as given elsewhere."""
    rng = rng_for(op, sample)
    args = []
    for i, shape in enumerate(sample.shapes):
        if i in sample.values:
            args.append(sample.values[i])
        elif shape is None:
            raise ValueError(f"{case_id(op, sample)}: input {i} has neither a shape nor a value")
        else:
            args.append(rng.uniform(sample.low, sample.high, size=shape))
    for i in sorted(k for k in sample.values if k >= len(sample.shapes)):
        args.append(sample.values[i])
    return args


def rng_for(op, sample, salt=""):
    return np.random.default_rng(zlib.crc32((case_id(op, sample) + salt).encode()))


def as_input(lib, value, dtype=None, requires_grad=False):
    """An argument for lib (gradcli or torch): arrays and lists become tensors, numbers stay."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return lib.tensor(value, dtype=dtype, requires_grad=requires_grad)
    if isinstance(value, (np.ndarray, list, tuple)):
        return lib.tensor(value)
    return value


def call(op, inputs, attrs):
    """Call op as a user would: a list for a list input, attributes by keyword (a random op
    with the generator seeded, so that every call draws the same)."""
    if op.random:
        gradcli.manual_seed(0)
    args = (list(inputs),) if op.variadic else tuple(inputs)
    return op(*args, **attrs)


def tensors_of(result):
    """The tensors an op returned (a tensor, or a tuple/namedtuple of them), in order."""
    if isinstance(result, Tensor):
        return [result]
    if isinstance(result, (list, tuple)):
        return [t for r in result for t in tensors_of(r)]
    return []


def float_outputs(result):
    return [t for t in tensors_of(result) if t._data.dtype.kind == "f"]


def op_function(op, sample):
    """(f, xs): f maps the differentiable inputs (float64 tensors) to the op's float outputs;
    xs are their values."""
    args = sample_arrays(op, sample)
    positions = differentiable_positions(op, sample)
    fixed = [as_input(gradcli, a, gradcli.float64) for a in args]

    def f(tensors):
        inputs = list(fixed)
        for i, t in zip(positions, tensors):
            inputs[i] = t
        return float_outputs(call(op, inputs, sample.attrs))

    return f, [args[i] for i in positions]


# ------------------------------------------------------------------ Jacobians

def leaves(xs, requires_grad=True):
    return [gradcli.tensor(x, dtype=gradcli.float64, requires_grad=requires_grad) for x in xs]


def flat(outputs):
    if not outputs:
        return np.zeros(0)
    return np.concatenate([np.asarray(o._data, dtype=np.float64).ravel() for o in outputs])


def numerical_jacobians(fn, xs, eps=EPS):
    """Central differences: one (outputs, x.size) matrix per input x."""
    n_out = len(flat(fn(leaves(xs))))
    jacobians = []
    for k, x in enumerate(xs):
        columns = []
        for j in range(x.size):
            values = []
            for step in (eps, -eps):
                shifted = [np.array(v, dtype=np.float64) for v in xs]
                shifted[k].reshape(-1)[j] += step
                values.append(flat(fn(leaves(shifted))))
            columns.append((values[0] - values[1]) / (2 * eps))
        jacobians.append(np.stack(columns, axis=1) if columns else np.zeros((n_out, 0)))
    return jacobians


def reverse_rows(fn, xs, rows):
    """rows @ J for each input, by reverse mode: one backward pass per row of upstream gradient
    (a row is a vector over the concatenated, flattened outputs)."""
    xt = leaves(xs)
    outs = fn(xt)
    sizes = [o._data.size for o in outs]
    result = [np.zeros((len(rows), x.size)) for x in xs]
    for r, row in enumerate(rows):
        pieces = np.split(row, np.cumsum(sizes)[:-1]) if outs else []
        pairs = [(o, gradcli.tensor(p.reshape(o._data.shape), dtype=o.dtype))
                 for o, p in zip(outs, pieces) if o.requires_grad]
        if not pairs:
            continue
        grads = gradcli.autograd.grad([o for o, _ in pairs], xt, [v for _, v in pairs],
                                      retain_graph=True, allow_unused=True)
        for k, (x, g) in enumerate(zip(xt, grads)):
            if g is None:
                continue
            assert tuple(g.shape) == tuple(x.shape), (
                f"gradient of input {k} has shape {tuple(g.shape)}, input has {tuple(x.shape)}")
            assert g.dtype == x.dtype, f"gradient of input {k} is {g.dtype}, input is {x.dtype}"
            result[k][r] = np.asarray(g._data, dtype=np.float64).ravel()
    return result


def upstream_rows(n_out, rng):
    """Unit vectors (the full Jacobian) for small outputs, random projections for large ones."""
    if n_out <= MAX_ROWS:
        return list(np.eye(n_out))
    return list(rng.standard_normal((8, n_out)))


def assert_close(analytical, numerical, what, atol=ATOL, rtol=RTOL):
    """torch.autograd.gradcheck's criterion: |a - n| <= atol + rtol * |n| everywhere."""
    if analytical.shape == numerical.shape and np.all(
            np.abs(analytical - numerical) <= atol + rtol * np.abs(numerical)):
        return
    with np.printoptions(precision=6, suppress=True, linewidth=120, threshold=200):
        raise AssertionError(f"{what}: analytical and numerical derivatives differ\n"
                             f"analytical:\n{analytical}\nnumerical:\n{numerical}")


def check_vjp(fn, xs, rng, what="VJP", eps=EPS, atol=ATOL, rtol=RTOL):
    """Reverse mode against finite differences, input by input."""
    numerical = numerical_jacobians(fn, xs, eps)
    n_out = numerical[0].shape[0] if numerical else 0
    rows = upstream_rows(n_out, rng)
    analytical = reverse_rows(fn, xs, rows)
    for k, (a, n) in enumerate(zip(analytical, numerical)):
        assert_close(a, np.array(rows).reshape(len(rows), n_out) @ n, f"{what} of input {k}",
                     atol, rtol)


def grad_function(fn, xs, rng):
    """(g, ys): g(x, v) = grad(f(x), x, grad_outputs=v, create_graph=True), the function whose
    derivative torch.autograd.gradgradcheck checks; ys = xs + random upstream gradients v."""
    outs = fn(leaves(xs))
    vs = [rng.standard_normal(o._data.shape) for o in outs]
    n = len(xs)

    def g(tensors):
        x, v = tensors[:n], tensors[n:]
        pairs = [(o, w) for o, w in zip(fn(x), v) if o.requires_grad]
        grads = [None] * n
        if pairs:
            grads = gradcli.autograd.grad([o for o, _ in pairs], x, [w for _, w in pairs],
                                          create_graph=True, allow_unused=True)
        return [gradcli.zeros_like(t) if d is None else d for t, d in zip(x, grads)]

    return g, list(xs) + vs


def check_grads(op, sample, orders=(1, 2), modes=("rev", "fwd")):
    """HIPS autograd's check_grads for one op on one sample: reverse mode to first and (when
    sample.gradgrad) second order, and forward mode, against central differences."""
    fn, xs = op_function(op, sample)
    name = case_id(op, sample)
    if not xs:
        raise AssertionError(f"{name}: the sample has no differentiable input")
    rng = rng_for(op, sample, "upstream")
    if "rev" in modes:
        if 1 in orders:
            check_vjp(fn, xs, rng, f"{name} VJP")
        if 2 in orders and sample.gradgrad:
            g, ys = grad_function(fn, xs, rng)
            check_vjp(g, ys, rng, f"{name} VJP of the VJP")
    if "fwd" in modes:
        check_jvp(fn, xs, rng, f"{name} JVP")


# ------------------------------------------------------------------ forward mode

@contextlib.contextmanager
def _dual_level():
    if forward_ad is not None:
        with forward_ad.dual_level():
            yield
        return
    ForwardAD.level, ForwardAD.duals = 0, []
    try:
        yield
    finally:
        ForwardAD.level, ForwardAD.duals = None, None


def _make_dual(x, t):
    if forward_ad is not None:
        return forward_ad.make_dual(x, t)
    x._fw = t
    return x


def _tangent(y):
    if forward_ad is not None:
        return forward_ad.unpack_dual(y).tangent
    return y._fw


def forward_tangents(fn, xs, ts):
    """The JVP J @ t of every output, by forward-mode AD (zeros where no tangent came out)."""
    with _dual_level():
        duals = [_make_dual(x, t) for x, t in zip(leaves(xs, False), leaves(ts, False))]
        outs = fn(duals)
        tangents = [_tangent(o) for o in outs]
        for o, t in zip(outs, tangents):
            if t is not None:
                assert tuple(t.shape) == tuple(o.shape), (
                    f"tangent of shape {tuple(t.shape)} for an output of shape {tuple(o.shape)}")
        return flat([gradcli.zeros_like(o) if t is None else t for o, t in zip(outs, tangents)])


def check_jvp(fn, xs, rng, what="JVP", eps=EPS, atol=ATOL, rtol=RTOL):
    """Forward mode against the central difference along a random tangent."""
    ts = [rng.standard_normal(np.shape(x)) for x in xs]
    analytical = forward_tangents(fn, xs, ts)
    plus = flat(fn(leaves([x + eps * t for x, t in zip(xs, ts)], False)))
    minus = flat(fn(leaves([x - eps * t for x, t in zip(xs, ts)], False)))
    assert_close(analytical, (plus - minus) / (2 * eps), what, atol, rtol)
