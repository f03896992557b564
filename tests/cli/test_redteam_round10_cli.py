"""Red team, round 10: the commands, as regression tests that state the SAFE behaviour (they
fail until fixed).  A result a command shows is text made outside the program, by the
renderer: the same limits hold there."""


def test_a_shown_list_of_tensors_is_metered_as_one_text(gradcli_process):
    """`gradcli eval` shows the program's results: a list of tensors was made into text one
    tensor at a time, each within the item limit, `[t] * 10 ** 6` 20 MB of output in 40 s.
    Expected: the list's text refused as one, past the item limit (1,000 here), with the
    limit's one-line error."""
    r = gradcli_process("eval", "import torch\nl = [torch.ones(3)] * 600\n",
                        env={"GRADCLI_MAX_ITEMS": "1000"})
    assert r.code == 2 and r.stdout == "", (r.code, r.stdout[:200])
    assert r.stderr.startswith("MemoryError: tensor text too long") and \
        r.stderr.count("\n") == 1, r.stderr


def test_a_shown_list_within_the_limit_is_shown(gradcli_process):
    r = gradcli_process("eval", "import torch\nl = [torch.ones(3)] * 2\n",
                        env={"GRADCLI_MAX_ITEMS": "1000"})
    assert r.code == 0 and r.stdout == "l = [tensor([1., 1., 1.]), tensor([1., 1., 1.])]\n", \
        (r.stdout, r.stderr)
