"""More random sessions (sessions_more: dtypes, factories and seeded random numbers, printing,
indexing and item assignment, shape functions, reductions over dims, matmul shapes, custom
Functions, the functional API, forward mode, accumulation, f-strings, attributes, errors and
Python-level statements) replayed through gradcli's piped REPL must print what PyTorch printed
for them (SPEC §6).  Seeded, so a failure names its session."""

import numpy as np
import pytest

from gradcli.lang.transcript import compare, replay

from sessions import recorded_transcript
from sessions_more import random_session_more, torch_transcript_more

# seed -> reason (xfail, strict)
KNOWN = {}


@pytest.mark.parametrize("seed", [
    pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=KNOWN[s])) if s in KNOWN else s
    for s in range(500)])
def test_random_session_more_matches_pytorch(seed, oracle):
    statements = random_session_more(np.random.default_rng(seed))
    session = recorded_transcript(oracle, statements, f"seed {seed}", torch_transcript_more)
    diff = compare(session, replay(session), f"seed {seed}")
    assert diff is None, diff
