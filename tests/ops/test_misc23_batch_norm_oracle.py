"""batch_norm's and instance_norm's running stats of every layout PyTorch 2.13 takes: expanded
(its kernel writes channel by channel through the stride 0, each channel's update reading what
the one before wrote: PyTorch's result on one thread, the oracle's setting here, as its channels
race on several), strided views (written into their base), a row of an expanded matrix, a 0-d
tensor expanded, the one tensor for both stats; instance_norm's refusal of an expanded one;
batch_norm's float arguments.  Against torch (README "The oracle tests")."""

import pytest

import gradcli

SETUPS = {
    "both expanded": "rm = torch.zeros(1).expand(3); rv = torch.ones(1).expand(3)",
    "mean expanded": "rm = torch.zeros(1).expand(3); rv = torch.ones(3)",
    "var expanded": "rm = torch.zeros(3); rv = torch.full((1,), 2.0).expand(3)",
    "0-d expanded": "rm = torch.zeros(()).expand(3); rv = torch.ones(()).expand(3)",
    "strided views": "base = torch.zeros(6); rm = base[::2]; rv = torch.ones(6)[1::2]",
    "a column": "rm = torch.zeros(3, 2)[:, 0]; rv = torch.ones(2, 3).t()[:, 1]",
    "a row of an expanded matrix": "rm = torch.zeros(1, 3).expand(2, 3)[0]; rv = torch.ones(3)",
    "one tensor for both": "rm = rv = torch.zeros(3)",
    "float64": "rm = torch.zeros(1, dtype=torch.float64).expand(3); rv = torch.ones(3, "
               "dtype=torch.float64); x = x.double()",
}
CALLS = {
    "training": "y = F.batch_norm(x, rm, rv, training=True)",
    "training, momentum 0.5": "y = F.batch_norm(x, rm, rv, training=True, momentum=0.5)",
    "eval": "y = F.batch_norm(x, rm, rv, training=False)",
    "a 3-d input": "y = F.batch_norm(x.unsqueeze(-1).expand(4, 3, 2) * torch.tensor([1., 2.]), "
                   "rm, rv, training=True)",
    "instance_norm": "y = F.instance_norm(x.reshape(2, 3, 2), rm, rv, use_input_stats=True)",
}
CASES = {f"{setup}: {call}": (SETUPS[setup], CALLS[call]) for setup in SETUPS for call in CALLS}


def _run(lib, setup, call):
    namespace = {"torch": lib, "F": lib.nn.functional}
    lib.manual_seed(0)
    exec("x = torch.randn(4, 3)\n" + setup, namespace)
    try:
        exec(call, namespace)
    except Exception as e:  # noqa: BLE001 (the error is the answer)
        return [f"{type(e).__name__}: {e}", namespace["rm"].tolist(), namespace["rv"].tolist()]
    return [namespace["y"].tolist(), namespace["rm"].tolist(), namespace["rv"].tolist()] + (
        [namespace["base"].tolist()] if "base" in namespace else [])


def _one_thread(compute):
    def run(torch):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return compute(torch)
        finally:
            torch.set_num_threads(threads)
    return run


def _close(expected, actual):
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(actual) == len(expected)
                and all(map(_close, expected, actual)))
    if isinstance(expected, float):
        return actual == pytest.approx(expected, rel=1e-5, abs=1e-6)
    return expected == actual


@pytest.mark.parametrize("setup, call", CASES.values(), ids=CASES.keys())
def test_running_stats_of_every_layout(setup, call, oracle):
    expected = oracle(_one_thread(lambda torch: _run(torch, setup, call)))
    actual = _run(gradcli, setup, call)
    assert _close(expected, actual), (expected, actual)


MODULE = """\
bn = torch.nn.BatchNorm1d(3)
bn.running_mean = torch.zeros(1).expand(3)
y = bn(x)
bn.eval()
z = bn(x)
"""


def test_a_module_with_an_expanded_running_mean(oracle):
    def compute(lib):
        namespace = {"torch": lib}
        lib.manual_seed(0)
        exec("x = torch.randn(4, 3)\n" + MODULE, namespace)
        bn = namespace["bn"]
        return [namespace["y"].tolist(), namespace["z"].tolist(), bn.running_mean.tolist(),
                bn.running_var.tolist()]
    expected = oracle(_one_thread(compute))
    assert _close(expected, compute(gradcli))


@pytest.mark.parametrize("momentum", ["None", "'0.1'", "torch.tensor(0.5)", "True", "1"])
def test_batch_norms_float_arguments(momentum, oracle):
    source = ("x = torch.ones(4, 3).cumsum(0)\nrm = torch.zeros(3)\n"
              f"y = F.batch_norm(x, rm, torch.ones(3), training=True, momentum={momentum})")

    def compute(lib):
        namespace = {"torch": lib, "F": lib.nn.functional}
        try:
            exec(source, namespace)
        except Exception as e:  # noqa: BLE001 (the error is the answer)
            return f"{type(e).__name__}: {e}"
        return [namespace["y"].tolist(), namespace["rm"].tolist()]
    assert _close(oracle(compute), compute(gradcli))
