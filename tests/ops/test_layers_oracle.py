"""The ops and modules of neural-network code (issue 20) against PyTorch: meshgrid,
repeat_interleave, ravel, type_as, unfold, cdist, torch.vmap, F.one_hot, F.pad, F.embedding,
F.layer_norm, F.batch_norm and the nn modules Flatten, Unflatten, Embedding, LayerNorm,
BatchNorm1d, ModuleDict, ParameterList, ParameterDict and the activations.

Each case is a program whose last line is its result: the result's values, dtype, shape and
graph (grad_fn names down to the leaves), the gradients a weighted backward pass leaves in the
leaves, the tensors the program names (running stats) with their versions, the warnings, or
the error, as PyTorch gives them.  Copies of elements (meshgrid, repeat_interleave, pads,
embedding, unfold, one_hot) are compared bit for bit, and so are layer_norm's values (a sweep
of row lengths); the other computed values (cdist, batch_norm, the gradients of the
normalizations) within float32's last bits: their order of operations is not reproduced."""

import hashlib

import numpy as np
import pytest

import gradcli
import op_oracle

EXACT = {
    "meshgrid_ij": "torch.meshgrid(v, w, indexing='ij')",
    "meshgrid_xy": "torch.meshgrid(v, s, w[:2], indexing='xy')",
    "meshgrid_list": "torch.meshgrid([v, w], indexing='xy')",
    "meshgrid_default": "torch.meshgrid(v, w)",
    "meshgrid_dtypes": "torch.meshgrid(v, w.double(), indexing='ij')",
    "meshgrid_empty": "torch.meshgrid(indexing='ij')",
    "meshgrid_indexing": "torch.meshgrid(v, indexing='yx')",
    "ri_int": "x.repeat_interleave(2)",
    "ri_dim": "x.repeat_interleave(3, dim=1)",
    "ri_dim_neg": "torch.repeat_interleave(x, 2, -2)",
    "ri_transposed": "x.t().repeat_interleave(2)",
    "ri_tensor": "x.repeat_interleave(torch.tensor([1, 0, 2]), dim=0)",
    "ri_tensor_one": "x.repeat_interleave(torch.tensor([2]), dim=1)",
    "ri_tensor_flat": "x.repeat_interleave(torch.tensor(2))",
    "ri_scalar": "s.repeat_interleave(3)",
    "ri_indices": "torch.repeat_interleave(torch.tensor([1, 3, 0, 2]))",
    "ri_output_size": "x.repeat_interleave(2, dim=0, output_size=6)",
    "ri_bad_output_size": "x.repeat_interleave(2, dim=0, output_size=5)",
    "ri_negative": "x.repeat_interleave(-1)",
    "ri_negative_tensor": "x.repeat_interleave(torch.tensor([1, -1, 1]), dim=0)",
    "ri_wrong_size": "x.repeat_interleave(torch.tensor([1, 2]), dim=0)",
    "ri_2d_repeats": "torch.repeat_interleave(torch.tensor([[1, 2]]))",
    "ri_float_repeats": "torch.repeat_interleave(torch.tensor([1., 2.]))",
    "ri_bad_dim": "x.repeat_interleave(2, dim=2)",
    "ravel": "x.ravel()",
    "ravel_transposed": "x.t().ravel()",
    "type_as": "x.type_as(torch.zeros(1, dtype=torch.float64))",
    "type_as_same": "x.type_as(v)",
    "type_as_long": "x.type_as(torch.zeros(1, dtype=torch.long))",
    "unfold": "x.unfold(1, 2, 1)",
    "unfold_step": "b.unfold(2, 2, 2)",
    "unfold_dim0": "x.unfold(0, 2, 1)",
    "unfold_scalar": "s.unfold(0, 1, 1)",
    "unfold_empty": "x.unfold(1, 0, 1)",
    "unfold_then_write": "y = x * 1\nu = y.unfold(1, 2, 2)\nu.mul_(2)\ny",
    "unfold_too_big": "x.unfold(1, 5, 1)",
    "unfold_step0": "x.unfold(1, 2, 0)",
    "unfold_negative": "x.unfold(1, -1, 1)",
    "unfold_float_size": "x.unfold(1, 1.5, 1)",
    "one_hot": "F.one_hot(torch.tensor([0, 2, 1]))",
    "one_hot_classes": "F.one_hot(torch.tensor([[0, 2], [1, 1]]), 4)",
    "one_hot_float": "F.one_hot(torch.tensor([1.]))",
    "one_hot_negative": "F.one_hot(torch.tensor([-1]))",
    "one_hot_too_big": "F.one_hot(torch.tensor([3]), 2)",
    "one_hot_empty": "F.one_hot(torch.tensor([], dtype=torch.long))",
    "pad_constant": "F.pad(x, (1, 2))",
    "pad_value": "F.pad(x, (1, 0, 0, 2), value=-1.5)",
    "pad_crop": "F.pad(b, (-1, 1, 0, 0, 1, 0))",
    "pad_torch": "torch.constant_pad_nd(x, (2, 1), 3.)",
    "pad_reflect": "F.pad(b, (2, 1), mode='reflect')",
    "pad_reflect_2d": "F.pad(b, (1, 1, 1, 0), mode='reflect')",
    "pad_reflect_2d_input": "F.pad(x, (3, 1), mode='reflect')",
    "pad_replicate": "F.pad(b, (2, 3), mode='replicate')",
    "pad_replicate_3d": "F.pad(c.unsqueeze(0), (1, 2, 0, 1, 1, 1), mode='replicate')",
    "pad_odd": "F.pad(x, (1, 2, 3))",
    "pad_too_long": "F.pad(x, (1, 1, 1, 1, 1, 1))",
    "pad_float": "F.pad(x, (1.5, 1))",
    "pad_mode": "F.pad(x, (1, 1), mode='foo')",
    "pad_reflect_value": "F.pad(x, (1, 1), mode='reflect', value=2.)",
    "pad_reflect_size": "F.pad(x, (4, 4), mode='reflect')",
    "pad_reflect_1d_input": "F.pad(v, (1, 1), mode='reflect')",
    "pad_replicate_dims": "F.pad(x, (1, 1, 1, 1), mode='replicate')",
    "pad_circular": "F.pad(b, (1, 2), mode='circular')",
    "pad_circular_2d": "F.pad(b.unsqueeze(0), (2, 1, 1, 0), mode='circular')",
    "pad_circular_crop": "F.pad(b, (-1, 2), mode='circular')",
    "pad_circular_unbatched": "F.pad(x, (3, 0), mode='circular')",
    "pad_circular_wrap": "F.pad(x, (5, 0), mode='circular')",
    "embedding": "F.embedding(torch.tensor([[0, 2], [3, 2]]), m)",
    "embedding_padding": "F.embedding(torch.tensor([1, 0, 1, 3]), m, padding_idx=1)",
    "embedding_padding_neg": "F.embedding(torch.tensor([1, 0, 3]), m, padding_idx=-1)",
    "embedding_freq": "F.embedding(torch.tensor([1, 1, 0, 1]), m, scale_grad_by_freq=True)",
    "embedding_max_norm": "W = m.detach().clone().requires_grad_()\n"
                          "F.embedding(torch.tensor([0, 2]), W, max_norm=1.0)",
    "embedding_torch": "torch.embedding(m, torch.tensor([2, 0]))",
    "embedding_out_of_range": "F.embedding(torch.tensor([4]), m)",
    "embedding_float_indices": "F.embedding(torch.tensor([1.]), m)",
    "embedding_1d_weight": "F.embedding(torch.tensor([1]), v)",
    "embedding_padding_range": "F.embedding(torch.tensor([1]), m, padding_idx=7)",
}

CLOSE = {
    "cdist": "torch.cdist(x, u.t())",
    "cdist_p1": "torch.cdist(x, x * 2, p=1)",
    "cdist_p3": "torch.cdist(b, x, p=3.)",
    "cdist_pinf": "torch.cdist(x, x.flip(0), p=float('inf'))",
    "cdist_p0": "torch.cdist(x, x.flip(0) + 1, p=0)",
    "cdist_batched": "torch.cdist(b, c.transpose(1, 2)[:, :3])",
    "cdist_zero": "torch.cdist(x, x)",
    "cdist_columns": "torch.cdist(x, m)",
    "cdist_1d": "torch.cdist(v, x)",
    "cdist_negative_p": "torch.cdist(x, x, p=-1.)",
    "cdist_string_p": "torch.cdist(x, x, p='2')",
    "cdist_mm": "torch.cdist(torch.linspace(-1, 1, 60).reshape(30, 2) * v[:2], m[:, :2])",
    "cdist_mm_mode": "torch.cdist(x, u.t(), compute_mode='use_mm_for_euclid_dist')",
    "cdist_mm_batched": "torch.cdist(b.expand(2, 2, 3, 4).reshape(4, 3, 4).repeat(1, 9, 1), x)",
    "cdist_no_mm": "torch.cdist(torch.linspace(-1, 1, 60).reshape(30, 2) * v[:2], m[:, :2], "
                   "compute_mode='donot_use_mm_for_euclid_dist')",
    "cdist_mode": "torch.cdist(x, x, compute_mode='fast')",
    "layer_norm": "F.layer_norm(x, (4,))",
    "layer_norm_affine": "F.layer_norm(b, (3, 4), x, x.flip(0), eps=0.1)",
    "layer_norm_weight": "F.layer_norm(b, (4,), weight=v)",
    "layer_norm_torch": "torch.layer_norm(b, [4], v, v)",
    "layer_norm_shape": "F.layer_norm(x, (3,))",
    "layer_norm_weight_shape": "F.layer_norm(x, (4,), w)",
    "layer_norm_empty_shape": "F.layer_norm(x, ())",
    "batch_norm_train": "rm = torch.zeros(4)\nrv = torch.ones(4)\n"
                        "F.batch_norm(x, rm, rv, v, v.flip(0), training=True)",
    "batch_norm_train_3d": "rm = torch.zeros(3)\nrv = torch.ones(3)\n"
                           "F.batch_norm(b.transpose(1, 2), rm, rv, w, None, True, 0.3)",
    "batch_norm_sizes": "F.batch_norm(b, torch.zeros(3), torch.ones(2), v, w, True)",
    "batch_norm_no_stats": "F.batch_norm(x, None, None, training=True)",
    "batch_norm_torch": "rm = torch.zeros(4)\nrv = torch.ones(4)\n"
                        "torch.batch_norm(x, v, None, rm, rv, True, 0.5, 1e-3, False)",
    "batch_norm_eval": "rm = torch.tensor([0.5, -1., 0., 2.])\nrv = torch.tensor([1., 2., 0.5, 3.])\n"
                       "F.batch_norm(x, rm, rv, v, v, training=False, eps=0.01)",
    "batch_norm_eval_plain": "rm = torch.tensor([0.5, -1., 0., 2.])\nrv = torch.tensor([1., 2., .5, 3.])\n"
                             "F.batch_norm(x, rm, rv)",
    "batch_norm_one_value": "F.batch_norm(x[:1], None, None, training=True)",
    "batch_norm_eval_no_stats": "F.batch_norm(x, None, None)",
    "batch_norm_stats_size": "F.batch_norm(x, torch.zeros(3), torch.ones(4), training=True)",
    "batch_norm_weight_size": "F.batch_norm(x, torch.zeros(4), torch.ones(4), w)",
}

# torch.vmap is torch.func.vmap: values and gradients as PyTorch's, but gradcli runs the function
# per sample, so its result's graph ends in StackBackward0 (README: not supported yet)
VMAP = {
    "vmap": "torch.vmap(lambda r: r * r.sum())(x)",
    "vmap_in_dims": "torch.vmap(torch.dot, in_dims=(0, None))(u, w)",
}

MODULES = {
    "bn_train": "torch.manual_seed(0)\nbn = nn.BatchNorm1d(4)\ny = bn(x)\ny = bn(x * 2)\n"
                "(y, bn.running_mean, bn.running_var, bn.num_batches_tracked)",
    "bn_eval": "bn = nn.BatchNorm1d(4)\nbn(x)\nbn.eval()\n(bn(x), bn.running_mean)",
    "bn_momentum_none": "bn = nn.BatchNorm1d(3, momentum=None)\nbn(b.transpose(0, 1))\n"
                        "bn(b.transpose(0, 1) + 1)\n(bn.running_mean, bn.running_var)",
    "bn_untracked": "bn = nn.BatchNorm1d(4, affine=False, track_running_stats=False)\nbn.eval()\n"
                    "bn(x)",
    "bn_1d_input": "nn.BatchNorm1d(4)(v)",
    "ln": "ln = nn.LayerNorm(4)\nln(b)",
    "ln_no_affine": "nn.LayerNorm([3, 4], elementwise_affine=False)(b)",
    "ln_no_bias": "ln = nn.LayerNorm(4, bias=False)\n(ln(x), ln.bias)",
    "embedding_module": "torch.manual_seed(0)\ne = nn.Embedding(5, 3, padding_idx=2)\n"
                 "(e(torch.tensor([[1, 2], [4, 2]])), e.weight)",
    "embedding_pretrained": "e = nn.Embedding.from_pretrained(m)\ne(torch.tensor([3, 1]))",
    "flatten": "nn.Flatten()(b)",
    "flatten_dims": "nn.Flatten(0, 1)(b)",
    "unflatten": "nn.Unflatten(1, (2, 2))(x)",
    "activations": "seq = nn.Sequential(nn.ReLU6(), nn.Hardtanh(-0.5, 0.5), nn.Hardsigmoid(), "
                   "nn.Hardswish(), nn.Mish(), nn.Softsign(), nn.Tanhshrink(), "
                   "nn.Softshrink(0.1), nn.Hardshrink(0.1), nn.Threshold(0.05, -1.), "
                   "nn.LogSigmoid(), nn.Softmin(1))\nseq(x * 3)",
    "glu": "nn.GLU()(x)",
    "relu6_inplace": "y = x * 4\nnn.ReLU6(inplace=True)(y)",
    "module_dict": "d = nn.ModuleDict({'a': nn.Tanh(), 'b': nn.Identity()})\n"
                   "d['c'] = nn.ReLU6()\n[d[k](x) for k in d]",
    "parameter_list": "p = nn.ParameterList([nn.Parameter(torch.ones(4)), "
                      "nn.Parameter(torch.full((4,), 2.))])\n(p[0] * x + p[-1]).sum(0)",
}


def _leaves(lib):
    """The programs' leaves, and F and nn."""
    rng = np.random.default_rng(21)

    def leaf(*shape):
        data = np.round(rng.uniform(-2.0, 2.0, size=shape), 3)
        return lib.tensor(data.tolist(), requires_grad=True)
    return {"x": leaf(3, 4), "v": leaf(4), "w": leaf(3), "u": leaf(4, 3), "s": leaf(),
            "b": leaf(2, 3, 4), "c": leaf(2, 4, 3), "m": leaf(4, 3),
            "F": lib.nn.functional, "nn": lib.nn}


def run(lib, program):
    """What the program does in lib (tests/ops/op_oracle.py), its warnings without the place
    in PyTorch's C++ source they name."""
    report = op_oracle.run(lib, program, inputs=_leaves)
    report["warnings"] = [w.split(" (Triggered internally")[0] for w in report["warnings"]]
    return report


def without_graphs(report):
    if isinstance(report, dict):
        return {k: without_graphs(v) for k, v in report.items() if k != "graph"}
    if isinstance(report, (list, tuple)):
        return [without_graphs(v) for v in report]
    return report


CASES = [(name, program, True) for name, program in EXACT.items()] + [
    (name, program, False) for name, program in {**CLOSE, **MODULES, **VMAP}.items()]


@pytest.mark.parametrize("name, program, exact", CASES, ids=[c[0] for c in CASES])
def test_layer_matches_pytorch(name, program, exact, oracle):
    expected = oracle(lambda torch: run(torch, program))
    got = run(gradcli, program)
    if name in VMAP:
        got, expected = without_graphs(got), without_graphs(expected)
    # (copies of elements to the bit; computed values within float32's last bits, where a
    # cancellation leaves few of them: layer_norm's gradients, cdist through a matrix product)
    if exact:
        op_oracle.assert_matches(got, expected, "report", 0)
    else:
        op_oracle.assert_matches(got, expected, "report", 1e-5, 1e-5)


REPRS = ("nn.Sequential(nn.Flatten(), nn.Unflatten(1, (2, 3)), nn.Identity(), nn.Embedding(10, 3), "
         "nn.Embedding(10, 3, padding_idx=0, max_norm=1.0), "
         "nn.Embedding(3, 2, max_norm=2, norm_type=1., scale_grad_by_freq=True, sparse=True), "
         "nn.LayerNorm(3), nn.LayerNorm([2, 3], elementwise_affine=False, bias=False), "
         "nn.BatchNorm1d(3), nn.BatchNorm1d(3, affine=False, track_running_stats=False), "
         "nn.BatchNorm1d(3, momentum=None), "
         "nn.ReLU6(), nn.ReLU6(inplace=True), nn.Hardtanh(), nn.Hardtanh(0, 2, True), nn.GLU(), "
         "nn.GLU(0), nn.Hardsigmoid(inplace=True), nn.Hardswish(), nn.Mish(True), nn.Softsign(), "
         "nn.Tanhshrink(), nn.Softshrink(), nn.Hardshrink(0.3), nn.Threshold(0.1, 20), "
         "nn.Threshold(0.1, 20, True), nn.LogSigmoid(), nn.Softmin(1), nn.Softmin(), "
         "nn.ModuleDict({'a': nn.ReLU(), 'b': nn.Linear(2, 2)}), "
         "nn.ParameterList([nn.Parameter(torch.ones(3)), "
         "nn.Parameter(torch.ones(2, 2, dtype=torch.float64))]), "
         "nn.ParameterDict({'w': nn.Parameter(torch.ones(3))}), "
         "nn.ParameterDict({'a': nn.Parameter(torch.ones(1)), 'b': nn.Parameter(torch.ones(2, 1))}), "
         "nn.ModuleList([nn.Tanh()]))")


def _printed(lib):
    model = eval(REPRS, {"torch": lib, "nn": lib.nn})
    return {"repr": repr(model), "state": list(model.state_dict()),
            "parameters": [n for n, _ in model.named_parameters()],
            "buffers": [n for n, _ in model.named_buffers()]}


def test_modules_print_and_register_as_pytorchs(oracle):
    assert _printed(gradcli) == oracle(_printed)


def _containers(lib):
    nn = lib.nn
    d = nn.ModuleDict({"a": nn.Tanh()})
    d.update({"b": nn.ReLU()})
    popped = d.pop("a")
    p = nn.ParameterDict({"w": nn.Parameter(lib.ones(2))})
    p["v"] = nn.Parameter(lib.zeros(1))
    pl = nn.ParameterList([nn.Parameter(lib.ones(1))])
    pl.append(nn.Parameter(lib.ones(2)))
    pl.extend([nn.Parameter(lib.ones(3))])
    return {"dict": [list(d.keys()), len(d), "b" in d, "a" in d, repr(popped)],
            "pdict": [list(p.keys()), [tuple(t.shape) for t in p.values()], len(p)],
            "plist": [len(pl), [tuple(t.shape) for t in pl], tuple(pl[-1].shape),
                      [n for n, _ in pl.named_parameters()]]}


def test_containers_behave_as_pytorchs(oracle):
    assert _containers(gradcli) == oracle(_containers)


LISTED = ("meshgrid", "repeat_interleave", "ravel", "unfold", "cdist", "constant_pad_nd",
          "embedding", "layer_norm", "batch_norm", "type_as", "nn.functional.pad",
          "nn.functional.one_hot", "vmap")


def test_layer_ops_are_listed_and_completed():
    import io
    from gradcli.analysis.optable import op_rows
    from gradcli.cli.completer import complete
    from gradcli.lang.session import Session
    names = {r["name"] for r in op_rows()}
    assert [n for n in LISTED if n not in names] == ["vmap"]  # (a function of torch.func)
    session = Session(out=io.StringIO())
    session.run("import torch\nimport torch.nn.functional as F\nx = torch.ones(2, 3)\n")
    offered = {c.text for c in complete("torch.", None, session.namespace)}
    assert {n for n in LISTED if n not in offered} == {  # (methods, and F's own)
        "type_as", "unfold", "nn.functional.pad", "nn.functional.one_hot"}
    offered = {c.text for c in complete("x.", None, session.namespace)}
    assert {"type_as", "unfold", "ravel", "repeat_interleave"} <= offered
    offered = {c.text for c in complete("F.", None, session.namespace)}
    assert {"one_hot", "pad", "embedding", "layer_norm", "batch_norm", "softmin"} <= offered


def test_meshgrid_of_a_matrix_names_its_type_and_size(oracle):
    """(PyTorch prints the matrix's values in its C++ format too; gradcli only its type.)"""
    program = "torch.meshgrid(x, w, indexing='ij')"
    kind, message = oracle(lambda torch: run(torch, program))["error"]
    got_kind, got = run(gradcli, program)["error"]
    head = "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
    assert (got_kind, got) == (kind, head + "[ torch.FloatTensor{3,4} ]")
    assert message.startswith(head) and message.endswith("\n[ torch.FloatTensor{3,4} ]")


def _layer_norms(lib):
    """layer_norm of rows of several lengths (RowwiseMoments' vectors, chunks and cascade),
    without and with weight and bias, in float32 and float64: a digest of the values' bits
    (the values themselves would make the golden file megabytes)."""
    rng = np.random.default_rng(5)
    out = {}
    for dtype in ("float32", "float64"):
        for n in (1, 3, 8, 9, 33, 100, 257, 513, 1000, 2100):
            x = rng.standard_normal((4, n)) * 3 + 1
            w, b = rng.standard_normal(n), rng.standard_normal(n)
            t = getattr(lib, dtype)
            args = [lib.tensor(a, dtype=t) for a in (x, w, b)]
            for affine in (0, 1, 2):
                weight = args[1] if affine else None
                bias = args[2] if affine == 2 else None
                y = np.asarray(lib.nn.functional.layer_norm(args[0], (n,), weight, bias).tolist())
                out[f"{dtype}-{n}-{affine}"] = hashlib.sha256(y.tobytes()).hexdigest()
    return out


def test_layer_norm_rounds_as_pytorchs_kernel(oracle):
    """(float32 and float64 to the bit: gradcli takes the moments in RowwiseMoments' order)"""
    expected = oracle(_layer_norms)
    got = _layer_norms(gradcli)
    assert [k for k in expected if got[k] != expected[k]] == []
