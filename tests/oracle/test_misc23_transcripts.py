"""The committed transcripts of misc23_sessions.py are what PyTorch prints for them (the
transcripts themselves are checked against gradcli by tests/lang/test_transcripts.py)."""

import pytest

import misc23_sessions
from issue20_sessions import TRANSCRIPTS

pytest.importorskip("torch")

CASES = sorted(misc23_sessions.SESSIONS)


@pytest.mark.parametrize("stem", CASES)
def test_committed_transcript_is_what_pytorch_prints(stem):
    committed = (TRANSCRIPTS / f"{stem}.txt").read_text(encoding="utf-8")
    assert misc23_sessions.transcript_text(misc23_sessions.SESSIONS[stem]) == committed, \
        "regenerate with: python tests/oracle/misc23_sessions.py"
