"""glibc malloc's settings: the console script fixes them (big arrays come from the heap and
freed heap is kept for reuse); the Python API and a user's own settings are left alone."""

import ctypes
import os

import pytest

from gradcli.process import ALLOCATOR_ENVIRONMENT, tune_allocator
from tests.processes import python_output

try:
    _HAS_MALLINFO2 = hasattr(ctypes.CDLL(None), "mallinfo2")
except OSError:
    _HAS_MALLINFO2 = False
pytestmark = pytest.mark.skipif(not _HAS_MALLINFO2,
                                reason="needs glibc 2.33+ (mallopt and mallinfo2)")

# in a child process: allocate a 16 MiB array and free it, then print the bytes malloc had
# mapped for it on its own (mmap) and the heap's size after the free
PROBE = """
import ctypes, sys
import numpy as np

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = Info

def probe():
    before = mallinfo2().hblkhd
    a = np.ones(2 << 20)
    mapped = mallinfo2().hblkhd - before
    del a
    print(mapped >= 16 << 20, mallinfo2().arena >= 16 << 20)
"""


def python(code, **env):
    # the user's own allocator settings are unset unless a test gives them
    unset = {name: None for name in ALLOCATOR_ENVIRONMENT if name not in env}
    return python_output(PROBE + code, **unset, **env).split()


CONSOLE_SCRIPT = (
    "import gradcli.cli.main as m\n"
    "def main(argv):\n"
    "    probe()\n"
    "    return 0\n"
    "m.main = main\n"
    "sys.argv = ['gradcli', 'eval', 'x']\n"
    "m.run()\n")


def test_console_script_serves_big_arrays_from_a_heap_it_keeps():
    # mapped on its own: False; the heap still holds the freed 16 MiB: True
    assert python(CONSOLE_SCRIPT) == ["False", "True"]


def test_python_api_leaves_the_allocator_alone():
    # glibc's defaults: a first 16 MiB block is mapped on its own, and unmapped when freed
    assert python("import gradcli\nprobe()\n") == ["True", "False"]


def test_users_settings_win():
    assert python(CONSOLE_SCRIPT, MALLOC_MMAP_THRESHOLD_="131072") == ["True", "False"]
    for name in ALLOCATOR_ENVIRONMENT:
        saved = os.environ.get(name)
        os.environ[name] = "1"
        try:
            assert tune_allocator() is False
        finally:
            if saved is None:
                del os.environ[name]
            else:
                os.environ[name] = saved


def test_a_python_api_program_can_ask_for_the_console_scripts_settings():
    assert python("import gradcli\nprint(gradcli.tune_process()['allocator'])\nprobe()\n") == \
        ["True", "False", "True"]
    assert python("import gradcli\ngradcli.tune_process(allocator=False)\nprobe()\n") == \
        ["True", "False"]  # glibc's defaults, as without the call
    out = python("import gradcli\nprint(gradcli.tune_process()['allocator'])\nprobe()\n",
                 MALLOC_MMAP_THRESHOLD_="131072")
    assert out == ["False", "True", "False"]  # the environment's own setting wins
