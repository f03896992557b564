"""OpenBLAS's idle workers: the console script has them sleep at once instead of spinning
through its start-up (gradcli.process.tune_blas); the Python API and a user's own settings
are left alone."""

from gradcli.process import BLAS_ENVIRONMENT
from tests.processes import python_output

UNSET = {name: None for name in BLAS_ENVIRONMENT}

# the console script, its main() replaced by a probe: its setting, and whether NumPy had been
# imported before it
CONSOLE_SCRIPT = (
    "import os, sys\n"
    "import gradcli.cli.main as m\n"
    "def main(argv):\n"
    "    print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'), 'numpy' in sys.modules)\n"
    "    return 0\n"
    "m.main = main\n"
    "sys.argv = ['gradcli', 'eval', 'x']\n"
    "m.run()\n")

# the CPU time NumPy's threads other than the main one took from its import until 0.3 s later
# (an OpenBLAS worker that spins takes some 30 ms of it)
WORKERS = (
    "import time\n"
    "import numpy\n"
    "time.sleep(0.3)\n"
    "print(time.process_time() - time.thread_time())\n")


def test_console_script_sets_the_timeout_before_numpy():
    assert python_output(CONSOLE_SCRIPT, **UNSET).split() == \
        [BLAS_ENVIRONMENT["OPENBLAS_THREAD_TIMEOUT"], "False"]


def test_users_setting_wins():
    assert python_output(CONSOLE_SCRIPT, OPENBLAS_THREAD_TIMEOUT="8").split() == \
        ["8", "False"]


def test_python_api_leaves_the_environment_alone():
    code = ("import os, gradcli\n"
            "gradcli._load()\n"
            "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))\n")
    assert python_output(code, **UNSET).split() == ["None"]


def test_idle_workers_sleep():
    code = "from gradcli.process import tune_blas\ntune_blas()\n" + WORKERS
    assert float(python_output(code, **UNSET)) < 0.015
