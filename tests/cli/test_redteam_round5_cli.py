"""Red team, round 5: programs and evaluator documents run through the command line (both walls
up, or the frontend against an evaluator past its language), as regression tests that state the
SAFE behaviour (they fail until fixed)."""

import shutil

import pytest

# Round 4's issue-17 primitive (a view of a fake array: shape and strides the program chose,
# over a one-element buffer) is closed for a subclass's class body (_check_overrides), but two
# other ways lead to it: a Tensor subclass's attributes set after its class statement (never
# checked), and an unbound Tensor method given a program object as `self`, whose class body
# holds `_data` (a class body may bind names starting with one `_`).
FORGED_ARRAY = """import torch
class Flags:
    writeable = True
class Arr(torch.Tensor):
    pass
Arr.shape = (SIZE, SIZE)
Arr.strides = (8, 0)
Arr.ndim = 2
Arr.flags = Flags()
inner = Arr([[5.]])
class G:
    _data = inner
    _counter = None
s = torch.Tensor.detach(G())
r = s.diagonal()
print(r.shape)
"""


def test_a_forged_tensor_cannot_read_memory_outside_its_storage(cli):
    """Both walls up: 64 elements read past a one-element buffer (heap words: pointers, other
    objects), the primitive that issue 17 turned into arbitrary Python.  Expected: a one-line
    error (the attributes refused, the forged self refused)."""
    r = cli("run", "-", input=FORGED_ARRAY.replace("SIZE", "64") + "print(r)\n")
    assert (r.code, r.stdout) == (2, ""), (r.code, r.stdout[:300], r.stderr)
    assert len(r.stderr.strip().splitlines()) <= 3, r.stderr


@pytest.mark.parametrize("statement", ["S.shape = (64, 64)", "S.numel = S.dim", "S.ndim = 2",
                                       "S.dtype = torch.float64"])
def test_a_tensor_subclass_cannot_redefine_tensor_names_after_its_class_statement(cli,
                                                                                  statement):
    """The class statement refuses a subclass of torch.Tensor that redefines anything of
    Tensor's (`class S(torch.Tensor): shape = ...` is a TypeError), since the engine reads a
    tensor's memory through those attributes; store_target lets a program set any attribute
    of its own classes afterwards, with no such check."""
    r = cli("run", "-", input=f"import torch\nclass S(torch.Tensor):\n    pass\n{statement}\n"
                              f"print('set')\n")
    assert (r.code, r.stdout) == (2, ""), (r.code, r.stdout, r.stderr)
    assert "cannot redefine" in r.stderr, r.stderr


# The same view with class statements alone: _check_overrides looks at the names of the class
# being made, not at those a program's base before the engine base in its MRO brings (a mixin).
MIXIN_ARRAY = """import torch
class Flags:
    writeable = True
class Fake:
    shape = (SIZE, SIZE)
    strides = (8, 0)
    ndim = 2
    flags = Flags()
class Arr(Fake, torch.Tensor):
    pass
inner = Arr([[5.]])
class Mix:
    _data = property(lambda self: inner, lambda self, value: None)
class S(Mix, torch.Tensor):
    pass
s = S([[1., 2.]])
r = s.diagonal()
print(r.shape)
"""


@pytest.mark.parametrize("tail", ["print(r)\n", "r.fill_(7.)\nprint('wrote')\n"],
                         ids=["read", "write"])
def test_a_mixin_cannot_redefine_what_the_engine_reads(cli, tail):
    """Both walls up, class statements only: `class S(Mix, torch.Tensor)` whose Mix holds a
    `_data` property, and an Arr(Fake, torch.Tensor) whose Fake holds shape and ndim: round
    4's test with the names moved one class up.  64 elements read past a one-element buffer
    (heap words), or 4M written (SIGSEGV, a corrupted heap with fewer).  Expected: the class
    statement refused, `class S cannot redefine '_data' of torch.Tensor`."""
    size = "64" if tail.startswith("print") else "2 ** 22"
    r = cli("run", "-", input=MIXIN_ARRAY.replace("SIZE", size) + tail)
    assert "crashed the evaluator" not in r.stderr, r.stderr
    assert (r.code, r.stdout) == (2, ""), (r.code, r.stdout[:300], r.stderr)
    assert "cannot redefine" in r.stderr, r.stderr


# ---------------------------------------------------------------------- the frontend

def _hostile_graph(label):
    return {"nodes": [{"id": "n0", "label": label, "leaf": True}], "edges": [],
            "roots": {"y" + label: "n0"}, "outputs": ["y" + label]}


HOSTILE_LABEL = "a\x1b]52;c;SGVsbG8=\x07b\x1b]0;title\x07c\x1b[2Jd\x9b2Je"


def test_graph_labels_reach_graphviz_without_control_characters():
    """`gradcli graph --format svg` without --output writes dot's SVG to standard output, a
    terminal too, as it is; the labels come from the evaluator's document (untrusted: an
    evaluator past the language writes any label) and dot_from_json escapes only quotes and
    backslashes, so an OSC 52 (the clipboard), a window title or a screen clear reaches the
    terminal, where the relay of an evaluator's output lets only colours through.  Expected:
    no control character in the DOT text (nor in the SVG)."""
    from gradcli.render.pictures import dot_from_json, render_with_graphviz
    text = dot_from_json(_hostile_graph(HOSTILE_LABEL))
    assert not any(ord(c) < 32 and c not in "\n" or 0x7f <= ord(c) < 0xa0 for c in text), text
    if shutil.which("dot"):
        svg = render_with_graphviz(text, "svg", timeout=20, nodes=1)
        assert b"\x1b" not in svg and b"\x07" not in svg


def test_plot_labels_are_text_not_mathtext(cli, tmp_path):
    """The plot's labels are the program's names and expression text; matplotlib parses any
    text between `$` signs as mathtext (pyparsing, in the frontend, outside every bound the
    evaluator has), so `x * len("$\\frac{a}{$")` ends `gradcli plot -o` with one line,
    `ValueError`, and 60 nested braces with a RecursionError.  Expected: the label shown as
    the text it is, and the picture written."""
    pytest.importorskip("matplotlib")
    for i, program in enumerate(['y = x * len("$\\\\frac{a}{$")',
                                 'x * len("$' + "{" * 60 + "a" + "}" * 60 + '$")']):
        out = tmp_path / f"p{i}.png"
        r = cli("plot", program, "--at", "x=0:1", "-o", str(out))
        assert r.code == 0, (program, r.stdout, r.stderr)
        assert out.stat().st_size > 0
