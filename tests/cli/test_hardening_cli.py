"""Round 6's leftovers, closed, through the command line (both walls up): a program's control
characters reach no terminal later through a pipe or a file either."""

import json

import pytest

# OSC 52 (set the clipboard), OSC 0 (the window title), a CSI that is no colour (modifyOtherKeys),
# C1's CSI (U+009B), BEL and NUL; then a colour, a tab and text, which pass
HOSTILE = r"a\x1b]52;c;SGVsbG8=\x07b\x1b]0;title\x1b\\c\x1b[>4;2md\x9b31me\x07\x00f"
KEPT = "\x1b[31mred\x1b[0m\tg"
PROGRAM = f'print("{HOSTILE}" + "{KEPT!r}"[1:-1])\n'.replace("\\\\", "\\")


def _assert_safe(text):
    assert "\x1b]" not in text and "\x1b[>" not in text and "\x9b" not in text, repr(text)
    assert not any(c in text for c in "\x07\x00"), repr(text)


def test_piped_output_gets_no_control_sequences(gradcli_process, tmp_path):
    """`gradcli run f.grad > out; cat out`: what a program prints to a pipe or a file is read on
    a terminal later, so it is filtered as output to a terminal is (only plain colours, tabs
    and newlines pass; git quotes control characters in the paths it prints whatever its
    output is, and `less -R` passes colours only)."""
    source = tmp_path / "hostile.grad"
    source.write_text(PROGRAM)
    r = gradcli_process("run", str(source))
    assert r.code == 0, r.stderr
    _assert_safe(r.stdout)
    assert r.stdout == "abcd31mef" + KEPT + "\n"  # (C1's CSI dropped, its text is text)


def test_an_error_message_on_a_pipe_gets_no_control_sequences(gradcli_process):
    r = gradcli_process("eval", 'raise ValueError("v\\x1b]0;title\\x07w")')
    assert r.code == 2
    _assert_safe(r.stderr)
    assert r.stderr.splitlines()[0] == "ValueError: vw"


def test_json_output_keeps_the_text_escaped(gradcli_process):
    """--json: the document is valid JSON, the message exactly the program's (escaped, so that
    the document itself holds no control character); what the program printed, on the
    standard error, is filtered."""
    message = "v\x1b]0;title\x07w\x9b"
    r = gradcli_process("eval", "--json", 'print("p\\x1b]52;c;QQ==\\x07q")\n'
                        'raise ValueError("v\\x1b]0;title\\x07w\\x9b")')
    assert r.code == 2
    _assert_safe(r.stdout)
    assert json.loads(r.stdout)["error"]["message"] == message
    assert r.stderr == "pq\n"


@pytest.mark.parametrize("text", ["plain\n", "tab\there\n", "\x1b[1;32mgreen\x1b[0m\n",
                                  "unicode é ✓\n"])
def test_ordinary_output_passes_unchanged(gradcli_process, tmp_path, text):
    source = tmp_path / "plain.grad"
    source.write_text(f"print({text[:-1]!r})\n")
    r = gradcli_process("run", str(source))
    assert r.code == 0 and r.stdout == text, (r.stdout, r.stderr)
