"""Child Python processes in tests: `python -c code` from the checkout."""

import os
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
