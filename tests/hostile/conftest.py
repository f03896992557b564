"""Hostile input: programs that try to leave the sandbox, exhaust the machine or crash the
language must end in a one-line `Type: message`, the session intact."""

import io
import re

import pytest

from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session
from gradcli.lang.transcript import fresh_interpreter

# Objects most attacks start from.
PRELUDE = """\
import torch
import numpy as np
import math
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * 2).sum()
a = np.array([1., 2.])
h = x.register_hook(lambda g: g)
def f(q=1):
    return q
g = (i for i in range(3))
"""
HEADLINE = re.compile(r"[A-Z][A-Za-z]*(Error|Exception|Interrupt|Warning)(: .+)?")


@pytest.fixture(autouse=True)
def _fresh_engine_state():
    with fresh_interpreter():
        yield


class Attack:
    """A session with the prelude run; error(source) is the one-line error the source ends in."""

    def __init__(self):
        self.out = io.StringIO()
        self.session = Session(out=self.out)
        self.session.run(PRELUDE)

    def error(self, source, **kwargs):
        before = self.out.tell()
        with pytest.raises(ProgramError) as info:
            self.session.run(source, **kwargs)
        error = info.value
        lines = error.format()
        assert HEADLINE.fullmatch(lines[0]), lines
        assert len(lines) == (3 if error.is_syntax_error and error.line else 1), lines
        assert self.out.getvalue()[before:] == "", "the attack printed something"
        return error

    def survives(self):
        """The session still computes."""
        return self.session.run("1 + 1") == 2


@pytest.fixture
def attack():
    return Attack()
