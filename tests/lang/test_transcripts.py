"""Every session of every transcript recorded from PyTorch 2.13 prints the same in gradcli
(the copies of the shared transcripts, and those tests/oracle makes, in transcripts/oracle)."""

from pathlib import Path

import pytest

from gradcli.lang.transcript import compare, parse_transcript, replay

TRANSCRIPTS = sorted((Path(__file__).resolve().parents[1] / "transcripts").glob("**/*.txt"))
SESSIONS = [(path, session) for path in TRANSCRIPTS
            for session in parse_transcript(path.read_text(encoding="utf-8"))]


def test_transcripts_are_present():
    assert TRANSCRIPTS and SESSIONS


@pytest.mark.parametrize("path, session", SESSIONS,
                         ids=[f"{p.stem}: {s.title}" for p, s in SESSIONS])
def test_session_prints_what_pytorch_printed(path, session):
    diff = compare(session, replay(session), f"{path.name}: {session.title}")
    assert diff is None, "\n" + diff
