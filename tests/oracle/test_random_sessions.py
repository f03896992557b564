"""Random autograd sessions replayed through gradcli's piped REPL must print what PyTorch
printed for them (the comparison rules of SPEC §6).  Seeded, so a failure names its session."""

import numpy as np
import pytest

from gradcli.lang.transcript import compare, replay

from sessions import random_session, recorded_transcript


# PyTorch regenerates a view's grad_fn (AsStridedBackward0) when its version changed through
# another alias (a detached copy, a sibling view); gradcli rebases only the view written.
STALE_VIEWS = set()  # (lazy view regeneration: all pass now)
KNOWN = {s: "lazy regeneration of views" for s in STALE_VIEWS}


@pytest.mark.parametrize("seed", [
    pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=KNOWN[s])) if s in KNOWN else s
    for s in range(150)])
def test_random_session_matches_pytorch(seed, oracle):
    statements = random_session(np.random.default_rng(seed))
    session = recorded_transcript(oracle, statements, f"seed {seed}")
    diff = compare(session, replay(session), f"seed {seed}")
    assert diff is None, diff
