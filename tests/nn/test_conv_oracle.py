"""Convolutions and pooling against PyTorch: values, the nodes (first and second order), the
gradients of every input, PyTorch's errors in its words, the modules' printing and
initialisation after manual_seed, and a small CNN trained for three SGD steps.

Pooling in float64 is PyTorch's to the bit (window sums in its order, max ties to the first
element); convolutions are im2col and a matrix product, whose BLAS order of addition (MKL's
in PyTorch) is not NumPy's: they agree to about 1e-15 relative, and the bias gradient exactly."""

import numpy as np
import pytest

import gradcli


def _data(lib, shape, seed, ties=False):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    values = np.round(values) if ties else np.round(values, 4)
    return lib.tensor(values.tolist(), dtype=lib.float64, requires_grad=True)


CASES = {
    # name: (program of x, w, b and F; exact: float64 values and gradients to the bit)
    "conv2d": ("F.conv2d(x, w, b)", (2, 3, 5, 6), (4, 3, 2, 2), (4,), False),
    "conv2d_stride_pad": ("F.conv2d(x, w, b, stride=2, padding=1)", (2, 3, 5, 6), (4, 3, 3, 2),
                          (4,), False),
    "conv2d_groups_dilation": ("F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), "
                               "dilation=(2, 1), groups=2)", (2, 4, 7, 6), (4, 2, 3, 2), (4,),
                               False),
    "conv2d_same_even": ("F.conv2d(x, w, padding='same')", (1, 2, 5, 4), (3, 2, 2, 3), None,
                         False),
    "conv2d_same_dilated": ("F.conv2d(x, w, b, padding='same', dilation=2)", (1, 2, 5, 5),
                            (3, 2, 3, 3), (3,), False),
    "conv2d_valid_unbatched": ("F.conv2d(x, w, b, padding='valid')", (3, 5, 6), (4, 3, 2, 2),
                               (4,), False),
    "conv1d": ("F.conv1d(x, w, b, stride=2, padding=1)", (2, 3, 7), (4, 3, 3), (4,), False),
    "conv1d_no_bias_groups": ("torch.conv1d(x, w, None, 1, 0, 1, 3)", (2, 3, 7), (6, 1, 2),
                              None, False),
    "conv3d": ("F.conv3d(x, w, b, groups=2)", (2, 4, 3, 3, 2), (4, 2, 2, 3, 1), (4,), False),
    "conv_transpose2d": ("F.conv_transpose2d(x, w, b, stride=(2, 1), padding=(1, 0), "
                         "output_padding=(1, 0), groups=2)", (2, 4, 3, 3), (4, 3, 2, 3), (6,),
                         False),
    "conv_transpose1d": ("F.conv_transpose1d(x, w, b, stride=3, dilation=2)", (2, 3, 4),
                         (3, 2, 3), (2,), False),
    "max_pool2d": ("F.max_pool2d(x, 2)", (2, 3, 5, 6), None, None, True),
    "max_pool2d_ties": ("F.max_pool2d(x, 3, stride=1, padding=1)", (2, 2, 5, 6), None, None,
                        "ties"),
    "max_pool2d_indices": ("F.max_pool2d(x, (3, 2), (2, 1), (1, 1), (1, 2), True, True)",
                           (2, 3, 7, 6), None, None, "ties"),
    "max_pool1d": ("F.max_pool1d(x, 3, 2, 1, return_indices=True)", (2, 3, 8), None, None,
                   "ties"),
    "max_pool2d_unbatched": ("torch.max_pool2d(x, 2, 1, 0, 2, True)", (3, 5, 6), None, None,
                             True),
    "avg_pool2d": ("F.avg_pool2d(x, 2)", (2, 3, 5, 6), None, None, True),
    "avg_pool2d_overlap": ("F.avg_pool2d(x, 3, 1, 1)", (2, 3, 5, 6), None, None, True),
    "avg_pool2d_ceil_no_pad": ("F.avg_pool2d(x, (3, 2), (2, 1), (1, 1), True, False)",
                               (2, 3, 7, 6), None, None, True),
    "avg_pool2d_divisor": ("F.avg_pool2d(x, 3, 2, 1, True, True, 5)", (3, 7, 6), None, None,
                           True),
    "avg_pool1d": ("F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)", (2, 3, 8), None, None,
                   True),
    "adaptive_avg_pool2d": ("F.adaptive_avg_pool2d(x, (3, 4))", (2, 3, 7, 6), None, None, True),
    "adaptive_avg_pool2d_none": ("F.adaptive_avg_pool2d(x, (None, 5))", (3, 7, 6), None, None,
                                 True),
    "adaptive_avg_pool2d_1": ("F.adaptive_avg_pool2d(x, 1)", (2, 3, 5, 6), None, None, True),
    "adaptive_avg_pool1d": ("F.adaptive_avg_pool1d(x, 3)", (2, 3, 7), None, None, True),
    "adaptive_avg_pool2d_up": ("F.adaptive_avg_pool2d(x, (8, 7))", (1, 2, 5, 4), None, None,
                               True),
    "adaptive_avg_pool2d_up_from_one": ("F.adaptive_avg_pool2d(x, (5, 7))", (2, 1, 1, 1), None,
                                        None, True),
    "adaptive_avg_pool2d_big_windows": ("F.adaptive_avg_pool2d(x, (2, 1))", (2, 2, 30, 31),
                                        None, None, True),
    "adaptive_max_pool2d": ("F.adaptive_max_pool2d(x, (3, 4), True)", (2, 3, 7, 6), None, None,
                            "ties"),
    "adaptive_max_pool2d_1": ("F.adaptive_max_pool2d(x, 1)", (3, 5, 6), None, None, "ties"),
    "adaptive_max_pool1d": ("F.adaptive_max_pool1d(x, 3, return_indices=True)", (2, 3, 8),
                            None, None, "ties"),
    "max_pool3d": ("F.max_pool3d(x, 2)", (2, 2, 4, 5, 4), None, None, True),
    "max_pool3d_indices": ("F.max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 1, 0), (1, 2, 1), True, "
                           "True)", (2, 2, 5, 6, 5), None, None, "ties"),
    "max_pool3d_unbatched": ("torch.max_pool3d(x, 2, 1, 1, 1, False)", (2, 3, 4, 3), None,
                             None, "ties"),
    "avg_pool3d": ("F.avg_pool3d(x, 2)", (2, 2, 4, 5, 4), None, None, True),
    "avg_pool3d_overlap_ceil": ("F.avg_pool3d(x, (3, 2, 3), (2, 1, 2), (1, 1, 1), True, False)",
                                (2, 2, 5, 6, 5), None, None, True),
    "avg_pool3d_divisor_unbatched": ("F.avg_pool3d(x, 3, 2, 1, False, True, 5)", (2, 5, 4, 6),
                                     None, None, True),
    "adaptive_avg_pool3d": ("F.adaptive_avg_pool3d(x, (2, 3, 4))", (2, 2, 5, 7, 6), None, None,
                            True),
    "adaptive_avg_pool3d_up_none": ("F.adaptive_avg_pool3d(x, (None, 7, 5))", (2, 3, 4, 3), None,
                                    None, True),
    "adaptive_avg_pool3d_1": ("F.adaptive_avg_pool3d(x, 1)", (2, 2, 3, 4, 3), None, None, True),
    "adaptive_max_pool3d": ("F.adaptive_max_pool3d(x, (2, 3, 2), True)", (2, 2, 5, 7, 4), None,
                            None, "ties"),
    "unfold": ("F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))",
               (2, 3, 5, 6), None, None, True),
    "unfold_unbatched": ("F.unfold(x, 2, 1, 0, 1)", (3, 4, 4), None, None, True),
    "fold": ("F.fold(x, (5, 6), (2, 2), padding=(1, 0))", (2, 12, 30), None, None, True),
    "fold_strided_dilated": ("F.fold(x, [7, 6], (3, 2), (2, 1), (1, 1), (2, 3))", (3, 30, 9),
                             None, None, True),
    "max_unpool2d": ("F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2)",
                     (2, 3, 4, 6), None, None, "ties"),
    "max_unpool2d_output_size": ("F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2, "
                                 "output_size=(5, 7))", (2, 3, 5, 7), None, None, "ties"),
    "max_unpool2d_overlapping": ("torch.nn.MaxUnpool2d(3, 1, 1)(*F.max_pool2d(x, 3, 1, 1, "
                                 "return_indices=True))", (1, 2, 4, 5), None, None, "ties"),
    "max_unpool1d": ("F.max_unpool1d(*F.max_pool1d(x, 3, 2, return_indices=True), 3, 2)",
                     (2, 3, 8), None, None, "ties"),
    "max_unpool1d_module": ("torch.nn.MaxUnpool1d(2)(*F.max_pool1d(x, 2, return_indices=True), "
                            "output_size=[2, 3, 9])", (2, 3, 9), None, None, "ties"),
    "max_unpool3d": ("F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2)",
                     (2, 2, 4, 4, 6), None, None, "ties"),
    "max_unpool3d_output_size": ("F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, "
                                 "output_size=(1, 2, 5, 5, 7))", (1, 2, 5, 5, 7), None, None,
                                 "ties"),
    "max_unpool3d_overlapping_unbatched": (
        "torch.nn.MaxUnpool3d((3, 2, 3), 1, (1, 0, 1))(*F.max_pool3d(x, (3, 2, 3), 1, "
        "(1, 0, 1), return_indices=True))", (2, 3, 4, 5), None, None, "ties"),
    "pixel_shuffle": ("F.pixel_shuffle(x, 2)", (2, 8, 3, 2), None, None, True),
    "pixel_shuffle_batch_dims": ("torch.pixel_shuffle(x, 3)", (2, 1, 9, 2, 1), None, None, True),
    "pixel_unshuffle": ("F.pixel_unshuffle(x, 3)", (1, 2, 6, 3), None, None, True),
    "interpolate_nearest_scale2": ("F.interpolate(x, scale_factor=2)",
                                  (1, 2, 3, 4), None, None, True),
    "interpolate_nearest_up": ("F.interpolate(x, size=(5, 7))", (2, 2, 3, 4), None, None, True),
    "interpolate_nearest_down": ("F.interpolate(x, size=(2, 3))", (1, 2, 5, 7), None, None, True),
    "interpolate_bilinear_scales": ("F.interpolate(x, scale_factor=(1.5, 2.5), mode='bilinear')",
                                   (1, 2, 3, 4), None, None, True),
    "interpolate_bilinear_align": ("F.interpolate(x, size=(5, 7), mode='bilinear', "
                                  "align_corners=True)", (2, 2, 3, 4), None, None, True),
    "interpolate_bilinear_down": ("F.interpolate(x, size=(2, 3), mode='bilinear')",
                                 (1, 2, 5, 7), None, None, True),
    "interpolate_linear": ("F.interpolate(x, size=7, mode='linear')", (2, 3, 4), None, None, True),
    "interpolate_linear_down_scale": ("F.interpolate(x, scale_factor=0.7, mode='linear')",
                                     (2, 3, 9), None, None, True),
    "interpolate_trilinear_align": ("F.interpolate(x, scale_factor=2, mode='trilinear', "
                                   "align_corners=True)", (1, 1, 2, 3, 4), None, None, True),
    "interpolate_trilinear": ("F.interpolate(x, size=(3, 5, 2), mode='trilinear')",
                             (1, 2, 2, 3, 4), None, None, True),
    "interpolate_nearest3d": ("F.interpolate(x, size=(2, 3, 5))", (1, 1, 2, 3, 4), None, None,
                              True),
    "interpolate_nearest1d_scale": ("F.interpolate(x, scale_factor=1.7)",
                                   (2, 3, 5), None, None, True),
    "interpolate_bilinear_recompute": ("F.interpolate(x, scale_factor=2.3, "
                                      "recompute_scale_factor=True, mode='bilinear')",
                                      (1, 2, 3, 4), None, None, True),
    "interpolate_area_up": ("F.interpolate(x, size=(6, 9), mode='area')",
                           (1, 2, 3, 4), None, None, True),
    "interpolate_area_scale": ("F.interpolate(x, scale_factor=0.5, mode='area')",
                              (1, 2, 5, 6), None, None, True),
    "interpolate_upsample_module": ("torch.nn.Upsample(scale_factor=2, mode='bilinear')(x)",
                                   (1, 2, 3, 4), None, None, True),
    "interpolate_upsampling_bilinear2d": ("torch.nn.UpsamplingBilinear2d(size=(5, 6))(x)",
                                         (1, 2, 3, 4), None, None, True),
    "interpolate_upsampling_nearest2d": ("torch.nn.UpsamplingNearest2d(scale_factor=3)(x)",
                                        (1, 2, 3, 4), None, None, True),
    "interpolate_bilinear_same_size": ("F.interpolate(x, size=(4, 4), mode='bilinear')",
                                      (1, 2, 4, 4), None, None, True),
    "interpolate_bilinear_vector_channels": ("F.interpolate(x, size=(5, 3), mode='bilinear')",
                                             (1, 11, 3, 4), None, None, True),
    "interpolate_bilinear_big_output": ("F.interpolate(x, size=(60, 70), mode='bilinear', "
                                        "align_corners=True)", (1, 2, 3, 4), None, None, True),
    "adaptive_max_pool3d_up": ("F.adaptive_max_pool3d(x, (4, 5, 3))", (2, 3, 2, 2), None, None,
                               "ties"),
    "lp_pool1d": ("F.lp_pool1d(x, 2, 3, stride=2)", (2, 3, 8), None, None, True),
    "lp_pool2d_fractional_p": ("F.lp_pool2d(x.abs() + 0.1, 1.5, (2, 3))", (1, 2, 5, 6), None,
                               None, False),
    "lp_pool3d_ceil": ("F.lp_pool3d(x, 3, 2, ceil_mode=True)", (1, 1, 3, 4, 5), None, None,
                       False),
    "lp_pool2d_inf": ("F.lp_pool2d(x, float('inf'), 2)", (1, 2, 4, 4), None, None, "ties"),
    "lp_pool1d_minus_inf_unbatched": ("F.lp_pool1d(x, -float('inf'), 2)", (2, 6), None, None,
                                      "ties"),
    "lp_pool2d_module": ("torch.nn.LPPool2d(2, 2, stride=1)(x)", (1, 1, 3, 3), None, None,
                         True),
    "interpolate_bicubic_up": ("F.interpolate(x, size=(5, 7), mode='bicubic')", (2, 2, 3, 4),
                               None, None, True),
    "interpolate_bicubic_align_scales": ("F.interpolate(x, scale_factor=(1.5, 2.5), "
                                         "mode='bicubic', align_corners=True)", (1, 2, 3, 4),
                                         None, None, True),
    "interpolate_bicubic_down": ("F.interpolate(x, size=(2, 3), mode='bicubic')", (1, 2, 5, 7),
                                 None, None, True),
    "interpolate_bicubic_borders": ("F.interpolate(x, size=(1, 9), mode='bicubic')",
                                    (1, 1, 2, 2), None, None, True),
    "interpolate_bicubic_module": ("torch.nn.Upsample(scale_factor=2, mode='bicubic', "
                                   "align_corners=True)(x)", (1, 3, 2, 3), None, None, True),
    "interpolate_bilinear_antialias_down": ("F.interpolate(x, size=(3, 2), mode='bilinear', "
                                            "antialias=True)", (1, 2, 7, 6), None, None, True),
    "interpolate_bicubic_antialias_align": ("F.interpolate(x, scale_factor=(0.6, 1.5), "
                                            "mode='bicubic', align_corners=True, "
                                            "antialias=True)", (2, 1, 6, 3), None, None, True),
    "interpolate_bilinear_antialias_one_column": ("F.interpolate(x, size=(2, 1), "
                                                  "mode='bilinear', antialias=True)",
                                                  (1, 1, 5, 3), None, None, True),
    "interpolate_bicubic_same_size_scaled": ("F.interpolate(x, scale_factor=1.05, "
                                             "mode='bicubic')", (1, 2, 5, 4), None, None, True),
    "interpolate_nearest_exact_1d": ("F.interpolate(x, scale_factor=1.7, mode='nearest-exact')",
                                     (2, 3, 4), None, None, True),
    "interpolate_nearest_exact_2d": ("F.interpolate(x, size=(5, 3), mode='nearest-exact')",
                                     (1, 2, 3, 4), None, None, True),
    "interpolate_nearest_exact_3d": ("F.interpolate(x, scale_factor=0.6, mode='nearest-exact')",
                                     (1, 1, 4, 5, 3), None, None, True),
    "interpolate_nearest_exact_module": ("torch.nn.Upsample(size=(4, 6), mode='nearest-exact')(x)",
                                         (1, 2, 2, 3), None, None, True),
}


def _graph(fn, depth=0):
    if fn is None or depth > 4:
        return None
    return [fn.name(), [_graph(n, depth + 1) for n, _ in fn.next_functions]]


def _saved(fn):
    out = {}
    for name in dir(fn):
        if name.startswith("_saved_") and "input" not in name and "weight" not in name \
                and "self" not in name and "result" not in name:
            value = getattr(fn, name)
            value = list(value) if isinstance(value, tuple) else value
            value = value.tolist() if hasattr(value, "tolist") else value  # (a saved tensor)
            # (PyTorch shows a negative dim saved as an unsigned integer: 2**64 - 1 for -1)
            out[name] = [v - 2 ** 64 if isinstance(v, int) and v >= 2 ** 63 else v
                         for v in value] if isinstance(value, list) else value
    return out


def run_case(lib, name):
    program, xs, ws, bs, exact = CASES[name]
    env = {"torch": lib, "F": lib.nn.functional,
           "x": _data(lib, xs, 1, ties=exact == "ties"),
           "w": None if ws is None else _data(lib, ws, 2),
           "b": None if bs is None else _data(lib, bs, 3)}
    result = eval(program, env)
    return _answers(lib, result, [env[k] for k in "xwb" if env[k] is not None])


def _answers(lib, result, leaves):
    """A result's value, graph, saved values, first and second gradients for leaves."""
    y = result[0] if isinstance(result, tuple) else result
    weight = lib.tensor(np.linspace(-1, 1.5, y.numel()).reshape(tuple(y.shape)).tolist(),
                        dtype=y.dtype)
    grads = lib.autograd.grad((y * weight).sum(), leaves, create_graph=True)
    total = sum((g * g).sum() for g in grads)
    second = lib.autograd.grad(total, leaves, allow_unused=True) if total.requires_grad else \
        [None] * len(leaves)
    node = y.grad_fn if y.grad_fn.name() != "SqueezeBackward1" else \
        y.grad_fn.next_functions[0][0]
    return {"value": np.asarray(y.tolist()), "shape": list(y.shape), "graph": _graph(y.grad_fn),
            "indices": result[1].tolist() if isinstance(result, tuple) else None,
            "saved": _saved(node),
            "grads": [np.asarray(g.tolist()) for g in grads],
            "second_graph": [g.grad_fn and g.grad_fn.name() for g in grads],
            "second_saved": [g.grad_fn and sorted(a for a in dir(g.grad_fn)
                                                  if a.startswith("_saved_")) for g in grads],
            "second": [None if g is None else np.asarray(g.tolist()) for g in second]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name, oracle):
    theirs = oracle(lambda torch: run_case(torch, name))
    ours = run_case(gradcli, name)
    exact = CASES[name][4]
    for key in ("shape", "graph", "indices", "saved", "second_graph", "second_saved"):
        assert ours[key] == theirs[key], key
    tolerance = {"rtol": 0, "atol": 0} if exact else {"rtol": 1e-13, "atol": 1e-13}
    np.testing.assert_allclose(ours["value"], theirs["value"], **tolerance)
    for a, b in zip(ours["grads"], theirs["grads"]):
        np.testing.assert_allclose(a, b, **tolerance)
    for a, b in zip(ours["second"], theirs["second"]):
        # (PyTorch's pooling backward ops give `self` a zero gradient; gradcli's none)
        if a is None and b is not None:
            assert not np.any(b)
        elif b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


MODULE_CASES = {
    # name: (the module, its call on x, x's shape): float64 parameters after manual_seed(0)
    "conv2d_reflect": ("torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode='reflect')", "m(x)",
                       (2, 2, 5, 4)),
    "conv2d_replicate_asymmetric": ("torch.nn.Conv2d(2, 4, (3, 2), padding=(2, 1), "
                                    "padding_mode='replicate', groups=2, stride=(2, 1))",
                                    "m(x)", (2, 2, 5, 4)),
    "conv2d_circular_unbatched": ("torch.nn.Conv2d(2, 3, 3, padding=2, padding_mode='circular',"
                                  " bias=False)", "m(x)", (2, 4, 5)),
    "conv1d_reflect_same_even": ("torch.nn.Conv1d(2, 3, 4, padding='same', "
                                 "padding_mode='reflect')", "m(x)", (2, 2, 7)),
    "conv1d_circular_same_dilated": ("torch.nn.Conv1d(2, 3, 3, padding='same', dilation=2, "
                                     "padding_mode='circular')", "m(x)", (2, 2, 7)),
    "conv3d_replicate": ("torch.nn.Conv3d(2, 2, 2, padding=(1, 0, 1), "
                         "padding_mode='replicate')", "m(x)", (1, 2, 3, 3, 4)),
    "conv3d_reflect_same": ("torch.nn.Conv3d(1, 2, (3, 2, 1), padding='same', "
                            "padding_mode='reflect')", "m(x)", (1, 1, 3, 4, 3)),
    "conv_transpose2d_output_size": ("torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)",
                                     "m(x, output_size=[8, 9])", (2, 2, 4, 5)),
    "conv_transpose1d_output_size_full": ("torch.nn.ConvTranspose1d(2, 3, 2, stride=3)",
                                          "m(x, output_size=(2, 3, 12))", (2, 2, 4)),
    "conv_transpose3d_output_size_unbatched": ("torch.nn.ConvTranspose3d(2, 2, 2, stride=2, "
                                               "dilation=2)", "m(x, output_size=(2, 5, 6, 5))",
                                               (2, 2, 2, 2)),
}


def run_module_case(lib, name):
    module, call, xs = MODULE_CASES[name]
    lib.manual_seed(0)
    m = eval(module, {"torch": lib}).double()
    x = _data(lib, xs, 1)
    return _answers(lib, eval(call, {"m": m, "x": x}), [x] + list(m.parameters()))


@pytest.mark.parametrize("name", sorted(MODULE_CASES))
def test_modules_match_pytorch(name, oracle):
    """Convolutions with a padding_mode pad first (the pad's node under ConvolutionBackward0);
    ConvTranspose's output_size picks the output_padding."""
    theirs = oracle(lambda torch: run_module_case(torch, name))
    ours = run_module_case(gradcli, name)
    for key in ("shape", "graph", "saved", "second_graph", "second_saved"):
        assert ours[key] == theirs[key], key
    np.testing.assert_allclose(ours["value"], theirs["value"], rtol=1e-13, atol=1e-13)
    for a, b in zip(ours["grads"] + ours["second"], theirs["grads"] + theirs["second"]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


ERRORS = [
    "F.conv2d(torch.ones(5, 6), torch.ones(4, 2, 2, 2))",
    "F.conv2d(torch.ones(1, 2, 4, 5, 6), torch.ones(4, 2, 2, 2))",
    "F.conv1d(torch.ones(2, 4, 5, 6), torch.ones(4, 2, 2))",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 2, 2))",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 2, 2, 2))",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 2, 2, 2), groups=3)",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(3, 2, 2, 2), groups=2)",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 4, 7, 2))",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 4, 2, 2), padding=-1)",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 4, 2, 2), stride=0)",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 4, 2, 2), dilation=0)",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 4, 2, 2), stride=2, padding='same')",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 4, 2, 2), padding='foo')",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 4, 2, 2), torch.ones(3))",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 4, 2, 2), padding=(1, 1, 1))",
    "F.conv2d(torch.ones(2, 4, 5, 6), torch.ones(4, 4, 2, 2), groups=0)",
    "F.max_pool2d(torch.ones(2, 4, 5, 6), 7)",
    "F.max_pool2d(torch.ones(2, 4, 5, 6), 2, padding=2)",
    "F.max_pool2d(torch.ones(6), 2)",
    "F.max_pool2d(torch.ones(2, 4, 5, 6), 2, stride=0)",
    "F.max_pool2d(torch.ones(2, 4, 5, 6), 2, dilation=0)",
    "F.max_pool2d(torch.ones(2, 4, 5, 6), 0)",
    "F.max_pool2d(torch.ones(2, 4, 5, 6), 2, padding=-1)",
    "F.max_pool2d(torch.ones(2, 4, 5, 6), (2, 2, 2))",
    "F.avg_pool2d(torch.ones(2, 4, 5, 6), 7)",
    "F.avg_pool2d(torch.ones(2, 4, 5, 6), 2, padding=2)",
    "F.avg_pool2d(torch.ones(2, 4, 5, 6), 2, divisor_override=0)",
    "F.adaptive_avg_pool2d(torch.ones(6), 2)",
    "F.adaptive_avg_pool2d(torch.ones(2, 4, 5, 6), -1)",
    "F.adaptive_avg_pool2d(torch.ones(2, 4, 0, 6), 2)",
    "F.adaptive_max_pool2d(torch.ones(6), 2)",
    "F.adaptive_max_pool2d(torch.ones(2, 4, 5, 6), -1)",
    "F.max_pool1d(torch.ones(2, 4, 5, 6), 2)",
    "F.avg_pool1d(torch.ones(2, 4, 5, 6), 2)",
    "F.max_pool2d(torch.ones(1, 1, 1, 1), 2)",
    "F.conv1d(torch.ones(1, 1, 5), torch.ones(1, 1))",
    "F.conv2d(torch.ones(0, 1, 4, 4), torch.ones(2, 1, 1, 1)).shape",
    "F.conv2d(torch.ones(1, 2, 4, 4), torch.ones(2, 1, 1, 1), groups=5)",
    "F.conv2d(torch.ones(1, 2, 4, 4), torch.ones(2, 2, 1, 1, dtype=torch.float64))",
    "F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), torch.ones(1, dtype=torch.float64))",
    "F.conv2d(torch.ones(1, 1, 4, 4, dtype=torch.bool), torch.ones(1, 1, 2, 2, dtype=torch.bool))",
    "F.conv2d(torch.ones(1, 2, 4, 4), torch.ones(2, 2, 1, 1), padding=1.5)",
    "F.conv2d(torch.ones(1, 2, 4, 4), 'w')",
    "F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), None, True)",
    "F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 1, 3, 3), output_padding=2)",
    "F.conv_transpose1d(torch.ones(1, 2, 3), torch.ones(2, 1, 3), output_padding=2)",
    "F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 1, 3, 3), stride=1.5)",
    "torch.convolution(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), None, 1, 0, 1, False, 0, 1)",
    "torch.convolution(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), None, [1, 1], [0, 0], "
    "[1, 1], False, [0, 0], 1).shape",
    "F.max_pool2d(torch.ones(1, 1, 4, 4, dtype=torch.bool), 2)",
    "F.max_pool2d(torch.ones(1, 1, 4, 4), 2.5)",
    "F.max_pool2d(torch.ones(1, 1, 4, 4), 2, stride=1.5)",
    "F.max_pool2d(torch.ones(1, 1, 4, 4), 2, dilation=(1, 1, 1))",
    "F.max_pool1d(torch.ones(1, 4, 4), (2, 2))",
    "F.max_pool1d(torch.ones(1, 4, 4), 2, stride=(1, 1))",
    "F.avg_pool1d(torch.ones(1, 4, 4), (2, 2))",
    "F.avg_pool1d(torch.ones(1, 4, 4), 2.5)",
    "F.avg_pool2d(torch.ones(1, 1, 4, 4, dtype=torch.complex64), 2)",
    "F.avg_pool2d(torch.ones(1, 1, 4, 4), 2, divisor_override=1.5)",
    "F.adaptive_avg_pool2d(torch.ones(1, 1, 4, 4, dtype=torch.int64), 2)",
    "F.adaptive_avg_pool2d(torch.ones(1, 1, 4, 4), 'a')",
    "F.adaptive_avg_pool2d(torch.ones(1, 1, 4, 4), (2, 2.5))",
    "F.adaptive_avg_pool1d(torch.ones(1, 4, 4), (2, 2))",
    "F.adaptive_avg_pool1d(torch.ones(4), 2)",
    "F.adaptive_max_pool2d(torch.ones(1, 1, 4, 4), 0).shape",
    "F.adaptive_max_pool2d(torch.ones(1, 1, 4, 4, dtype=torch.int64), 2)",
    "torch.nn.MaxPool2d()",
    "torch.nn.AvgPool2d()",
    "torch.nn.AdaptiveAvgPool2d()",
    "torch.nn.MaxPool2d(2, foo=1)",
    "torch.nn.Conv2d(3, 4, 2, groups=2)",
    "torch.nn.Conv2d(4, 3, 2, groups=2)",
    "torch.nn.Conv2d(2, 4, 3, stride=2, padding='same')",
    "torch.nn.ConvTranspose2d(2, 4, 3, padding_mode='reflect')",
    "torch.nn.Conv2d(2, 4, 3, padding_mode='reflect')(torch.ones(1, 2, 2, 2))",
    "torch.nn.Conv1d(2, 4, 3, padding=4, padding_mode='circular')(torch.ones(1, 2, 3))",
    "torch.nn.ConvTranspose2d(2, 3, 3, stride=2)(torch.ones(1, 2, 4, 4), output_size=[9, 11])",
    "torch.nn.ConvTranspose2d(2, 3, 3, stride=2)(torch.ones(1, 2, 4, 4), "
    "output_size=(1, 3, 7, 9))",
    "torch.nn.ConvTranspose2d(2, 3, 3, stride=2)(torch.ones(1, 2, 4, 4), output_size=[9])",
    "torch.nn.ConvTranspose1d(2, 1, 3)(torch.ones(2, 3), output_size=[2])",
    "torch.nn.ConvTranspose1d(2, 1, 3)(torch.ones(2, 3), output_size=[1, 2, 3])",
    "F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 1, 3, 3), padding=3)",
    "F.conv_transpose1d(torch.ones(1, 2, 3), torch.ones(2, 1, 2), padding=3)",
    "F.conv_transpose3d(torch.ones(1, 2, 1, 1, 1), torch.ones(2, 1, 1, 1, 1), padding=1)",
    "F.conv_transpose3d(torch.ones(1, 2, 3, 3, 3), torch.ones(2, 1, 3, 3, 3), "
    "output_padding=(0, 0, 3), stride=2)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 7)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 2, padding=2)",
    "F.max_pool3d(torch.ones(6), 2)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 2, stride=0)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 2, dilation=0)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 0)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 2, padding=-1)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), (2, 2))",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 2, stride=(1,1))",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 2, padding=(1,1))",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 2, dilation=(1,1))",
    "F.max_pool3d(torch.ones(1, 2, 0, 5, 6), 2)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6,dtype=torch.bool), 2)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 2.5)",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6), 3, 1, (1,2,1))",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), 7)",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), 2, padding=2)",
    "F.avg_pool3d(torch.ones(6), 2)",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), 2, stride=0)",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), 0)",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), (2,2))",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), 2, stride=(1,1))",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), 2, padding=(1,1))",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), 2, divisor_override=0)",
    "F.avg_pool3d(torch.ones(1, 2, 0, 5, 6), 2)",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6, dtype=torch.int64), 2)",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6, dtype=torch.complex64), 2)",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), 2, divisor_override=1.5)",
    "F.avg_pool3d(torch.ones(1, 2, 4, 5, 6), 2, padding=-1)",
    "F.adaptive_avg_pool3d(torch.ones(6), 2)",
    "F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 5, 6), -1)",
    "F.adaptive_avg_pool3d(torch.ones(1, 2, 0, 5, 6), 2)",
    "F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 5, 6), (2,2))",
    "F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 5, 6, dtype=torch.int64), 2)",
    "F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 5, 6), 'a')",
    "F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 5, 6), (2,2,2.5))",
    "F.adaptive_max_pool3d(torch.ones(6), 2)",
    "F.adaptive_max_pool3d(torch.ones(1, 2, 4, 5, 6), -1)",
    "F.adaptive_max_pool3d(torch.ones(1, 2, 0, 5, 6), 2)",
    "F.adaptive_max_pool3d(torch.ones(1, 2, 4, 5, 6), (2,2))",
    "F.adaptive_max_pool3d(torch.ones(1, 2, 4, 5, 6, dtype=torch.int64), 2)",
    "F.adaptive_max_pool3d(torch.ones(1, 2, 4, 5, 6), 0).shape",
    "F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 5, 6), 0).shape",
    "F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 5, 6), (None, 2, 3)).shape",
    "F.max_pool3d(torch.ones(2,4,5,6), 2).shape",
    "F.max_pool3d(torch.ones(1,1,1,1,1), 2)",
    "F.max_pool3d(torch.ones(0,2,4,5,6), 2).shape",
    "F.avg_pool3d(torch.ones(0,2,4,5,6), 2).shape",
    "F.max_pool3d(torch.ones(1, 2, 4, 5, 6,dtype=torch.int64), 2).dtype",
    "F.adaptive_max_pool3d(torch.ones(1, 2, 4, 5, 6,dtype=torch.float32), (1,2,3), True)[1].dtype",
    "F.unfold(torch.ones(4,4),2)",
    "F.unfold(torch.ones(1,2,4,4),5)",
    "F.unfold(torch.ones(1,2,4,4),0)",
    "F.unfold(torch.ones(1,2,4,4),2,stride=0)",
    "F.unfold(torch.ones(1,2,4,4),2,dilation=0)",
    "F.unfold(torch.ones(1,2,4,4),2,padding=-1)",
    "F.unfold(torch.ones(1,2,4,4),(2,2,2))",
    "F.unfold(torch.ones(1,2,4,4),2.5)",
    "F.unfold(torch.ones(1,2,0,4),2)",
    "F.unfold(torch.ones(0,2,4,4),2).shape",
    "F.fold(torch.ones(1,8,9),(4,4),2)",
    "F.fold(torch.ones(1,8,9),(4,4),3)",
    "F.fold(torch.ones(1,7,9),(4,4),2)",
    "F.fold(torch.ones(8,9,1,1),(4,4),2)",
    "F.fold(torch.ones(1,8,9),4,2)",
    "F.fold(torch.ones(1,8,9),(4,4,4),2)",
    "F.fold(torch.ones(1,8,9),(4,4),0)",
    "F.fold(torch.ones(1,8,9),(4,4),2,stride=0)",
    "F.fold(torch.ones(1,8,9),(1,1),2)",
    "F.fold(torch.ones(1,8,0),(4,4),2)",
    "F.unfold(torch.ones(1,2,4,4,dtype=torch.int64),2).dtype",
    "F.unfold(torch.ones(1,2,4,4,dtype=torch.bool),2).dtype",
    "F.fold(torch.ones(1,8,9,dtype=torch.int64),(4,4),2).dtype",
    "torch.nn.Unfold(2, padding=1)",
    "torch.nn.Fold((4,5), 2, stride=(1,2))",
    "torch.nn.Unfold((2,3), 2, 1, 2)",
    "torch.nn.Unfold()",
    "torch.nn.Fold(2)",
    "torch.nn.Unfold(2, 1, 1, 1, 1)",
    "torch.nn.Fold(2, 2, foo=1)",
    "torch.nn.Fold((3, 3), 2, 1, 0, 1, 1)",
    "F.fold(torch.ones(1, 8, 9, dtype=torch.bool), (4, 4), 2)",
    "F.unfold(torch.ones(1, 2, 3, 5), (3, 2), padding=(0, 2), stride=(1, 4), dilation=(2, 1))",
    "F.fold(torch.ones(1, 8, 4), (3, 3), 2, dilation=3)",
    "F.fold(torch.ones(1, 8, 1), (0, 4), (1, 2), padding=(1, 0))",
    "F.fold(torch.ones(0, 8, 9), (4, 4), 2).shape",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[1, 6], [9, 11]]]]), 2, "
    "output_size=(3,))",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[1, 6], [9, 11]]]]), 2, "
    "output_size=(5, 4)).shape",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[1, 6], [9, 11]]]]), 2, "
    "output_size=(1, 4))",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2), 2)",
    "F.max_unpool2d(torch.ones(2, 2), torch.tensor([[1, 6], [9, 11]]), 2)",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[1], [9]]]]), 2)",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[1, 6], [9, 16]]]]), 2)",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[1, -6], [9, 0]]]]), 2)",
    "F.max_unpool2d(torch.ones(1, 0, 2, 2), torch.ones(1, 0, 2, 2, dtype=torch.int64), 2)",
    "F.max_unpool2d(torch.ones(0, 1, 2, 2), torch.ones(0, 1, 2, 2, dtype=torch.int64), 2).shape",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2, dtype=torch.int64), torch.tensor([[[[1, 6], [9, 11]]]]),"
    " 2)",
    "F.max_unpool2d(torch.ones(1, 1, 1, 3), torch.tensor([[[[1, 1, 0]]]]), (1, 2)).tolist()",
    "F.max_unpool1d(torch.ones(1, 1, 3), torch.tensor([[[0, 2, 6]]]), 2)",
    "F.max_unpool1d(torch.ones(1, 1, 3), torch.tensor([[[0, 2, 5]]]), 2, output_size=[7]).shape",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[1, 6], [9, 11]]]]), 2, "
    "output_size=(3, 4.5))",
    "F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[1, 6], [9, 11]]]]), 2.5)",
    "torch.nn.MaxUnpool2d()",
    "F.max_unpool3d(torch.ones(2, 2, 2, 2, 2), torch.zeros(2, 2, 2, 2, 2, dtype=torch.long), 2, "
    "output_size=(9, 5, 5))",
    "F.max_unpool3d(torch.ones(2, 2, 2, 2, 2), torch.zeros(2, 2, 2, 2, 2, dtype=torch.long), 2, "
    "output_size=(5, 5))",
    "F.max_unpool3d(torch.ones(2, 2, 2), torch.zeros(2, 2, 2, dtype=torch.long), 2)",
    "F.max_unpool3d(torch.ones(2, 2, 2, 2), torch.zeros(2, 2, 2, 2, dtype=torch.int32), 2)",
    "F.max_unpool3d(torch.ones(2, 2, 2, 2), torch.zeros(2, 1, 2, 2, dtype=torch.long), 2)",
    "F.max_unpool3d(torch.ones(1, 1, 1, 2), torch.tensor([[[[1, 8]]]]), 2)",
    "F.max_unpool3d(torch.ones(1, 1, 1, 2), torch.tensor([[[[-3, 1]]]]), 2)",
    "F.max_unpool3d(torch.ones(1, 1, 1, 2, dtype=torch.int64), torch.tensor([[[[0, 1]]]]), 2)",
    "F.max_unpool3d(torch.ones(1, 1, 1, 2), torch.tensor([[[[0, 1]]]]), (2, 2))",
    "F.max_unpool3d(torch.ones(1, 1, 1, 2), torch.tensor([[[[0, 1]]]]), 2, stride=(2, 2))",
    "F.max_unpool3d(torch.ones(1, 1, 1, 2), torch.tensor([[[[0, 1]]]]), 2, stride=0)",
    "F.max_unpool3d(torch.ones(1, 1, 0, 2), torch.ones(1, 1, 0, 2, dtype=torch.long), 2)",
    "F.max_unpool3d(torch.ones(1, 1, 1, 2), torch.tensor([[[[0, 1]]]]), 2, "
    "output_size=(2.0, 2, 4))",
    "F.max_unpool3d(torch.ones(1, 1, 1, 2), torch.tensor([[[[0, 7]]]]), 2, padding=1)",
    "F.max_unpool2d(torch.ones(1, 1, 1, 2), torch.tensor([[[[0, 7]]]]), 2, padding=1).shape",
    "F.max_unpool3d(torch.ones(1, 1, 1, 2, dtype=torch.float32), torch.tensor([[[[0, 7]]]]), 2)"
    ".tolist()",
    "F.interpolate(torch.ones(1,2,3,4), size=(5,7), scale_factor=2)",
    "F.interpolate(torch.ones(1,2,3,4))",
    "F.interpolate(torch.ones(1,2,3,4), size=(5,))",
    "F.interpolate(torch.ones(1,2,3,4), size=(5, 2.5))",
    "F.interpolate(torch.ones(1,2,3,4), scale_factor=(2,))",
    "F.interpolate(torch.ones(1,2,3,4), size=5, recompute_scale_factor=True)",
    "F.interpolate(torch.ones(1,2,3,4), size=5, align_corners=True)",
    "F.interpolate(torch.ones(1,2,3,4), size=5, mode='linear')",
    "F.interpolate(torch.ones(1,2,3), size=5, mode='bilinear')",
    "F.interpolate(torch.ones(1,2,3,4,5), size=5, mode='bilinear')",
    "F.interpolate(torch.ones(1,2,3,4), size=5, mode='trilinear')",
    "F.interpolate(torch.ones(2,3), size=5)",
    "F.interpolate(torch.ones(1,2,3,4), size=5, mode='foo')",
    "F.interpolate(torch.ones(1,2,3,4), size=0)",
    "F.interpolate(torch.ones(1,2,3,4), scale_factor=0.1)",
    "F.interpolate(torch.ones(1,2,0,4), size=5)",
    "F.interpolate(torch.ones(0,2,3,4), size=5).shape",
    "F.interpolate(torch.ones(1,0,3,4), size=5)",
    "F.interpolate(torch.ones(1,2,3,4), size=5, antialias=True)",
    "F.interpolate(torch.ones(1,2,3,4, dtype=torch.int64), size=5)",
    "F.interpolate(torch.ones(1,2,3,4, dtype=torch.int64), size=5, mode='bilinear')",
    "F.interpolate(torch.ones(1,2,3,4), size=(5, 6), mode='area').shape",
    "F.interpolate(torch.ones(1,2,3), size=5, mode='linear', align_corners=True).shape",
    "F.interpolate(torch.ones(1,2,3), scale_factor=1.5, mode='nearest').shape",
    "F.interpolate(torch.ones(1,2,3,4), scale_factor=2.5, mode='bilinear', "
    "recompute_scale_factor=True).shape",
    "F.interpolate(torch.ones(1,2,3,4), scale_factor='a')",
    "F.interpolate(torch.ones(1,2,3,4), size='a')",
    "F.interpolate(torch.ones(1,2,3,4), size=-1)",
    "F.interpolate(torch.ones(1,2,3,4,dtype=torch.float64), scale_factor=(1.5, 2)).dtype",
    "F.interpolate(torch.ones(1, 1, 3, dtype=torch.uint8), size=5, mode='nearest-exact')"
    ".tolist()",
    "F.interpolate(torch.ones(1, 1, 3, dtype=torch.int64), size=5, mode='nearest-exact')",
    "F.interpolate(torch.ones(1, 5, 1, dtype=torch.int64), size=5, mode='nearest-exact')",
    "F.interpolate(torch.ones(1, 5, 1, 1, 1, dtype=torch.int64), size=5, mode='nearest-exact')",
    "F.interpolate(torch.ones(1, 2, 3, 4, dtype=torch.int64), size=5, mode='nearest-exact')",
    "F.interpolate(torch.ones(1, 1, 3, 3, dtype=torch.int64), size=5, mode='bicubic')",
    "F.interpolate(torch.ones(1, 5, 1, 1, dtype=torch.int32), size=5, mode='bicubic')",
    "F.interpolate(torch.ones(1, 1, 3), size=5, mode='bicubic')",
    "F.interpolate(torch.ones(1, 1, 3, 3, 3), size=5, mode='bicubic')",
    "F.interpolate(torch.ones(1, 1, 3, 3), size=5, mode='nearest-exact', align_corners=True)",
    "F.interpolate(torch.ones(1, 1, 3, 3), size=(0, 4), mode='bicubic')",
    "F.interpolate(torch.ones(1, 1, 0, 3), size=(2, 4), mode='bicubic')",
    "F.interpolate(torch.ones(0, 1, 2, 3), size=(2, 4), mode='bicubic').shape",
    "F.interpolate(torch.ones(1, 1, 3), size=4, mode='nearest-exact', antialias=True)",
    "F.interpolate(torch.ones(1, 1, 3, 3), size=(2, 4), mode='lanczos')",
    "F.interpolate(torch.ones(1, 1, 3, 4, dtype=torch.int64), size=5, mode='bilinear', "
    "antialias=True)",
    "F.interpolate(torch.ones(1, 1, 3, 4, dtype=torch.float16), size=5, mode='bicubic', "
    "antialias=True)",
    "F.interpolate(torch.ones(1, 1, 3, 4), size=(3, 4), mode='bilinear', antialias=True).shape",
    "F.interpolate(torch.ones(1, 1, 3, 4), size=(0, 4), mode='bicubic', antialias=True)",
    "F.interpolate(torch.ones(1, 1, 3, 4, 5), size=(2, 4, 3), mode='trilinear', antialias=True)",
    "F.interpolate(torch.ones(1, 5, 1), size=3, mode='linear').shape",
    "F.interpolate(torch.ones(1, 5, 1, 1, 1), size=3, mode='trilinear').shape",
    "F.interpolate(torch.ones(1, 5, 1, dtype=torch.int64), size=5)",
    "torch.nn.Upsample(scale_factor=2, mode='bicubic')",
    "F.lp_pool2d(torch.ones(1, 1, 4, 4), 0, 2)",
    "F.lp_pool1d(torch.ones(1, 1, 4), 2, (2,))",
    "F.lp_pool2d(torch.ones(1, 4, 4), 2, 5)",
    "F.lp_pool1d(torch.ones(1, 1, 4, dtype=torch.int64), 2, 2).tolist()",
    "F.lp_pool3d(torch.ones(1, 1, 4, 4), 2, 2)",
    "torch.nn.LPPool1d()",
    "torch.nn.LPPool2d(2)",
    "F.lp_pool2d(torch.ones(1, 1, 4, 4), 2, 2, 1).shape",
    "torch.nn.Upsample(scale_factor=2)",
    "torch.nn.Upsample(size=(3,4), mode='bilinear', align_corners=True)",
    "torch.nn.Upsample(scale_factor=(2, 1.5), mode='bilinear')",
    "torch.nn.UpsamplingNearest2d(scale_factor=2)",
    "torch.nn.UpsamplingBilinear2d(size=3)",
    "torch.nn.Upsample(size=4)",
    "torch.nn.Upsample(3, 2)",
    "torch.nn.Upsample()",
    "torch.nn.Upsample(scale_factor=2)(torch.ones(1,1,2,2)).shape",
    "torch.nn.UpsamplingBilinear2d(scale_factor=2)(torch.ones(1,1,2,2)).shape",
    "F.pixel_shuffle(torch.ones(8,2,3),2).shape",
    "F.pixel_shuffle(torch.ones(1,1,2,8,2,3),2).shape",
    "F.pixel_shuffle(torch.ones(2,3),2)",
    "F.pixel_shuffle(torch.ones(1,7,2,3),2)",
    "F.pixel_shuffle(torch.ones(1,8,2,3),0)",
    "F.pixel_shuffle(torch.ones(1,8,2,3),-2)",
    "F.pixel_shuffle(torch.ones(1,8,2,3),2.0)",
    "F.pixel_unshuffle(torch.ones(1,2,4,5),2)",
    "F.pixel_unshuffle(torch.ones(1,2,4,6),0)",
    "F.pixel_unshuffle(torch.ones(2,4),2)",
    "F.pixel_unshuffle(torch.ones(2,4,4),2).shape",
    "F.pixel_shuffle(torch.ones(1,8,2,3,dtype=torch.int64),2).dtype",
    "F.pixel_shuffle(torch.ones(0,8,2,3),2).shape",
    "F.pixel_shuffle(torch.ones(1,8,2,3),1).shape",
    "torch.nn.PixelShuffle(2)",
    "torch.nn.PixelUnshuffle(3)",
    "torch.pixel_shuffle(torch.ones(1,4,1,1),2).shape",
    "torch.ones(1,4,1,1).pixel_shuffle",
]


def _error(lib, program):
    try:
        result = eval(program, {"torch": lib, "F": lib.nn.functional})
    except Exception as e:  # noqa: BLE001 - the error is what we compare
        return [type(e).__name__, str(e).split("\n")[0]]
    return ["no error", list(result) if isinstance(result, tuple) else None]


@pytest.mark.parametrize("program", ERRORS)
def test_errors_are_pytorchs(program, oracle):
    ours, theirs = _error(gradcli, program), oracle(lambda torch: _error(torch, program))
    if isinstance(theirs[1], str) and theirs[1].endswith("but expected one of:"):
        # (PyTorch lists the overloads on the lines that follow; gradcli on the same line)
        assert ours[0] == theirs[0] and ours[1].startswith(theirs[1])
    else:
        assert ours == theirs


MODULES = [
    "torch.nn.Conv2d(1, 6, 3)", "torch.nn.Conv1d(2, 4, 3, padding='same', bias=False)",
    "torch.nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2)",
    "torch.nn.Conv2d(2, 4, (3, 1), padding=(1, 0))", "torch.nn.Conv2d(1, 1, 2, padding='valid')",
    "torch.nn.Conv3d(2, 2, 2)", "torch.nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1)",
    "torch.nn.ConvTranspose1d(2, 4, 3, groups=2)",
    "torch.nn.ConvTranspose3d(2, 3, (2, 1, 2), stride=(1, 2, 1), bias=False)",
    "torch.nn.MaxPool2d(2)", "torch.nn.MaxPool2d(3, 2, 1, ceil_mode=True)",
    "torch.nn.MaxPool2d((2, 3), (1, 2))", "torch.nn.MaxPool1d(3)", "torch.nn.AvgPool2d(2)",
    "torch.nn.AvgPool2d(3, ceil_mode=True, count_include_pad=False, divisor_override=2)",
    "torch.nn.AvgPool1d(3)", "torch.nn.AdaptiveAvgPool2d((5, 7))",
    "torch.nn.AdaptiveAvgPool1d(3)", "torch.nn.AdaptiveMaxPool2d((2, 3))",
    "torch.nn.AdaptiveMaxPool1d(2, return_indices=True)",
    "torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2))",
    "torch.nn.MaxPool3d(2)", "torch.nn.MaxPool3d((2, 1, 2), 1, (1, 0, 1), 2, True, True)",
    "torch.nn.AvgPool3d(3, 2, 1, True, False, 4)", "torch.nn.AdaptiveAvgPool3d((1, None, 3))",
    "torch.nn.AdaptiveMaxPool3d(2, True)",
    "torch.nn.Unfold((2, 3), 2, 1, 2)", "torch.nn.Fold((4, 5), 2, stride=(1, 2))",
    "torch.nn.MaxUnpool2d(2)", "torch.nn.MaxUnpool1d(3, 1, 1)",
    "torch.nn.MaxUnpool2d((2, 1), stride=[1, 2])", "torch.nn.MaxUnpool3d(2)",
    "torch.nn.MaxUnpool3d(2, stride=1, padding=(0, 1, 0))", "torch.nn.LPPool2d(2, 3, stride=2)",
    "torch.nn.LPPool1d(1.5, 2)", "torch.nn.LPPool3d(float('inf'), (1, 2, 2), ceil_mode=True)",
    "torch.nn.PixelShuffle(2)", "torch.nn.PixelUnshuffle(3)",
    "torch.nn.Upsample(scale_factor=2)", "torch.nn.Upsample(size=(3, 4), mode='bilinear', "
    "align_corners=True)", "torch.nn.UpsamplingNearest2d(scale_factor=(2, 3))",
    "torch.nn.UpsamplingBilinear2d(size=3)",
    "torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode='reflect')",
    "torch.nn.Conv1d(2, 3, 4, padding='same', padding_mode='circular', bias=False)",
    "torch.nn.Conv3d(1, 1, 2, padding_mode='replicate')",
]


def _module(lib, program):
    lib.manual_seed(0)
    module = eval(program, {"torch": lib})
    return [repr(module), [[list(p.shape), p.detach().flatten().tolist()]
                           for p in module.parameters()]]


@pytest.mark.parametrize("program", MODULES)
def test_modules_print_and_initialise_as_pytorch(program, oracle):
    assert _module(gradcli, program) == oracle(lambda torch: _module(torch, program))


def train(lib, dtype):
    """Three SGD steps of a tiny CNN; the losses as printed, and the final parameters."""
    lib.manual_seed(0)
    nn = lib.nn
    net = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(3, 4, 2), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
    head = nn.Linear(4, 3)
    x = lib.randn(5, 1, 6, 6)
    target = lib.tensor([0, 2, 1, 1, 0])
    params = list(net.parameters()) + list(head.parameters())
    if dtype == "float64":
        x = x.double()
        for p in params:
            p.data = p.data.double()
    opt = lib.optim.SGD(params, lr=0.5)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(head(net(x).flatten(1)), target)
        loss.backward()
        opt.step()
        losses.append(f"{loss.item():.6f}")
    return losses, [p.detach().flatten().tolist() for p in params]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_cnn_trains_as_pytorch(dtype, oracle):
    losses, params = train(gradcli, dtype)
    their_losses, their_params = oracle(lambda torch: train(torch, dtype))
    assert losses == their_losses
    for a, b in zip(params, their_params):
        np.testing.assert_allclose(a, b, rtol=1e-5 if dtype == "float32" else 1e-12,
                                   atol=1e-6 if dtype == "float32" else 1e-13)


FLOAT32 = ["F.conv2d(x, w, b, padding=1)", "F.conv1d(x[:, :, 0], w[:, :, 0], b)",
           "F.max_pool2d(x, 2)", "F.avg_pool2d(x, 3, 1, 1)", "F.adaptive_avg_pool2d(x, (2, 3))",
           "F.interpolate(x, size=(4, 9), mode='bilinear')",
           "F.interpolate(x, size=(40, 90), mode='bilinear')", "F.interpolate(x, scale_factor=1.5)"]


def _float32(lib, program):
    rng = np.random.default_rng(4)
    env = {"F": lib.nn.functional}
    for name, shape in (("x", (2, 3, 5, 6)), ("w", (4, 3, 3, 3)), ("b", (4,))):
        env[name] = lib.tensor(rng.standard_normal(shape).tolist(), requires_grad=True)
    y = eval(program, env)
    y.sum().backward()
    return [str(y.dtype), np.asarray(y.tolist()), np.asarray(env["x"].grad.tolist())]


@pytest.mark.parametrize("program", FLOAT32)
def test_float32(program, oracle):
    """Pooling and interpolation are PyTorch's to the bit in float32 too; a float32 convolution
    is oneDNN's in PyTorch (its own order of addition and blocking), so it agrees to float32's
    precision."""
    ours = _float32(gradcli, program)
    theirs = oracle(lambda torch: _float32(torch, program))
    assert ours[0] == theirs[0] == "torch.float32"
    exact = "pool" in program or "interpolate" in program
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=0 if exact else 1e-5, atol=0 if exact else 1e-5)


def _same_warning(lib):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.nn.functional.conv1d(lib.ones(1, 1, 5), lib.ones(1, 1, 4), padding="same")
    return [str(w.message).split(" (Triggered internally")[0] for w in caught]


def test_padding_same_with_an_even_kernel_warns_once():
    """PyTorch's TORCH_WARN_ONCE (its text; torch itself has warned by now in this process,
    so no oracle)."""
    import sys
    sys.modules["gradcli.ops.convolution"]._WARNED.clear()
    assert _same_warning(gradcli) == [
        "Using padding='same' with even kernel lengths and odd dilation may require a "
        "zero-padded copy of the input be created"]
    assert _same_warning(gradcli) == []
