"""What names26_sessions.py committed is still what PyTorch prints (tests/lang/test_transcripts.py
checks gradcli against the same transcripts, without torch)."""

import pytest

import names26_sessions as sessions

pytest.importorskip("torch")


@pytest.mark.parametrize("stem", sorted(sessions.SESSIONS))
def test_names26_transcript_is_pytorchs(stem):
    expected = sessions.transcript_text(sessions.SESSIONS[stem])
    committed = (sessions.TRANSCRIPTS / f"{stem}.txt").read_text(encoding="utf-8")
    assert committed == expected, "regenerate with: python tests/oracle/names26_sessions.py"
