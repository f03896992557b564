"""The committed transcripts of t20_sessions.py and t20d_sessions.py are what PyTorch prints for
them (the transcripts themselves are checked against gradcli by tests/lang/test_transcripts.py)."""

import pytest

import t20_sessions
import t20d_sessions
from issue20_sessions import TRANSCRIPTS

pytest.importorskip("torch")

CASES = [(module, stem) for module in (t20_sessions, t20d_sessions)
         for stem in sorted(module.SESSIONS)]


@pytest.mark.parametrize("module, stem", CASES, ids=[stem for _, stem in CASES])
def test_committed_transcript_is_what_pytorch_prints(module, stem):
    from issue20_sessions import transcript_text
    committed = (TRANSCRIPTS / f"{stem}.txt").read_text(encoding="utf-8")
    assert transcript_text(module.SESSIONS[stem]) == committed, \
        f"regenerate with: python tests/oracle/{module.__name__}.py"
