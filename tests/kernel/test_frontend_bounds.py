"""What the frontend reads of an evaluator is bounded: message lines, answers, captured
documents and completion answers (untrusted data)."""

import io
import json
import os
import sys
import tracemalloc

import pytest

from gradcli.kernel import bounds
from gradcli.kernel.bounds import CapturedOutput, DocumentTooLarge, loads_bounded, parsed_size
from gradcli.kernel.process import EvaluatorGone, run_task


SHAPES = [b"[" + b"{}," * 50_000 + b"{}]",
          b"[" + b'{"a":1},' * 50_000 + b"7]",
          b"{" + b",".join(b'"%d":"%d"' % (i, i) for i in range(50_000)) + b"}",
          b"[" + b"[1]," * 50_000 + b"7]",
          json.dumps(["a,b:c{[" * 10] * 50_000).encode(),
          json.dumps(['x\\"\\\\", ,' * 10] * 50_000).encode(),
          json.dumps({"sessions": [{"statements": [[["print(i)"],
                                                    [str(i) for i in range(50_000)]]]}]}).encode()]


@pytest.mark.parametrize("document", SHAPES)
@pytest.mark.parametrize("exact", [False, True])
def test_the_parsed_size_bounds_what_json_loads_builds(document, exact, monkeypatch):
    if exact:  # (the count without the strings)
        monkeypatch.setattr(bounds, "PARSE_FLOOR", 0)
    tracemalloc.start()
    try:
        value = json.loads(document)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del value
    assert parsed_size(document) >= peak
    assert parsed_size(document.decode()) >= peak - len(document)  # (a str: not decoded again)


def test_a_document_that_would_swell_is_refused_unparsed(monkeypatch):
    monkeypatch.setattr(bounds, "PARSE_FLOOR", 1 << 20)
    with pytest.raises(DocumentTooLarge):
        loads_bounded(b"[" + b"{}," * 1_000_000 + b"{}]")
    text = json.dumps({"o": "x" * (4 << 20)})  # (large, and mostly one string: parsed)
    assert len(loads_bounded(text)["o"]) == 4 << 20


def test_an_oversized_answer_ends_the_evaluator(monkeypatch):
    monkeypatch.setattr(bounds, "PARSE_FLOOR", 1 << 20)

    def task():
        os.write(sys.stdout._channel.fd, b'{"r": [' + b"[]," * 1_000_000 + b"[]]}\n")
        os._exit(0)

    with pytest.raises(EvaluatorGone) as e:
        run_task(task, timeout=10, out=io.StringIO(), err=io.StringIO())
    assert e.value.kind == "crash" and "answer too large" in e.value.message


def test_output_messages_are_read_as_their_one_string():
    out = io.StringIO()

    def task():
        fd = sys.stdout._channel.fd
        for line in (b'{"o": "a\\u00e9\\n"}\n', b'{ "o" : "b\\n" }\n', b'{"o": "c", "x": 1}\n',
                     b'{"o": "d\\n"} junk\n', b'{"e": "e\\n"}\n', b'{"o": "bad\x01"}\n'):
            os.write(fd, line)
        os.write(fd, b'{"r": 0}\n')
        os._exit(0)

    assert run_task(task, timeout=10, out=out, err=out) == 0
    assert out.getvalue() == "a\u00e9\nb\ne\n"


def test_a_large_output_still_goes_through():
    out = io.StringIO()
    assert run_task(lambda: print("x" * (8 << 20)), timeout=20, out=out, err=out) == 0
    assert out.getvalue() == "x" * (8 << 20) + "\n"


def test_captured_output_is_bounded():
    captured = CapturedOutput(limit=10)
    captured.write("12345")
    captured.write("123456")
    captured.write("1")
    assert (captured.getvalue(), captured.overflowed) == ("12345", True)


def test_completion_answers_are_checked():
    from gradcli.cli.completer import MAX_CANDIDATES, Candidate
    from gradcli.cli.repl import completions_of
    assert completions_of(None, 3) == [] and completions_of({"a": 1}, 3) == []
    found = [["ok", -2, "m"], ["far", -9, "m"], [1, 0, "m"], ["x", True, "m"], ["y", 0],
             ["z" * 201, 0, ""], ["m", 0, "long" * 100]]
    assert completions_of(found, 3) == [Candidate("ok", -2, "m"),
                                        Candidate("m", 0, ("long" * 100)[:200])]
    assert len(completions_of([["a", 0, ""]] * (MAX_CANDIDATES + 5), 1)) == MAX_CANDIDATES
