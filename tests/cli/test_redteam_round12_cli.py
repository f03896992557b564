"""Red team, round 12, at the command line: Ctrl-C as the REPL ends."""

import subprocess
import sys
import textwrap

from processes import ROOT


def test_a_ctrl_c_as_the_repl_ends_is_no_traceback_nor_death_by_signal():
    """The REPL left SIGINT's handler in place when its session was over: a Ctrl-C during the
    interpreter's teardown (an atexit callback here; after it, Python gives SIGINT its default
    action back, and a piped `gradcli repl` sent SIGINT 25 ms after its last output died by
    the signal, status -2, with no word) was "Exception ignored in atexit callback" and a
    KeyboardInterrupt traceback.  Expected: ignored, exit 0."""
    code = textwrap.dedent("""
        import atexit, os, signal, sys, time
        from gradcli.cli import main as cli
        cli.main = lambda argv: 0

        def late_ctrl_c():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        atexit.register(late_ctrl_c)
        sys.argv = ["gradcli", "repl"]
        cli.run()
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert (result.returncode, result.stderr) == (0, "")
