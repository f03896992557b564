"""Random autograd sessions replayed through gradcli's piped REPL must print what PyTorch
printed for them (the comparison rules of SPEC §6).  Seeded, so a failure names its session."""

import numpy as np
import pytest

from gradcli.lang.transcript import compare, replay

from sessions import random_session, torch_transcript

pytest.importorskip("torch")


# PyTorch's double-backward nodes (TanhBackwardBackward0, LeakyReluBackwardBackward0,
# LogSoftmaxBackwardDataBackward0, …) are not reproduced yet: gradcli's gradients built with
# create_graph are right, but their grad_fn is the last op of the VJP formula (MulBackward0).
DOUBLE_BACKWARD_NAMES = {21, 27, 49}


@pytest.mark.parametrize("seed", [
    pytest.param(s, marks=pytest.mark.xfail(strict=True, reason="double-backward node names"))
    if s in DOUBLE_BACKWARD_NAMES else s for s in range(150)])
def test_random_session_matches_pytorch(seed):
    statements = random_session(np.random.default_rng(seed))
    session = torch_transcript(statements, f"seed {seed}")
    diff = compare(session, replay(session), f"seed {seed}")
    assert diff is None, diff
