"""Make `import gradcli` work from a checkout without installing it or setting PYTHONPATH."""

import signal
import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
TESTS = str(Path(__file__).resolve().parent)
if TESTS not in sys.path:  # the oracle's helpers (golden.py) import as top-level modules
    sys.path.insert(0, TESTS)


import pytest  # noqa: E402

import golden  # noqa: E402
from gradcli.ops import lazy  # noqa: E402

# The op modules that load at first use (gradcli.ops.lazy), loaded now: the tests that walk the
# table (gradchecks, `gradcli ops`, completion) see all of it, as a program that uses them does.
# tests/ops/test_lazy.py checks the lazy loading itself, in fresh processes, and every command
# test in a subprocess runs with it.
lazy.load_all()

# A suite started in the background by a non-interactive shell (`.ci/run &`) inherits SIGINT
# ignored, and so would every process it starts: Python then installs no handler of its own, and
# the tests of Ctrl-C would test nothing.  Give this process Python's handler, as a terminal's
# shell does: its children start with SIGINT's default action again.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _warn_once_as_a_fresh_process():
    """PyTorch gives some warnings once per process (Tensor.T off 2-D): each test starts as a
    fresh process would, whatever ran before it in this worker."""
    from gradcli.ops import shape
    from gradcli.ops.scatter import WARNED as WARNED_SCATTER
    shape.WARNED_T.clear()
    WARNED_SCATTER.clear()
    yield


@pytest.fixture
def fresh_engine():
    """The engine's process-wide state (grad mode, default dtype, the generator, forward-AD
    levels, ...) as a fresh interpreter has it, for the test and after it (a module asks for it
    with `pytestmark = pytest.mark.usefixtures("fresh_engine")`)."""
    from gradcli.lang.transcript import fresh_interpreter
    with fresh_interpreter():
        yield


@pytest.fixture
def oracle(request):
    """torch's answer to a question, `oracle(lambda torch: ...)`: live when torch is installed
    (and then checked against the golden file), the golden file's otherwise (tests/golden.py)."""
    return golden.Oracle(request.node.path, request.node.name)


def pytest_configure(config):
    if golden.REGENERATE and not golden.HAVE_TORCH:
        raise pytest.UsageError("GRADCLI_REGEN_GOLDEN=1 records torch's answers: install torch "
                                "(pip install -e '.[oracle]')")


def pytest_sessionfinish(session):
    golden.write_pending()
