"""The prestarted evaluator's work for `gradcli eval "z=(2*x)**3" --at x=3` as the console
script's evaluator does it, in one process, without fork or wall: the collector paused while it
loads, then frozen; the task document; exit without teardown.  Count its instructions against
`python -c "import numpy"` with callgrind (bench/NOTES.md, "Start-up: the op table loaded at
first use"):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/startup_evaluator.py
"""
import gc
gc.disable()
import os  # noqa: E402
import sys  # noqa: E402
from gradcli.process import tune_allocator, tune_blas, tune_collector  # noqa: E402
tune_blas()
from gradcli.cli.tasks import load, run_task  # noqa: E402
load("eval")
tune_collector()
gc.enable()
tune_allocator()
doc = {"task": "eval", "params": {"of": None, "grad": None, "order": 1, "dtype": None,
                                  "retain_graph": False, "create_graph": False,
                                  "zipped": False, "csv_output": False, "json_output": False,
                                  "jsonl_output": False},
       "state": {"mode": "plain", "quiet": False, "source": "z=(2*x)**3", "filename": None,
                 "located": False, "at": ["x=3"], "timeout": None}}
code = run_task(doc)
sys.stdout.flush()
os._exit(0)
