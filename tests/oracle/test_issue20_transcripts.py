"""The committed transcripts of issue 20's sessions are what PyTorch prints for them (the
transcripts themselves are checked against gradcli by tests/lang/test_transcripts.py)."""

import pytest

from golden import needs_torch
from issue20_sessions import SESSIONS, TRANSCRIPTS, transcript_text

pytestmark = needs_torch("it checks that the committed transcripts, which are themselves "
                         "golden files (tests/lang/test_transcripts.py checks gradcli against "
                         "them), are still what torch prints")


@pytest.mark.parametrize("stem", sorted(SESSIONS))
def test_committed_transcript_is_what_pytorch_prints(stem):
    committed = (TRANSCRIPTS / f"{stem}.txt").read_text(encoding="utf-8")
    assert transcript_text(SESSIONS[stem]) == committed, \
        f"regenerate with: python tests/oracle/issue20_sessions.py"
