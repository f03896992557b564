import contextlib
import io

import pytest

from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session
from gradcli.lang.transcript import fresh_interpreter


@pytest.fixture(autouse=True)
def _fresh_engine_state():
    """Each test starts, and leaves the engine, as a new interpreter has it."""
    with fresh_interpreter():
        yield


class Run:
    """A session whose output is captured: run(source) returns what the program printed."""

    def __init__(self):
        self.out = io.StringIO()
        self.session = Session(out=self.out)

    def __call__(self, source, echo=False, **kwargs):
        self.session.run(source, echo=echo, **kwargs)
        return self.take()

    def error(self, source, **kwargs):
        """The ProgramError the source raises."""
        with pytest.raises(ProgramError) as info:
            self.session.run(source, **kwargs)
        return info.value

    def take(self):
        text = self.out.getvalue()
        self.out.seek(0)
        self.out.truncate()
        return text


@pytest.fixture
def run():
    return Run()


@pytest.fixture
def python_prints():
    """python_prints(source): what Python itself prints running source (the oracle of
    programs that use no torch)."""
    def prints(source):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(source, "<program>", "exec"), {})
        return out.getvalue()
    return prints
