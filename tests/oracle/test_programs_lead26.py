"""A third corpus of programs nobody wrote for gradcli (programs_lead26/*.py): PyTorch's own
tutorials on forward-mode AD (dual tensors, custom Functions with jvp, torch.func.jvp over a
module's parameters), Jacobians and Hessians (jacrev, jacfwd, hessian, vmap over them, the
batched Jacobian, `functools.partial`), per-sample gradients of a CNN, the neural tangent
kernel and model ensembling, and a Dataset and a Sampler of the program's own fed to a
DataLoader in a training loop, at small sizes.  gradcli prints what PyTorch 2.13 prints for each,
or fails with its error line, by the mechanism of test_programs_compat24; PyTorch's answers
are in golden/test_programs_lead26.json (regenerate with GRADCLI_REGEN_GOLDEN=1, torch
installed)."""

from pathlib import Path

from test_programs_compat24 import each_program
from test_programs_compat24 import test_program_prints_what_pytorch_prints as _compare

PROGRAMS = sorted((Path(__file__).resolve().parent / "programs_lead26").glob("*.py"))
# what gradcli does not yet do as PyTorch does (each fails today; strict: one that passes must
# leave this list)
KNOWN = {}


def test_there_are_programs():
    assert len(PROGRAMS) >= 8


@each_program(PROGRAMS, KNOWN)
def test_program_prints_what_pytorch_prints(path, oracle):
    _compare(path, oracle)  # (compat24's comparison, this corpus's golden answers)
