"""Round 6's leftovers, closed, through the command line (both walls up): a program's control
characters reach no terminal later through a pipe or a file either."""

import json

import pytest

# OSC 52 (set the clipboard), OSC 0 (the window title), a CSI that is no colour (modifyOtherKeys),
# C1's CSI (U+009B), BEL and NUL; then a colour, a tab and text, which pass (the title's
# terminator, ESC backslash, written \x5c: a `\c` escape is a SyntaxWarning from Python 3.12)
HOSTILE = r"a\x1b]52;c;SGVsbG8=\x07b\x1b]0;title\x1b\x5cc\x1b[>4;2md\x9b31me\x07\x00f"
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


# each would allocate 10 GB or more (10 ** 10 elements from inputs of 10 ** 5)
OVER_TEN_GIGABYTES = {
    "tensor index": "torch.ones(3, 3)[torch.zeros(10 ** 5, 1, dtype=torch.long), "
                    "torch.zeros(10 ** 5, dtype=torch.long)]",
    "index_select": "torch.ones(10 ** 5, 1).index_select(1, torch.zeros(10 ** 5, "
                    "dtype=torch.long))",
    "tensor + array": "torch.ones(10 ** 5, 1) + np.ones(10 ** 5)",
    "array comparison": "np.arange(10 ** 5)[:, None] == np.arange(10 ** 5)",
    "chained comparison": "np.arange(10 ** 5)[:, None] < np.arange(10 ** 5) < 3",
    "torch.linalg.solve": "torch.linalg.solve(torch.eye(2).expand(10 ** 5, 1, 2, 2), "
                          "torch.ones(10 ** 5, 2, 1))",
}


@pytest.mark.parametrize("source", OVER_TEN_GIGABYTES.values(), ids=OVER_TEN_GIGABYTES.keys())
def test_ten_gigabytes_under_one_are_the_element_limits_error(gradcli_process, tmp_path,
                                                             source):
    """Under GRADCLI_MAX_MEMORY=1G each would be the evaluator's crash (out of memory) or, at
    best, refused by the net once made: the one-line element-limit error instead."""
    program = tmp_path / "huge.grad"
    program.write_text(f"import torch\nimport numpy as np\nr = {source}\n")
    r = gradcli_process("run", str(program), env={"GRADCLI_MAX_MEMORY": "1G"})
    assert r.code == 2, (r.code, r.stdout, r.stderr)
    first = r.stderr.splitlines()[0]
    assert "exceeds the limit of 100000000 elements" in first, r.stderr


@pytest.mark.parametrize("source, message", [
    ("r = list(np.zeros(2 * 10 ** 7, np.int8))", "MemoryError: sequence too long"),
    ("torch.set_printoptions(profile='full')\nprint(torch.zeros(10 ** 7, dtype=torch.int8))",
     "MemoryError: tensor text too long"),
    ("r = torch.nn.functional.elu(torch.ones(10 ** 5, 1), torch.ones(10 ** 5))",
     "TypeError: elu(): argument 'alpha' (position 2) must be Number, not Tensor"),
], ids=["list of an array", "full print", "elu's alpha"])
def test_objects_and_text_are_metered_under_one_gigabyte(gradcli_process, tmp_path, source,
                                                         message):
    program = tmp_path / "many.grad"
    program.write_text(f"import torch\nimport numpy as np\n{source}\n")
    r = gradcli_process("run", str(program), env={"GRADCLI_MAX_MEMORY": "1G"})
    assert r.code == 2 and f": {message}" in r.stderr.splitlines()[0], r.stderr
