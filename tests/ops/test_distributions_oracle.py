"""The random sampling ops (torch.normal, bernoulli, multinomial, randperm, poisson; random_,
exponential_, geometric_, log_normal_, cauchy_, bernoulli_) draw what PyTorch's CPU kernels draw,
bit for bit, after torch.manual_seed and from a torch.Generator, in float32 and float64 and at
sizes on both sides of PyTorch's switches (normal_ vectorises from 16 elements, randperm and
random_ widen their draws, multinomial changes algorithm with replacement); their nodes,
gradients and messages are PyTorch's.  Checked against torch (README "The oracle tests")."""

import hashlib

import numpy as np
import pytest

import gradcli

from processes import program_error

SIZES = [1, 3, 15, 16, 17, 40]
SEEDS = [0, 7, 2 ** 40 + 3]


def _g(torch, seed, use_generator):
    if use_generator:
        return torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    return None


def fills(torch, seed, use_generator, dtype_name):
    """Every in-place fill, on tensors of several sizes, one after another from one stream."""
    g = _g(torch, seed, use_generator)
    dtype = getattr(torch, dtype_name)
    out = {}
    for n in SIZES:
        e = lambda: torch.empty(n, dtype=dtype)  # noqa: E731
        out[f"exponential {n}"] = e().exponential_(generator=g).tolist()
        out[f"exponential 3 {n}"] = e().exponential_(3.0, generator=g).tolist()
        out[f"geometric {n}"] = e().geometric_(0.3, generator=g).tolist()
        out[f"log_normal {n}"] = e().log_normal_(generator=g).tolist()
        out[f"log_normal 0.3 {n}"] = e().log_normal_(0.3, 0.7, generator=g).tolist()
        out[f"cauchy {n}"] = e().cauchy_(generator=g).tolist()
        out[f"cauchy 2 {n}"] = e().cauchy_(1.5, 2.3, generator=g).tolist()
        out[f"random {n}"] = e().random_(generator=g).tolist()
        out[f"random to {n}"] = e().random_(10, generator=g).tolist()
        out[f"random from to {n}"] = e().random_(-5, 7, generator=g).tolist()
        out[f"random from {n}"] = e().random_(3, None, generator=g).tolist()
        out[f"bernoulli_ {n}"] = e().bernoulli_(generator=g).tolist()
        out[f"bernoulli_ p {n}"] = e().bernoulli_(0.3, generator=g).tolist()
        p = torch.linspace(0, 1, n, dtype=dtype)
        out[f"bernoulli_ tensor {n}"] = e().bernoulli_(p, generator=g).tolist()
        out[f"bernoulli {n}"] = torch.bernoulli(p, generator=g).tolist()
        out[f"bernoulli float {n}"] = torch.bernoulli(p, 0.6, generator=g).tolist()
        out[f"poisson {n}"] = torch.poisson(p * 20, generator=g).tolist()
        out[f"normal tt {n}"] = torch.normal(p, p + 1, generator=g).tolist()
        out[f"normal tf {n}"] = torch.normal(p, 1.7, generator=g).tolist()
        out[f"normal ft {n}"] = torch.normal(0.3, p + 0.5, generator=g).tolist()
        out[f"normal ff {n}"] = torch.normal(0.3, 1.9, (n,), generator=g, dtype=dtype).tolist()
        out[f"multinomial {n}"] = torch.multinomial(p + 0.1, min(n, 4), generator=g).tolist()
        out[f"multinomial r {n}"] = torch.multinomial(p + 0.1, 6, True, generator=g).tolist()
        out[f"multinomial 1 {n}"] = torch.multinomial(p + 0.05, 1, generator=g).tolist()
    return out


def integers(torch, seed, use_generator):
    g = _g(torch, seed, use_generator)
    out = {}
    for n in (0, 1, 2, 5, 16, 100, 1000):
        out[f"randperm {n}"] = torch.randperm(n, generator=g).tolist()
    out["randperm float"] = torch.randperm(20, dtype=torch.float32, generator=g).tolist()
    out["randperm int8"] = torch.randperm(100, dtype=torch.int8, generator=g).tolist()
    for name in ("int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64"):
        dtype = getattr(torch, name)
        out[f"random {name}"] = torch.empty(20, dtype=dtype).random_(generator=g).tolist()
        out[f"random 2 {name}"] = torch.empty(5, dtype=dtype).random_(2, generator=g).tolist()
        if name != "bool":
            out[f"random from {name}"] = torch.empty(5, dtype=dtype).random_(
                1, None, generator=g).tolist()
    out["random wide"] = torch.empty(6, dtype=torch.int64).random_(-2 ** 40, 2 ** 40,
                                                                  generator=g).tolist()
    out["random 2^32"] = torch.empty(6, dtype=torch.int64).random_(2 ** 32, generator=g).tolist()
    out["random 2^31"] = torch.empty(6, dtype=torch.int64).random_(2 ** 31, generator=g).tolist()
    out["randint 2^30"] = torch.randint(0, 2 ** 30, (4,), generator=g).tolist()
    out["randint 2^33"] = torch.randint(0, 2 ** 33, (4,), generator=g).tolist()
    out["bernoulli_ int"] = torch.zeros(8, dtype=torch.int64).bernoulli_(0.5, generator=g).tolist()
    out["geometric int"] = torch.zeros(8, dtype=torch.int64).geometric_(0.2, generator=g).tolist()
    rows = torch.tensor([[1., 2., 3., 0.], [0., 0., 5., 1.]], dtype=torch.float64)
    out["multinomial 2d"] = torch.multinomial(rows, 2, generator=g).tolist()
    out["multinomial 2d r"] = torch.multinomial(rows, 7, True, generator=g).tolist()
    out["multinomial zeros"] = torch.multinomial(torch.tensor([1., 0., 0.]), 3,
                                                 generator=g).tolist()
    out["state"] = (g.get_state() if g is not None else torch.get_rng_state()).tolist()
    return out


def layouts(torch, seed):
    """Non-contiguous tensors are filled in the order of their memory."""
    torch.manual_seed(seed)
    t = torch.zeros(3, 4, dtype=torch.float64).t()
    out = {"exponential": t.exponential_().tolist()}
    out["random"] = torch.zeros(4, 3).t().random_(100).tolist()
    out["bernoulli p broadcast"] = torch.zeros(2, 3).bernoulli_(torch.tensor([0.2, 0.5, 0.9])
                                                                ).tolist()
    out["poisson"] = torch.poisson(torch.full((3, 2), 4.0).t()).tolist()
    out["normal broadcast"] = torch.normal(torch.zeros(2, 1), torch.ones(3)).tolist()
    out["normal mixed"] = torch.normal(torch.zeros(3), torch.ones(3, dtype=torch.float64)).tolist()
    out["big poisson"] = torch.poisson(torch.tensor([50., 1000., 12.5])).tolist()
    return out


def digest(values):
    return hashlib.sha256(np.asarray(values, np.float64).tobytes()).hexdigest()


def many(torch, seed):
    """Long draws, where a last-bit difference of one libm value in thousands would show:
    the digests of their float64 values."""
    g = torch.Generator().manual_seed(seed)
    out = {}
    for name in ("float32", "float64"):
        dtype = getattr(torch, name)
        e = lambda: torch.empty(5000, dtype=dtype)  # noqa: E731
        out[f"randn {name}"] = digest(torch.randn(5000, dtype=dtype, generator=g).tolist())
        p = torch.rand(3000, dtype=dtype, generator=g) * 30
        for label, value in [
                ("exponential", e().exponential_(0.7, generator=g)),
                ("geometric", e().geometric_(0.01, generator=g)),
                ("log_normal", e().log_normal_(0.2, 1.3, generator=g)),
                ("cauchy", e().cauchy_(0.1, 3.3, generator=g)),
                ("poisson", torch.poisson(p, generator=g)),
                ("normal", torch.normal(p, p + 1, generator=g)),
                ("multinomial", torch.multinomial(p + 0.01, 500, generator=g)),
                ("multinomial r", torch.multinomial(p + 0.01, 3000, True, generator=g))]:
            out[f"{label} {name}"] = digest(value.tolist())
    out["randperm"] = digest(torch.randperm(20000, generator=g).tolist())
    return out


@pytest.mark.parametrize("seed", [11])
def test_long_draws_are_pytorch_s_to_the_last_bit(seed, oracle):
    assert many(gradcli, seed) == oracle(lambda torch: many(torch, seed))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("use_generator", [False, True], ids=["manual_seed", "generator"])
@pytest.mark.parametrize("seed", SEEDS)
def test_fills_and_samples_draw_what_pytorch_draws(seed, use_generator, dtype, oracle):
    assert fills(gradcli, seed, use_generator, dtype) == oracle(
        lambda torch: fills(torch, seed, use_generator, dtype))


@pytest.mark.parametrize("use_generator", [False, True], ids=["manual_seed", "generator"])
@pytest.mark.parametrize("seed", SEEDS)
def test_integer_draws_are_pytorch_s(seed, use_generator, oracle):
    assert integers(gradcli, seed, use_generator) == oracle(
        lambda torch: integers(torch, seed, use_generator))


@pytest.mark.parametrize("seed", SEEDS)
def test_strided_and_broadcast_draws_are_pytorch_s(seed, oracle):
    assert layouts(gradcli, seed) == oracle(lambda torch: layouts(torch, seed))


def nodes(torch):
    """The nodes the differentiable draws record, what they save, and their zero gradients
    (first and second order, broadcast inputs summed back to their shapes)."""
    out = {}
    torch.manual_seed(0)
    mean = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    std = torch.tensor([[1.0], [2.0]], dtype=torch.float64, requires_grad=True)
    for label, y, inputs in [
            ("tensor tensor", lambda: torch.normal(mean, std), (mean, std)),
            ("tensor float", lambda: torch.normal(mean, 2.0), (mean,)),
            ("float tensor", lambda: torch.normal(1.0, std), (std,)),
            ("bernoulli", lambda: torch.bernoulli(mean / 3), (mean,)),
            ("poisson", lambda: torch.poisson(mean * 4), (mean,))]:
        result = y()
        node = result.grad_fn
        out[label] = {
            "node": type(node).__name__,
            "saved": sorted(a for a in dir(node) if a.startswith("_saved_")),
            "sizes": [list(getattr(node, a)) for a in sorted(dir(node))
                      if a.endswith("_sym_sizes")],
            "dtype": str(result.dtype), "shape": list(result.shape)}
        grads = torch.autograd.grad(result.sum(), inputs, create_graph=True)
        out[label]["grads"] = [g.tolist() for g in grads]
        out[label]["second"] = [g.requires_grad for g in grads]
    x = torch.tensor([0.2, 0.7], requires_grad=True)
    p = torch.tensor([0.5, 0.9], requires_grad=True)
    for label, fill in [("random", lambda y: y.random_()), ("random to", lambda y: y.random_(5)),
                        ("random from", lambda y: y.random_(1, 5)),
                        ("bernoulli_", lambda y: y.bernoulli_(0.5)),
                        ("bernoulli_ p", lambda y: y.bernoulli_(p)),
                        ("exponential_", lambda y: y.exponential_()),
                        ("geometric_", lambda y: y.geometric_(0.3)),
                        ("log_normal_", lambda y: y.log_normal_()),
                        ("cauchy_", lambda y: y.cauchy_()),
                        ("normal_", lambda y: y.normal_(1.0, 0.5)),
                        ("uniform_", lambda y: y.uniform_(-1, 1))]:
        y = x * 1
        same = fill(y) is y
        grads = torch.autograd.grad(y.sum(), (x, p), allow_unused=True)
        out[label] = [same, type(y.grad_fn).__name__, y._version, y.tolist(),
                      sorted(a for a in dir(y.grad_fn) if a.startswith("_saved_")),
                      [None if g is None else g.tolist() for g in grads]]
    y = torch.bernoulli(x, 0.5)
    out["bernoulli p"] = [type(y.grad_fn).__name__, y.requires_grad]
    try:
        y.sum().backward()
    except RuntimeError as e:
        out["bernoulli p backward"] = str(e).splitlines()[0]
    return out


def test_nodes_and_zero_gradients_are_pytorch_s(oracle):
    assert nodes(gradcli) == oracle(nodes)


ERRORS = [
    "torch.normal(torch.ones(2), -1.)",
    "torch.normal(1., torch.tensor([-1., 2.]))",
    "torch.normal(torch.ones(2), torch.tensor([-1., 2.]))",
    "torch.normal(1., -2., (2,))",
    "torch.normal(torch.tensor([1, 2]), 1.)",
    "torch.normal(torch.ones(2), torch.ones(3))",
    "torch.bernoulli(torch.tensor([1.5]))",
    "torch.bernoulli(torch.tensor([float('nan')]))",
    "torch.bernoulli(torch.ones(2), 1.5)",
    "torch.bernoulli(torch.tensor([1, 0]))",
    "torch.ones(2).bernoulli_(-0.5)",
    "torch.ones(2).bernoulli_(torch.tensor([2., 0.]))",
    "torch.multinomial(torch.tensor([1., 2.]), 3)",
    "torch.multinomial(torch.tensor([1., 2.]), 0)",
    "torch.multinomial(torch.tensor([1., -2.]), 1)",
    "torch.multinomial(torch.tensor([1., -2.]), 2, True)",
    "torch.multinomial(torch.tensor([0., 0.]), 2, True)",
    "torch.multinomial(torch.tensor([0., 0.]), 1)",
    "torch.multinomial(torch.tensor([1., float('inf')]), 2, True)",
    "torch.multinomial(torch.tensor([1., float('nan')]), 2, True)",
    "torch.multinomial(torch.tensor([1, 2]), 1)",
    "torch.multinomial(torch.ones(2, 2, 2), 1)",
    "torch.randperm(-1)",
    "torch.randperm(300, dtype=torch.int8)",
    "torch.randperm(3, dtype=torch.bool)",
    "torch.ones(2).random_(5, 2)",
    "torch.ones(2).random_(0)",
    "torch.ones(2, dtype=torch.uint8).random_(300)",
    "torch.ones(2, dtype=torch.uint8).random_(-3, 5)",
    "torch.ones(2, dtype=torch.int8).random_(200)",
    "torch.ones(2, dtype=torch.int16).random_(-40000, 0)",
    "torch.ones(2, dtype=torch.bool).random_(3)",
    "torch.ones(2).exponential_(0)",
    "torch.ones(2).exponential_(-1)",
    "torch.ones(2, dtype=torch.long).exponential_()",
    "torch.ones(2).geometric_(0)",
    "torch.ones(2).geometric_(1.5)",
    "torch.ones(2).log_normal_(1, 0)",
    "torch.ones(2, dtype=torch.long).log_normal_()",
    "torch.ones(2).cauchy_(0, -1)",
    "torch.ones(2, dtype=torch.long).cauchy_()",
    "torch.poisson(torch.tensor([-1.]))",
    "torch.poisson(torch.tensor([1]))",
    "torch.ones(2, requires_grad=True).exponential_()",
    "torch.ones(2, requires_grad=True).random_()",
    "torch.ones(2, requires_grad=True).normal_()",
    "torch.ones(2, requires_grad=True).uniform_()",
    "torch.empty(3).normal_(0, -1)",
    "torch.empty(3).uniform_(2, 1)",
    "torch.empty(3, dtype=torch.long).normal_()",
    "torch.empty(3, dtype=torch.bool).uniform_()",
    "torch.randn(2, dtype=torch.long)",
    "torch.rand(2, dtype=torch.int32)",
    "torch.nn.init.normal_(torch.empty(2), 0, -1)",
    "torch.normal(torch.ones(2), torch.ones(2), generator=3)",
    "torch.normal(torch.ones(2), 1., generator=3)",
    "torch.normal(0., 1., (2,), generator=3)",
    "torch.bernoulli(torch.ones(2) / 2, generator=3)",
    "torch.bernoulli(torch.ones(2), 0.5, generator=3)",
    "torch.multinomial(torch.ones(2), 1, generator=3)",
    "torch.multinomial(torch.ones(2), 3, True, generator=3)",
    "torch.randperm(3, generator=3)",
    "torch.poisson(torch.ones(2), generator=3)",
    "torch.ones(2).random_(generator=3)",
    "torch.ones(2).random_(5, generator=3)",
    "torch.ones(2).exponential_(generator=3)",
    "torch.ones(2).bernoulli_(0.5, generator=3)",
    "torch.ones(2).bernoulli_(torch.ones(2) / 2, generator=3)",
    "torch.ones(2).geometric_(0.5, generator=3)",
    "torch.ones(2).log_normal_(generator=3)",
    "torch.ones(2).cauchy_(generator=3)",
    "torch.ones(2).random_(1.5)",
    "torch.ones(2).random_(0, 2.5)",
    "torch.multinomial(torch.ones(2), 1.5)",
    "torch.randperm(2.5)",
]


def _error(torch, source):
    try:
        eval(source, {"torch": torch})
    except Exception as e:  # noqa: BLE001 (the message is the answer)
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return "no error"


@pytest.mark.parametrize("source", ERRORS)
def test_bad_arguments_get_pytorch_s_message(source, oracle):
    """PyTorch's message, or its first line and the signatures it lists after it."""
    expected = oracle(lambda torch: _error(torch, source))
    got = program_error("import torch\n" + source)[0]
    assert got == expected or expected.endswith("expected one of:") and got.startswith(
        expected + " ("), got


@pytest.mark.parametrize("source", [
    "torch.randperm(10 ** 9)", "torch.normal(0., 1., (10 ** 5, 10 ** 5))",
    "torch.multinomial(torch.ones(3), 10 ** 9, True)",
    "torch.normal(torch.ones(10 ** 5, 1), torch.ones(10 ** 5))"])
def test_sizes_past_the_element_limit_are_refused_before_drawing(source):
    error = program_error("import torch\n" + source)[0]
    assert error.startswith("RuntimeError: ") and "GRADCLI_MAX_ELEMENTS" in error, error


@pytest.mark.parametrize("attribute", ["_words", "_double_normals", "_integers"])
def test_the_raw_draws_stay_the_engine_s(attribute):
    error = program_error(f"import torch\ntorch.Generator().{attribute}(3)")[0]
    assert error.startswith(("AttributeError", "NameError", "SyntaxError")), error


def test_the_new_names_are_in_the_table_and_on_tensors():
    from gradcli.analysis.optable import op_rows
    listed = {row["name"] for row in op_rows()}
    for name in ("normal", "bernoulli", "multinomial", "randperm", "poisson", "random_",
                 "exponential_", "geometric_", "log_normal_", "cauchy_", "bernoulli_"):
        assert name in listed, name
    x = gradcli.ones(3)
    for name in ("random_", "exponential_", "bernoulli_", "bernoulli", "multinomial"):
        assert callable(getattr(x, name)), name


def test_completion_offers_the_new_names():
    import io

    from gradcli.cli.completer import complete
    from gradcli.cli.meta import COMMANDS
    from gradcli.lang.session import Session
    session = Session(out=io.StringIO())
    session.run("import torch\nx = torch.ones(3)\n")

    def texts(text):
        return [c.text for c in complete(text, None, session.namespace, COMMANDS)]
    assert {"normal"} <= set(texts("torch.nor"))
    assert {"randperm", "randn", "rand"} <= set(texts("torch.ran"))
    assert {"multinomial"} <= set(texts("torch.mul"))
    assert {"bernoulli"} <= set(texts("torch.be"))
    assert {"poisson"} <= set(texts("torch.poi"))
    assert {"random_"} <= set(texts("x.ran"))
    assert {"exponential_", "exp"} <= set(texts("x.ex"))
    assert {"bernoulli", "bernoulli_"} <= set(texts("x.bern"))
    assert {"geometric_"} <= set(texts("x.geo"))
    assert {"log_normal_"} <= set(texts("x.log_n"))
    assert {"cauchy_"} <= set(texts("x.cau"))
    assert {"multinomial"} <= set(texts("x.multin"))


def zero_probabilities(torch):
    """Without replacement, categories of probability zero tie (p / noise = 0): PyTorch's topk
    leaves them in the order libstdc++'s nth_element, sort and partial_sort do."""
    torch.manual_seed(0)
    out = []
    for n, k, nonzero in [(5, 4, 1), (10, 8, 3), (17, 17, 2), (40, 30, 5), (100, 90, 10),
                          (3000, 40, 10), (3000, 2000, 100)]:
        p = torch.zeros(n)
        p[:nonzero] = 1.0
        p = p[torch.randperm(n)]
        out.append(torch.multinomial(p, k).tolist())
        out.append(torch.multinomial(p.double(), k).tolist())
    rows = torch.tensor([[0., 1., 0., 0., 2.], [0., 0., 0., 3., 0.]])
    out.append(torch.multinomial(rows, 5).tolist())
    return out


def test_zero_probabilities_come_in_pytorch_s_order(oracle):
    assert zero_probabilities(gradcli) == oracle(zero_probabilities)


def test_the_libstdcxx_order_is_topk_s_on_ties(oracle):
    from gradcli.ops.topk_order import topk_indices
    rows = [[float(v) for v in np.random.default_rng(seed).integers(0, 3, n)]
            for seed, n in enumerate([2, 3, 5, 16, 17, 40, 100, 700])]
    for row in rows:
        for k in sorted({1, 2, len(row) // 3 or 1, len(row) - 1 or 1, len(row)}):
            expected = oracle(lambda torch: torch.topk(torch.tensor(row, dtype=torch.float64),
                                                       k).indices.tolist())
            assert topk_indices(row, k) == expected, (row, k)


def mapped(torch):
    """Inside vmap, randomness='different' draws once for the whole batch and 'same' once for
    one sample (PyTorch refuses 'same' for a batched tensor input, poisson's draws vary)."""
    out = {}
    p = torch.rand(4, 5, generator=torch.Generator().manual_seed(3))
    for name, fn, modes in [
            ("bernoulli", lambda x: torch.bernoulli(x), ("different",)),
            ("normal", lambda x: torch.normal(x, x + 1), ("different",)),
            ("normal small", lambda x: torch.normal(x[:2], 1.0), ("different",)),
            ("normal_", lambda x: torch.empty_like(x).normal_(1.0, 2.0), ("different", "same")),
            ("multinomial", lambda x: torch.multinomial(x + 0.1, 2), ("different",)),
            ("randperm", lambda x: torch.randperm(5) + x.sum() * 0, ("different", "same")),
            ("exponential", lambda x: torch.empty_like(x).exponential_(), ("different", "same")),
            ("random", lambda x: torch.empty_like(x).random_(10), ("different", "same"))]:
        for mode in modes:
            torch.manual_seed(5)
            out[f"{name} {mode}"] = torch.func.vmap(fn, randomness=mode)(p).tolist()
    return out


def test_draws_inside_vmap_are_pytorch_s(oracle):
    assert mapped(gradcli) == oracle(mapped)
