"""torch.batch_norm is aten's batch_norm: its own checks (running stats in evaluation mode,
the channels' dim, the dtypes its kernel takes), not F.batch_norm's Python ones, which refuse
one value per channel in training and an eps that is not positive (torch.batch_norm computes
those)."""

import pytest

import gradcli

CASES = {
    "one value per channel, weight and bias": "torch.batch_norm(torch.tensor([[1.], [2.]]).t(), "
    "torch.ones(2), torch.zeros(2), None, None, True, 0.1, 1e-5, False)",
    "one value per channel, 3-d, running stats": "torch.batch_norm(torch.ones(1, 2, 1), None, "
    "None, torch.zeros(2), torch.ones(2), True, 0.1, 1e-5, False)",
    "negative eps in training": "torch.batch_norm(torch.ones(2, 3), None, None, None, None, "
    "True, 0.1, -1.0, False)",
    "a 1-d input": "torch.batch_norm(torch.ones(3), None, None, None, None, True, 0.1, 1e-5, "
    "False)",
    "F: one value per channel": "F.batch_norm(torch.tensor([[1., 2., 3.]]), None, None, "
    "training=True)",
    "F: eps 0 in training": "F.batch_norm(torch.ones(2, 3), None, None, training=True, eps=0.0)",
    "two values per channel": "torch.batch_norm(torch.tensor([[1., 2., 3.], [3., 5., 9.]]), "
    "None, None, None, None, True, 0.1, 1e-5, False)",
    "evaluation without running stats": "torch.batch_norm(torch.ones(2, 3), None, None, None, "
    "None, False, 0.1, 1e-5, False)",
    "an integer input": "torch.batch_norm(torch.ones(2, 3, dtype=torch.long), None, None, None, "
    "None, True, 0.1, 1e-5, False)",
}


def _outcome(lib, call):
    try:
        result = eval(call, {"torch": lib, "F": lib.nn.functional})
    except Exception as e:
        return [type(e).__name__, str(e)]
    return ["value", [repr(round(v, 5)) for v in result.flatten().tolist()]]  # (nan: "nan")


@pytest.mark.parametrize("name", sorted(CASES))
def test_aten_batch_norm_checks_are_atens(name, oracle):
    call = CASES[name]
    assert _outcome(gradcli, call) == oracle(lambda torch: _outcome(torch, call))
