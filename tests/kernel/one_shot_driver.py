"""`gradcli ARGS...` as the console script runs it, reporting on standard error, as each of
its two processes exits, which modules it had imported: the frontend (NumPy? Tensor, the
op table, the language?) and
the evaluator (typer? a gradcli module first imported after its wall?).  For
tests/kernel/test_evaluator.py."""

import json, os, sys
import gradcli.kernel.wall as wall
real_raise, seen = wall.raise_wall, {}
def raise_wall(**kw):
    seen["wall"] = set(sys.modules)
    return real_raise(**kw)
wall.raise_wall = raise_wall
frontend, real_exit = os.getpid(), os._exit
def exit_(code):
    if os.getpid() == frontend:
        report = {"side": "frontend", "numpy": "numpy" in sys.modules,
                  "engine": sorted(m for m in sys.modules if m.startswith(
                      ("gradcli.engine.tensor", "gradcli.engine.graph", "gradcli.ops", "gradcli.api",
                       "gradcli.lang.session")))}
    else:
        report = {"side": "evaluator", "typer": "typer" in sys.modules,
                  "after_wall": sorted(m for m in set(sys.modules) - seen.get("wall", set()) if m.startswith("gradcli"))}
    os.write(2, ("REPORT " + json.dumps(report) + "\n").encode())
    real_exit(code)
os._exit = exit_
sys.argv = ["gradcli", *sys.argv[1:]]
from gradcli.cli.main import run
run()
