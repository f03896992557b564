"""Warning texts word for word as the installed PyTorch gives them, the C++ core's
`(Triggered internally at ...)` suffix included (what a pasted snippet prints).  PyTorch gives
these once per process, so its side runs in a fresh interpreter."""

import json
import subprocess
import sys
import warnings

import pytest

import gradcli

SNIPPETS = {
    "backward with create_graph": "(T.tensor(2.0, requires_grad=True) ** 2)"
                                  ".backward(create_graph=True)",
    "T of a 3-D tensor": "T.zeros(2, 3, 4).T",
    "T of a 0-D tensor": "T.tensor(1.0).T",
}
RUN = """
import json, sys, warnings
import torch as T
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    exec(sys.argv[1])
print(json.dumps([[w.category.__name__, str(w.message)] for w in caught]))
"""


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_warning_text_matches_pytorch(name, monkeypatch, oracle):
    from gradcli.engine import autograd
    monkeypatch.setattr(autograd, "_warned_create_graph", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(SNIPPETS[name], {"T": gradcli})
    ours = [[w.category.__name__, str(w.message)] for w in caught]
    theirs = oracle(lambda torch: json.loads(subprocess.run(
        [sys.executable, "-c", RUN, SNIPPETS[name]], capture_output=True, text=True,
        check=True).stdout))
    assert ours and ours == theirs
