"""Transcripts: the format, the tolerant line comparison and the replay report."""

import io

import pytest

from gradcli.lang.transcript import (compare, lines_match, numbers_match, parse_transcript,
                                     replay, replay_files)

TEXT = """\
## session: first
>>> x = 1
>>> for i in range(2):
...     print(i)
...
0
1
>>> x
1

## session: second
>>> 1/0
ZeroDivisionError: division by zero
"""


def test_parse_sessions_statements_and_expected_output():
    first, second = parse_transcript(TEXT)
    assert first.title == "session: first" and second.title == "session: second"
    assert [s.source for s in first.statements] == ["x = 1", "for i in range(2):\n    print(i)",
                                                    "x"]
    assert [s.expected for s in first.statements] == [[], ["0", "1"], ["1"]]
    assert second.statements[0].expected == ["ZeroDivisionError: division by zero"]


def test_lines_before_any_title_form_a_session():
    (session,) = parse_transcript(">>> 2\n2\n")
    assert session.title == "session" and session.statements[0].expected == ["2"]


@pytest.mark.parametrize("expected, actual", [
    ("8193.0840", "8193.0841"), ("8193.0840", "8193.0839"), ("1.5255e+02", "1.5256e+02"),
    ("-0.0000", "0.0000"), ("0.94", "0.9400"), ("3.", "3.")])
def test_numbers_within_one_unit_of_the_last_digit_match(expected, actual):
    assert numbers_match(expected, actual)


@pytest.mark.parametrize("expected, actual", [
    ("8193.0840", "8193.0842"), ("1.5255e+02", "1.5255e+03"), ("6.", "7."), ("2", "3"),
    ("0.9400", "0.9402")])
def test_numbers_further_apart_do_not_match(expected, actual):
    assert not numbers_match(expected, actual)


def test_lines_compare_with_tolerance_addresses_and_trailing_spaces():
    assert lines_match("tensor([ 0.9400, -0.8399])", "tensor([ 0.9401, -0.8398])   ")
    assert lines_match("(True, <AddBackward0 object at 0x...>)",
                       "(True, <AddBackward0 object at 0x7f3a2c1b9d90>)")
    assert not lines_match("<AddBackward0 object at 0x...>", "<MulBackward0 object at 0x7f3a>")
    assert not lines_match("torch.Size([2, 2])", "torch.Size([2, 3])")
    assert not lines_match("float32", "float31")
    assert not lines_match("tensor(1.)", "tensor(1.) extra")


def test_replay_runs_each_session_fresh_and_matches():
    for session in parse_transcript(TEXT):
        assert compare(session, replay(session)) is None


def test_a_mismatch_is_a_unified_diff_showing_only_real_differences():
    (session,) = parse_transcript("## s\n>>> print(1.00001, 2)\n1.0000 2\n>>> 3\n4\n")
    diff = compare(session, replay(session), "file: s")
    assert diff.splitlines() == [
        "--- file: s (expected)", "+++ file: s (gradcli)", "@@ -2,4 +2,4 @@",
        " >>> print(1.00001, 2)", " 1.0000 2", " >>> 3", "-4", "+3"]


def test_replay_files_reports_per_file_and_total(tmp_path):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text(TEXT)
    bad.write_text("## wrong\n>>> 1 + 1\n3\n")
    out = io.StringIO()
    assert replay_files([str(good)], out) == 0
    assert out.getvalue().splitlines()[-2:] == [f"{good}: 2/2 sessions match",
                                               "total: 2/2 sessions match"]
    out = io.StringIO()
    assert replay_files([str(good), str(bad)], out) == 1
    assert "-3" in out.getvalue().splitlines() and "+2" in out.getvalue().splitlines()
    assert out.getvalue().splitlines()[-1] == "total: 2/3 sessions match"
