"""Red team, round 9: the commands, as regression tests that state the SAFE behaviour (they
fail until fixed).  A crash of the evaluator is a command's business: these run a program
through `gradcli eval`, whose evaluator may die without taking the tests with it."""

import pytest


@pytest.mark.parametrize("program", [
    "torch.repeat_interleave(torch.tensor([2 ** 62] * 4))",
    "torch.tensor([1.0, 2.0]).repeat_interleave(torch.tensor([2 ** 63 - 1, 2]))",
    "torch.ones(4).repeat_interleave(torch.tensor([2 ** 62] * 4), output_size=0)",
])
def test_repeat_counts_whose_sum_wraps_are_refused(cli, program):
    """repeat_interleave checked the sum of its counts, taken in int64: counts of 2 ** 62 sum
    to 0, which passed, and NumPy's repeat, whose own sum wraps the same way, made an array of
    that size and wrote past its end: the evaluator died of SIGSEGV.  Expected: the element
    limit's error."""
    r = cli("eval", f"import torch\nr = {program}\n")
    assert r.code == 2, (r.code, r.stdout, r.stderr)
    assert "exceeds the limit" in r.stderr and "crashed" not in r.stderr, r.stderr


def test_repeat_interleave_still_computes(cli):
    r = cli("eval", "import torch\nprint(torch.repeat_interleave(torch.tensor([2, 0, 1])), "
                    "torch.tensor([1, 2]).repeat_interleave(torch.tensor([2, 3])).tolist())\nr = 0\n")
    assert r.code == 0 and r.stdout == "tensor([0, 0, 2]) [1, 1, 2, 2, 2]\nr = 0\n", (r.stdout, r.stderr)


ENTITIES = ('import torch\nx = torch.ones(1, requires_grad=True)\n'
            '(x * 2).sum() + len("&#27;]0;title&#7;&#27;[31m&#155;31m")\n')


@pytest.mark.skipif(__import__("shutil").which("dot") is None, reason="Graphviz's dot needed")
def test_an_svg_carries_no_control_character_from_a_label(cli):
    """An output's name (its expression's text) reached dot as a label, where dot decodes
    character references: `&#27;` became ESC in the SVG that `graph --format svg` wrote to the
    terminal (`ESC ]0;title BEL` set its title; `&#155;` is the one-byte CSI).  Expected: an
    `&` reaches dot as `&amp;`, the text shown as typed."""
    r = cli("graph", "--format", "svg", ENTITIES)
    assert r.code == 0, (r.code, r.stderr)
    assert not any(c in r.stdout for c in "\x1b\x07\x9b"), r.stdout
    assert "&amp;#27;]0;title&amp;#7;" in r.stdout


def test_the_dot_text_escapes_ampersands(cli):
    """`graph --format dot` is the text a user hands dot: the same references in it."""
    r = cli("graph", "--format", "dot", ENTITIES)
    assert r.code == 0 and "&amp;#27;" in r.stdout and "&#27;" not in r.stdout, r.stdout
