"""Child Python processes in tests: `python -c code` from the checkout."""

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def python_output(code, **env):
    """The standard output of `python -c code` run in the checkout (PYTHONPATH set to it), with
    env added to the environment (a None value removes that variable); the child must exit 0."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    environment = {k: v for k, v in environment.items() if v is not None}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, env=environment, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def fake_dot(tmp_path, body):
    """A fake Graphviz `dot` (a shell script of body) in tmp_path/bin: the environment's PATH
    that finds it first, as {"PATH": ...}."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "dot"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin"}


def alive(pid):
    """Whether process pid runs (a zombie does not; Linux's /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def in_evaluator(attack, timeout=10):
    """attack() run in a one-shot evaluator (run_task: arbitrary Python behind the OS wall, as a
    program that got past the language's checks would run); the JSON value it returns."""
    import io
    import json
    from gradcli.kernel.process import run_task
    out = io.StringIO()

    def body():
        result = attack()
        sys.stdout.write("\n@@" + json.dumps(result) + "\n")
        return 0

    run_task(body, timeout=timeout, out=out, err=out)
    for line in out.getvalue().splitlines():
        if line.startswith("@@"):
            return json.loads(line[2:])
    raise AssertionError(f"no result from the evaluator: {out.getvalue()!r}")


def program_output(source):
    """What a program printed, run in-process (the language wall alone; it must end without
    error)."""
    import io
    from gradcli.lang.session import Session
    out = io.StringIO()
    Session(out=out).run(source, timeout=10)
    return out.getvalue()


def program_error(source):
    """(the first line of the error a program ends in, what it printed before), run in-process:
    the language wall alone."""
    import io
    import pytest
    from gradcli.lang.errors import ProgramError
    from gradcli.lang.session import Session
    out = io.StringIO()
    session = Session(out=out)
    with pytest.raises(ProgramError) as info:
        session.run(source, timeout=10)
    return info.value.format()[0], out.getvalue()


def traced_peak(setup, source):
    """The peak of the memory traced while `source` ran, in-process, in a session that ran
    `setup` first (each must end without error)."""
    import io
    import tracemalloc
    from gradcli.lang.session import Session
    session = Session(out=io.StringIO())
    session.run(setup, timeout=30)
    tracemalloc.start()
    try:
        session.run(source, timeout=30)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def assert_refused_before_made(source, limit=100_000, most=4_000_000):
    """`r = source`, run in-process after `import torch` and `import numpy as np` under an
    element limit of `limit`, ends in the limit's error, and no more than `most` bytes of
    memory were traced while it ran: a result over the limit refused before it is made."""
    import io
    import tracemalloc
    import pytest
    from gradcli.engine import tensor
    from gradcli.lang.errors import ProgramError
    from gradcli.lang.session import Session
    session = Session(out=io.StringIO())
    # (the submodules that load at first use, loaded now: their import is not the program's)
    session.run("import torch\nimport numpy as np\ntorch.func.grad, torch.nn.Linear, "
                "torch.linalg.norm, torch.optim.SGD, torch.autograd.functional.jacobian\n",
                timeout=10)
    previous, tensor.ElementLimit.limit = tensor.ElementLimit.limit, limit
    tracemalloc.start()
    try:
        with pytest.raises(ProgramError) as info:
            session.run(f"r = {source}\n", timeout=10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        tensor.ElementLimit.limit = previous
    line = info.value.format()[0]
    assert "exceeds the limit" in line, line
    assert peak < most, f"{peak:,} bytes allocated before the refusal"


def _wall_markers():
    import sys
    import pytest
    from gradcli.kernel import wall
    linux = sys.platform.startswith("linux")
    full = linux and wall.landlock_abi() >= 1 and wall.seccomp_available()
    return (pytest.mark.skipif(not full, reason="Landlock and seccomp both needed"),
            pytest.mark.skipif(not (linux and wall.seccomp_available()),
                               reason="libseccomp needed (the filter refuses the call)"))


# the OS wall's pieces a test needs: both (Landlock and seccomp), or the seccomp filter
needs_wall, needs_seccomp = _wall_markers()


@contextlib.contextmanager
def ends_within(seconds, what):
    """Fail the test with TimeoutError(what) if its block runs past seconds (SIGALRM; a timer the
    code under test starts itself replaces this one)."""
    def hung(signum, frame):
        raise TimeoutError(what)
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def described(value):
    """Plain data for a result: its type's name, and a tensor's or array's dtype, shape,
    requires_grad and values."""
    if isinstance(value, tuple):
        return [described(v) for v in value]
    kind = type(value).__name__
    if kind in ("Tensor", "ndarray"):
        return [kind, str(value.dtype), list(value.shape), getattr(value, "requires_grad", None),
                value.tolist()]
    return [kind, value if isinstance(value, (bool, int, float)) else repr(value)]


def torch_answer(torch, source):
    """What `source` (a program with `torch` and NumPy's `np`) leaves in `r`, described, or
    its error's first line, run with torch (or gradcli's API) in this process."""
    import warnings
    import numpy as np
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (NumPy's DeprecationWarning of torch's __array_wrap__)
        namespace = {"torch": torch, "np": np}
        try:
            exec(source, namespace)
        except Exception as e:  # noqa: BLE001 (the message is the answer)
            return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return described(namespace["r"])


def gradcli_answer(source):
    """The same of `source` run as a gradcli program (the language wall alone)."""
    import io
    from gradcli.lang.errors import ProgramError
    from gradcli.lang.session import Session
    session = Session(out=io.StringIO())
    try:
        session.run("import torch\nimport numpy as np\n" + source + "\n", timeout=10)
    except ProgramError as e:
        return e.format()[0]
    return described(session.namespace["r"])
