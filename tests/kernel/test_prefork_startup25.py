"""What a one-shot command's frontend does before it forks its evaluator, whose start-up waits
for it (gradcli.cli.main._prestart): it compiles no regular expression of gradcli's (the
message patterns of kernel.bounds are compiled at their first use, after the fork)."""

from tests.processes import python_output

RECORDED = """
import json, re, selectors  # (the standard library's own patterns: compiled at its import)
used = []
def recording(name):
    real = getattr(re, name)
    def function(pattern, *args, **kwargs):
        used.append((name, pattern))
        return real(pattern, *args, **kwargs)
    return function
for name in ("compile", "match", "fullmatch", "search", "sub", "subn", "split", "findall",
             "finditer"):
    setattr(re, name, recording(name))
"""


def test_the_frontend_compiles_no_pattern_of_its_own_before_the_fork():
    out = python_output(RECORDED + """
import gradcli.cli.main, gradcli.cli.tasks, gradcli.kernel.process  # (what _prestart imports)
print(used)
""")
    assert out.strip() == "[]"


def test_the_message_patterns_are_compiled_when_the_frontend_reads_a_message():
    out = python_output(RECORDED + """
from gradcli.kernel.bounds import terminal_safe
from gradcli.kernel.process import Evaluator
safe = terminal_safe("a\\x1b]0;title\\x07b\\x1b[31mc")
print(len(used), repr(safe))
evaluator = Evaluator(None)
evaluator.out = evaluator.err = __import__("io").StringIO()
evaluator._tty_out = evaluator._tty_err = False
print(evaluator._on_line(b'{"r": 2}\\n'), len(used))
""")
    assert out.splitlines() == ["1 'ab\\x1b[31mc'", "{'r': 2} 3"]
