"""Semantics of the ops added for PyTorch tutorial code (comparisons, sorting, special functions,
products, decompositions) that the table's generated tests do not reach: errors word for word,
Python-bool results, namedtuple results, nodes without a derivative, einsum's node names, and
the symmetric-input decompositions (eigh, eigvalsh, cholesky) checked on symmetrized inputs."""

import numpy as np
import pytest

import gradcli
import gradcli.nn.functional as F
from gradcli.autograd import gradcheck, gradgradcheck


def each(oracle, result):
    """[result(gradcli), torch's answer result(torch)] (plain data: the oracle fixture)."""
    return [result(gradcli), oracle(result)]


def both(program, oracle, plain=lambda result: result):
    """Run program (an expression of `lib`) with gradcli and torch; return both results, as
    plain data, or both errors as {"error": [type name, message]}."""
    def outcome(lib):
        try:
            return plain(program(lib))
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            return {"error": [type(e).__name__, str(e)]}
    return each(oracle, outcome)


def same_error(program, oracle):
    ours, theirs = both(program, oracle, repr)
    assert isinstance(theirs, dict), f"torch does not raise: {theirs}"
    assert isinstance(ours, dict), f"gradcli does not raise: {ours}"
    assert ours == theirs


ERRORS = {
    "gather negative index": lambda t: t.arange(6.).reshape(2, 3).gather(
        1, t.tensor([[-1, 0], [0, 1]])),
    "gather negative index dim 0": lambda t: t.arange(6.).reshape(2, 3).gather(
        0, t.tensor([[-2, 0, 0]])),
    "take_along_dim flat negative index": lambda t: t.arange(6.).reshape(2, 3).take_along_dim(
        t.tensor([-1, -6]), None),
    "allclose dtypes": lambda t: t.allclose(t.ones(3), t.ones(3, dtype=t.float64)),
    "allclose number": lambda t: t.allclose(t.ones(3), 1.0),
    "allclose shapes": lambda t: t.allclose(t.ones(3), t.ones(2)),
    "isclose rtol": lambda t: t.isclose(t.ones(3), t.ones(3), rtol=-1),
    "isclose atol": lambda t: t.isclose(t.ones(3), t.ones(3), atol=-1),
    "equal number": lambda t: t.equal(t.ones(3), 1),
    "all dim": lambda t: t.ones(2, 3).all(2),
    "topk k": lambda t: t.ones(3).topk(4),
    "kthvalue k": lambda t: t.ones(3).kthvalue(0),
    "kthvalue bool": lambda t: t.ones(3, dtype=t.bool).kthvalue(1),
    "sort dim": lambda t: t.ones(3).sort(1),
    "median empty dim": lambda t: t.ones(2, 0).median(1),
    "mode empty": lambda t: t.ones(0).mode(),
    "logaddexp number": lambda t: t.logaddexp(t.ones(3), 1.0),
    "logaddexp long": lambda t: t.logaddexp(t.tensor([1, 2]), t.tensor([1, 2])),
    "addcdiv integers": lambda t: t.addcdiv(t.tensor([1]), t.tensor([1]), t.tensor([2])),
    "polygamma negative": lambda t: t.polygamma(-1, t.ones(3)),
    "heaviside number": lambda t: t.heaviside(t.ones(3), 0.5),
    "heaviside dtypes": lambda t: t.heaviside(t.tensor([1, 0]), t.tensor([5.0])),
    "addmm vector": lambda t: t.addmm(t.ones(3), t.ones(3), t.ones(3, 3)),
    "addmm shapes": lambda t: t.addmm(t.ones(3, 3), t.ones(3, 2), t.ones(3, 3)),
    "addmm input": lambda t: t.addmm(t.ones(2, 2), t.ones(3, 3), t.ones(3, 3)),
    "addmm dtypes": lambda t: t.addmm(t.ones(3, 3), t.ones(3, 3, dtype=t.float64), t.ones(3, 3)),
    "addmv sizes": lambda t: t.addmv(t.ones(3), t.ones(3, 2), t.ones(3)),
    "einsum dtypes": lambda t: t.einsum("ij,jk->ik", t.ones(2, 2), t.ones(2, 2, dtype=t.float64)),
    "einsum ndim": lambda t: t.einsum("ij,jk->ik", t.ones(2, 2), t.ones(2)),
    "einsum operands": lambda t: t.einsum("ij,jk->ik", t.ones(2, 2)),
    "einsum sizes": lambda t: t.einsum("ij,jk->ik", t.ones(3, 3), t.ones(4, 4)),
    "einsum output label": lambda t: t.einsum("ij->k", t.ones(2, 2)),
    "einsum repeated output": lambda t: t.einsum("ij->ii", t.ones(2, 2)),
    "hardtanh bounds": lambda t: t.nn.functional.hardtanh(
        t.ones(3), 1.0, -1.0),
    "glu odd": lambda t: t.nn.functional.glu(t.ones(2, 3), 1),
    "softshrink lambda": lambda t: t.nn.functional.softshrink(
        t.ones(3), -1.0),
    "eigh not square": lambda t: t.linalg.eigh(t.ones(2, 3)),
    "cholesky not positive-definite": lambda t: t.linalg.cholesky(-t.eye(3)),
    "qr mode": lambda t: t.linalg.qr(t.ones(3, 3), mode="x"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorchs(name, oracle):
    same_error(ERRORS[name], oracle)


def test_allclose_and_equal_return_python_bools():
    a = gradcli.tensor([1.0, 2.0, float("nan")])
    assert gradcli.allclose(a, a) is False
    assert gradcli.allclose(a, a, equal_nan=True) is True
    assert a.allclose(a + 1e-9, equal_nan=True) is True
    assert gradcli.equal(gradcli.tensor([1.0, 2.0]), gradcli.tensor([1, 2])) is True
    assert gradcli.equal(gradcli.ones(3), gradcli.ones(1)) is False


def test_all_any_keep_uint8_and_reduce_over_dims():
    u = gradcli.tensor([1, 2], dtype=gradcli.uint8)
    assert u.all().dtype == gradcli.uint8
    x = gradcli.tensor([[0.0, 1.0], [2.0, 3.0]], requires_grad=True)
    assert x.all().item() is False and x.any().item() is True
    assert x.all(1).tolist() == [False, True]
    assert x.any(0, keepdim=True).shape == (1, 2)
    assert x.all(dim=(0, 1)).requires_grad is False


def test_nonzero_argwhere_count_nonzero_match_torch(oracle):
    data = [[0.0, 1.0], [2.0, 0.0]]
    for program in (lambda t: t.tensor(data).nonzero(), lambda t: t.argwhere(t.tensor(data)),
                    lambda t: t.tensor(data).count_nonzero(0),
                    lambda t: t.tensor(3.0).nonzero()):
        ours, theirs = both(program, oracle, lambda r: (r.tolist(), tuple(r.shape)))
        assert ours == theirs
    ours, theirs = both(lambda t: t.tensor(data).nonzero(as_tuple=True), oracle,
                        lambda r: [o.tolist() for o in r])
    assert ours == theirs


def test_sorting_results_print_like_torch_return_types():
    x = gradcli.tensor([3.0, 1.0, 2.0], requires_grad=True)
    result = x.sort(descending=True)
    assert repr(result).startswith("torch.return_types.sort(\nvalues=tensor([3., 2., 1.]")
    assert result.indices.tolist() == [0, 2, 1]
    assert type(x.topk(2)).__name__ == "topk" and x.topk(2).values.grad_fn.name() == "TopkBackward0"
    assert x.sort(stable=True).values.grad_fn.name() == "SortBackward1"


@pytest.mark.parametrize("program", [
    lambda t, x: t.sort(x, 1, True).values, lambda t, x: x.topk(2, largest=False).values,
    lambda t, x: x.kthvalue(2, 0, True).values, lambda t, x: x.median(),
    lambda t, x: x.median(1).values, lambda t, x: x.nanmedian(0).values,
    lambda t, x: x.mode(1).values, lambda t, x: x.cummax(1).values,
    lambda t, x: x.cummin(0).values, lambda t, x: t.msort(x), lambda t, x: x.argsort(1),
    lambda t, x: t.std_mean(x, 1)[0] + t.std_mean(x, 1)[1], lambda t, x: x.aminmax().max,
    lambda t, x: x.logcumsumexp(1), lambda t, x: t.nanmean(x, 0)],
    ids=["sort", "topk", "kthvalue", "median", "median-dim", "nanmedian", "mode", "cummax",
         "cummin", "msort", "argsort", "std_mean", "aminmax", "logcumsumexp", "nanmean"])
def test_sorting_and_reductions_match_torch(program, oracle):
    data = [[0.3, -1.2, 2.5, 0.7], [1.1, 0.4, -0.6, 1.9], [-2.0, 0.8, 0.1, -0.3]]

    def result(lib):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        y = program(lib, x)
        grad = None
        if y.requires_grad:
            (y * lib.arange(y.numel(), dtype=lib.float64).reshape(y.shape)).sum().backward()
            grad = x.grad.tolist()
        name = y.grad_fn.name() if isinstance(y, gradcli.Tensor) and y.grad_fn else (
            type(y.grad_fn).__name__ if y.grad_fn else None)
        return np.asarray(y.tolist()), grad, name, str(y.dtype)
    results = each(oracle, result)
    (ours, our_grad, our_fn, our_dtype), (theirs, their_grad, their_fn, their_dtype) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert our_fn == their_fn and our_dtype == their_dtype
    if their_grad is not None:
        np.testing.assert_allclose(our_grad, their_grad, rtol=1e-10, atol=1e-12)


def test_unique_and_heaviside_record_nodes_without_a_derivative(oracle):
    for program in (lambda t: t.unique(t.tensor([1.0, 3.0, 1.0], requires_grad=True)),
                    lambda t: t.heaviside(t.tensor([1.0, 0.0, -1.0], requires_grad=True),
                                          t.tensor(0.5))):
        ours, theirs = both(program, oracle, lambda r: (r.tolist(), _node_name(r.grad_fn)))
        assert ours == theirs
        same_error(lambda t: program(t).sum().backward(), oracle)
    ours, theirs = both(lambda t: t.unique(t.tensor([1.0, 3.0, 1.0]), return_inverse=True,
                                           return_counts=True), oracle,
                        lambda r: [o.tolist() for o in r])
    assert ours == theirs


def _node_name(fn):
    return type(fn).__name__  # (NotImplemented's name() is torch::autograd::NotImplemented)


def _graph(fn, lib, depth=0):
    """The backward graph under fn, one line a node, indented by depth."""
    if fn is None:
        return ["  " * depth + "None"]
    name = fn.name() if lib is gradcli else type(fn).__name__
    lines = ["  " * depth + name.replace("torch::autograd::", "")]
    for next_fn, _ in fn.next_functions:
        lines += _graph(next_fn, lib, depth + 1)
    return lines


@pytest.mark.parametrize("equation, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]), ("i,j->ij", [(3,), (2,)]), ("i,i->", [(3,), (3,)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 2)]), ("ij,jk,kl->il", [(2, 3), (3, 3), (3, 2)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    # broadcasting over size-1 dimensions, ellipses summed out, repeated subscripts, three
    # and more operands, capitals (numbered before small letters), scalars, empty dimensions
    ("ij,jk->ik", [(2, 1), (3, 4)]), ("...j,...j->...", [(2, 3), (1, 3)]), ("i,i", [(3,), (1,)]),
    ("ij,kj->", [(2, 3), (1, 3)]), ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),
    ("...j,j", [(2, 3), (3,)]), ("iij->j", [(2, 2, 3)]), ("...ii->...i", [(2, 3, 3)]),
    ("ijk,kj->i", [(2, 3, 4), (4, 3)]), ("Ab,bA->", [(2, 3), (3, 2)]),
    ("ij,jk,k->i", [(2, 3), (3, 4), (4,)]), ("a,b,c->abc", [(2,), (3,), (2,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("i,i,i->i", [(3,), (3,), (3,)]),
    ("ij,jk->ikj", [(2, 3), (3, 2)]), ("ab,cd->", [(2, 3), (2, 2)]), ("i,->i", [(3,), ()]),
    ("ij->j", [(0, 3)]), ("ij,jk->ik", [(2, 0), (0, 3)])])
def test_einsum_matches_torch_with_its_whole_graph(equation, shapes, oracle):
    # PyTorch's einsum is a composite: diagonals, unsqueezes and permutes of each operand,
    # then mul or permute/reshape/bmm/view for each pair; the same graph, node for node
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]

    def result(lib):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = lib.einsum(equation, *xs)
        (y * lib.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        return np.asarray(y.tolist()), [x.grad.tolist() for x in xs], _graph(y.grad_fn, lib)
    results = each(oracle, result)
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    for ours, theirs in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert results[0][2] == results[1][2]


@pytest.mark.parametrize("equation, shapes, dtypes", [
    ("ij,jk->ik", [(2, 3), (4, 4)], None), ("...j,...j->...", [(2, 3), (4, 3)], None),
    ("ii", [(2, 3)], None), ("ij,jk->ii", [(2, 3), (3, 3)], None),
    ("ij,jk", [(3, 3), (3, 3)], ("float32", "float64")),
    ("i,i->", [(3,), (3,)], ("float32", "float64"))])
def test_einsum_errors_are_pytorch_s(equation, shapes, dtypes, oracle):
    dtypes = dtypes or ("float32",) * len(shapes)
    same_error(lambda t: t.einsum(equation, *[t.ones(*s, dtype=getattr(t, d))
                                              for s, d in zip(shapes, dtypes)]), oracle)


def test_einsum_promotes_mixed_dtypes_where_its_product_is_a_mul(oracle):
    # (a mul promotes as PyTorch's does: only a bmm refuses mixed dtypes)
    ours, theirs = both(lambda t: t.einsum("i,i->i", t.ones(3), t.ones(3, dtype=t.float64)),
                        oracle, lambda r: str(r.dtype))
    assert ours == theirs == "torch.float64"


def _symmetric(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


@pytest.mark.parametrize("name", ["eigh", "eigvalsh", "cholesky"])
def test_symmetric_decompositions_match_torch_values_and_gradients(name, oracle):
    data = _symmetric(3)

    def result(lib):
        A = lib.tensor(data, requires_grad=True)
        out = getattr(lib.linalg, name)(A)
        outs = list(out) if isinstance(out, tuple) else [out]
        if name == "eigh":  # eigenvectors are defined up to sign: compare squares
            outs[1] = outs[1] * outs[1]
        total = sum(((o * lib.arange(o.numel(), dtype=o.dtype).reshape(o.shape)).sum()
                     for o in outs), lib.tensor(0.0, dtype=lib.float64))
        total.backward()
        names = [o.grad_fn.name() if lib is gradcli else type(o.grad_fn).__name__ for o in outs]
        return [np.asarray(o.tolist()) for o in outs], np.asarray(A.grad.tolist()), names
    results = each(oracle, result)
    for ours, theirs in zip(results[0][0], results[1][0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8, atol=1e-10)
    assert results[0][2][0] == results[1][2][0]


@pytest.mark.parametrize("name", ["eigh", "eigvalsh", "cholesky"])
def test_symmetric_decompositions_pass_gradcheck_on_symmetrized_inputs(name):
    fn = getattr(gradcli.linalg, name)

    def f(x):
        out = fn(x + x.mT)
        return tuple(out) if isinstance(out, tuple) else out

    x = gradcli.tensor(_symmetric(3, 1) / 2, requires_grad=True)
    assert gradcheck(f, (x,))
    if name != "eigh":  # eigenvectors' second derivatives: first-order formulas only
        assert gradgradcheck(f, (x,))


def test_forward_ad_through_eigvalsh_and_cholesky():
    from gradcli.autograd import forward_ad
    data = _symmetric(3, 2)
    tangent = _symmetric(3, 3) / 10
    for name in ("eigvalsh", "cholesky"):
        eps = 1e-6
        fn = getattr(gradcli.linalg, name)
        numerical = (fn(gradcli.tensor(data + eps * tangent))._data
                     - fn(gradcli.tensor(data - eps * tangent))._data) / (2 * eps)
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(gradcli.tensor(data), gradcli.tensor(tangent))
            analytical = forward_ad.unpack_dual(fn(dual)).tangent
        np.testing.assert_allclose(analytical._data, numerical, rtol=1e-5, atol=1e-7)


def test_special_functions_are_accurate(oracle):
    x = np.array([-2.5, -0.3, 0.2, 0.5, 1.0, 3.7, 25.0])
    for name in ("lgamma", "digamma", "erfc"):
        ours = getattr(gradcli, name)(gradcli.tensor(x, dtype=gradcli.float64))
        theirs = oracle(lambda torch: getattr(torch, name)(torch.tensor(x, dtype=torch.float64))
                        .numpy(), key=name)
        np.testing.assert_allclose(ours._data, theirs, rtol=1e-12, atol=1e-13)
    for n in (1, 2, 3):  # torch's own polygamma is accurate to about 1e-9 only
        ours = gradcli.polygamma(n, gradcli.tensor(x[2:], dtype=gradcli.float64))
        theirs = oracle(lambda torch: torch.polygamma(n, torch.tensor(x[2:], dtype=torch.float64))
                        .numpy(), key=f"polygamma {n}")
        np.testing.assert_allclose(ours._data, theirs, rtol=1e-8)
    trigamma_half = gradcli.polygamma(1, gradcli.tensor(0.5, dtype=gradcli.float64)).item()
    assert abs(trigamma_half - np.pi ** 2 / 2) < 1e-13
    u = np.array([-0.999, -0.5, 0.0, 0.3, 0.9, 0.999999])
    np.testing.assert_allclose(gradcli.erfinv(gradcli.tensor(u, dtype=gradcli.float64))._data,
                               oracle(lambda torch: torch.erfinv(torch.tensor(
                                   u, dtype=torch.float64)).numpy(), key="erfinv"),
                               rtol=1e-12)


def test_activations_inplace_nodes_match_torch(oracle):
    cases = [("hardtanh", dict(inplace=True)), ("relu6", dict(inplace=True)),
             ("selu", dict(inplace=True)), ("celu", dict(inplace=True)),
             ("hardswish", dict(inplace=True)), ("softsign", {}), ("tanhshrink", {}),
             ("logsigmoid", {})]
    for name, kwargs in cases:
        def node(lib):
            x = lib.tensor([-2.0, -0.5, 0.3, 4.0], requires_grad=True)
            y = getattr(lib.nn.functional, name)(x * 1, **kwargs)
            return _node_name(y.grad_fn)
        assert node(gradcli) == oracle(node, key=name), name


def test_take_along_a_dim_wraps_negative_indices_as_pytorch_does(oracle):
    # (gather refuses them; take_along_dim along a dim wraps them first)
    ours, theirs = both(lambda t: t.arange(6.).reshape(2, 3).take_along_dim(
        t.tensor([[-1, 0], [-3, 1]]), 1), oracle, lambda r: r.tolist())
    assert ours == theirs == [[2.0, 0.0], [3.0, 4.0]]
