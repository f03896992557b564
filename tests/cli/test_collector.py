"""The cyclic garbage collector: the console script tunes it for big graphs; the Python API
leaves it alone."""

from gradcli.process import COLLECTOR_THRESHOLDS
from tests.processes import ROOT, python_output


def python(code):
    return python_output(code).split()


def test_console_script_freezes_startup_and_raises_the_full_collection_threshold():
    # run() is the console script: what main() sees is the collector a program runs under
    out = python(
        "import gc, sys\n"
        "import gradcli.cli.main as m\n"
        "def main(argv):\n"
        "    print(*gc.get_threshold(), gc.isenabled(), gc.get_freeze_count() > 10000)\n"
        "    return 0\n"
        "m.main = main\n"
        "sys.argv = ['gradcli', 'eval', 'x']\n"
        "m.run()\n")
    assert out == [*map(str, COLLECTOR_THRESHOLDS), "True", "True"]
    assert COLLECTOR_THRESHOLDS[2] > 10  # full collections rarer than Python's default


def test_console_script_programs_still_collect_cycles():
    # a program's cyclic garbage is collected by the young generations, as in Python
    out = python(
        "import gc, sys, weakref\n"
        "import gradcli.cli.main as m\n"
        "class Node: pass\n"
        "def main(argv):\n"
        "    a, b = Node(), Node()\n"
        "    a.other, b.other = b, a\n"
        "    ref = weakref.ref(a)\n"
        "    del a, b\n"
        "    junk = [[] for _ in range(5000)]\n"  # allocations enough for a young collection
        "    print(ref() is None)\n"
        "    return 0\n"
        "m.main = main\n"
        "sys.argv = ['gradcli', 'eval', 'x']\n"
        "m.run()\n")
    assert out == ["True"]


def test_python_api_leaves_the_collector_alone():
    out = python(
        "import gc\n"
        "t, f = gc.get_threshold(), gc.get_freeze_count()\n"  # (3.12 starts with some frozen)
        "import gradcli, gradcli.autograd\n"
        "x = gradcli.tensor(2.0, requires_grad=True)\n"
        "(x * x).backward()\n"
        "print(gc.isenabled(), gc.get_threshold() == t, gc.get_freeze_count() == f)\n")
    assert out == ["True", "True", "True"]
    out = python("import gc\ngc.disable()\nimport gradcli\nprint(gc.isenabled())\n")
    assert out == ["False"]


# in a child process: count the collections a one-shot `gradcli eval` sets off, from the
# interpreter's start to its exit (the console script ends with os._exit, reported here)
COUNTED = (
    "import gc, os, sys\n"
    "starts = []\n"
    "gc.callbacks.append(lambda phase, info: phase == 'start' and starts.append(1))\n"
    "exit = os._exit\n"
    "def report(code):\n"
    "    sys.stdout.flush()\n"
    "    print(len(starts), gc.isenabled(), *gc.get_threshold(), gc.get_freeze_count() > 10000)\n"
    "    sys.stdout.flush()\n"
    "    exit(code)\n"
    "os._exit = report\n"
    "sys.argv = ['gradcli', 'eval', 'z = (2*x)**3', '--at', 'x=3']\n")


def test_console_script_imports_with_the_collector_paused():
    # the entry point (outside the package) pauses the collector before anything of gradcli
    # imports; a one-shot command's evaluator (forked first: prestart) then imports NumPy, the
    # engine and the language with it paused, freezes all of it and starts it again
    scripts = (ROOT / "pyproject.toml").read_text().split("[project.scripts]")[1]
    assert scripts.split()[:3] == ["gradcli", "=", '"_gradcli_console:run"']
    # (the parser's caches written first: building lark's once is no import's collections)
    python("from gradcli.lang import parser\nparser.prepare()\n")
    out = python(
        COUNTED +
        "import gradcli.kernel.process as kp\n"
        "def prestart(load, run_task):\n"  # the evaluator's part, in this process
        "    before, enabled = len(starts), gc.isenabled()\n"
        "    load()\n"
        "    print(enabled, len(starts) - before, gc.isenabled(), *gc.get_threshold(),\n"
        "          gc.get_freeze_count() > 10000)\n"
        "    sys.stdout.flush()\n"
        "    exit(0)\n"
        "kp.prestart = prestart\n"
        "import _gradcli_console\n_gradcli_console.run()\n")
    assert out == ["False", "0", "True", *map(str, COLLECTOR_THRESHOLDS), "True"], out
    # the same imports with the collector running collect dozens of times
    direct = python(
        COUNTED + "from gradcli.cli.tasks import load\nload('eval')\nprint(len(starts))\n")
    assert int(direct[-1]) >= 10, direct


def test_a_python_api_program_can_ask_for_the_console_scripts_settings():
    out = python(
        "import gc\n"
        "t = gc.get_threshold()\n"
        "import gradcli\n"
        "done = gradcli.tune_process(allocator=False)\n"
        "print(done['collector'], done['allocator'], *gc.get_threshold(),\n"
        "      gc.get_freeze_count() > 10000)\n"
        "gradcli.tune_process(collector=False)\n"
        "print(*gc.get_threshold())\n")
    assert out == ["True", "False", *map(str, COLLECTOR_THRESHOLDS), "True",
                   *map(str, COLLECTOR_THRESHOLDS)]


def test_the_language_cannot_reach_the_process_settings(cli, tmp_path):
    # a program's `torch` is the engine's public names (__all__): tune_process is not one
    import gradcli
    assert "tune_process" not in gradcli.__all__
    program = tmp_path / "tune.grad"
    program.write_text("import torch\ntorch.tune_process()\n")
    r = cli("run", str(program))
    assert r.code == 2
    assert "AttributeError: module 'torch' has no attribute 'tune_process'" in r.stderr
