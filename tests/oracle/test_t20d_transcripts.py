"""The committed transcripts of t20d_sessions.py are what PyTorch prints for them (the
transcripts themselves are checked against gradcli by tests/lang/test_transcripts.py)."""

import pytest

from issue20_sessions import TRANSCRIPTS
from t20d_sessions import SESSIONS

pytest.importorskip("torch")


@pytest.mark.parametrize("stem", sorted(SESSIONS))
def test_committed_transcript_is_what_pytorch_prints(stem):
    from issue20_sessions import transcript_text
    committed = (TRANSCRIPTS / f"{stem}.txt").read_text(encoding="utf-8")
    assert transcript_text(SESSIONS[stem]) == committed, \
        "regenerate with: python tests/oracle/t20d_sessions.py"
