import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app
from gradcli.engine import dtypes

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _default_dtype():
    yield
    dtypes.set_default_dtype(dtypes.float32)


class Result:
    def __init__(self, code, stdout, stderr):
        self.code, self.stdout, self.stderr = code, stdout, stderr

    def json(self):
        return json.loads(self.stdout)


@pytest.fixture
def cli():
    """Run `gradcli ARGS` in-process (typer's CliRunner); returns code, stdout, stderr."""
    runner = CliRunner()

    def run(*args, input=None):
        result = runner.invoke(app, list(args), input=input)
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Result(result.exit_code, result.stdout, result.stderr)
    return run


@pytest.fixture
def gradcli_process():
    """Run gradcli as a real process (exit codes, pipes, no ANSI when piped)."""
    def run(*args, input=None, env=None):
        e = dict(os.environ, PYTHONPATH=str(ROOT))
        e.pop("NO_COLOR", None)
        e.update(env or {})
        p = subprocess.run([sys.executable, "-m", "gradcli.cli.main", *args], input=input,
                           capture_output=True, text=True, env=e, timeout=120, cwd=ROOT)
        return Result(p.returncode, p.stdout, p.stderr)
    return run
