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
import gradcli.kernel.child as child
real_close = child._close_descriptors
def close_descriptors():  # (the evaluator's last act before its exit: the report goes first)
    report(); real_close()
child._close_descriptors = close_descriptors
def exit_(code):
    if os.getpid() == frontend:
        report()
    real_exit(code)
def report():
    if os.getpid() == frontend:
        seen_ = {"side": "frontend", "numpy": "numpy" in sys.modules,
                  "engine": sorted(m for m in sys.modules if m.startswith(
                      ("gradcli.engine.tensor", "gradcli.engine.graph", "gradcli.ops", "gradcli.api",
                       "gradcli.lang.session")))}
    else:
        seen_ = {"side": "evaluator", "typer": "typer" in sys.modules,
                  "after_wall": sorted(m for m in set(sys.modules) - seen.get("wall", set()) if m.startswith("gradcli"))}
    os.write(2, ("REPORT " + json.dumps(seen_) + "\n").encode())
os._exit = exit_
sys.argv = ["gradcli", *sys.argv[1:]]
from gradcli.cli.main import run
run()
