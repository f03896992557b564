"""A worker process of bench/bench_suite.py: one implementation's in-process workload, in a
process of its own.

Each library is measured in the kind of process its users run: its own heap (no other library's
modules for the cyclic garbage collector to walk: PyTorch alone leaves some 165k tracked objects
in a process), its own collector and allocator settings.  The suite starts one worker per (workload,
implementation) and drives all of them round-robin, so that the noise of a shared machine still
hits them alike.

Protocol (pickles on the worker's stdin and on the stdout it had at start; whatever a library
prints goes to stderr):

    ("setup", impl, function, args, options)  -> ("ok",) | ("unsupported", reason)
                                                 | ("error", reason, traceback)
    ("run", k)    k back-to-back calls of the workload's run(), after gc.collect():
                  -> ("ok", value, phases summed over the k calls, wall s, cpu s)
                     | ("unsupported", reason) | ("error", reason, traceback)
    ("exit",)

`function` names a factory of bench/workloads/inprocess.py, called as function(impl, *args).
options: {"threads": N (0 = the library's default), "process": "cli", "warm": args}
("cli": the process settings of the `gradcli` console script: its allocator settings first,
gradcli.process.tune_allocator, and its collector settings, tune_collector, after the imports
and the workload's set-up; "warm": one untimed run of function(impl, *args), a small instance,
before the workload is built).
"""

import os
import pickle
import sys
from pathlib import Path


def serve(inp, out):
    import gc
    import time
    import traceback

    from workloads import inprocess

    run = None

    def reply(*msg):
        pickle.dump(msg, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

    def failure(e):
        if isinstance(e, inprocess.Unsupported):
            return ("unsupported", str(e))
        return ("error", f"{type(e).__name__}: {e}", traceback.format_exc())

    while True:
        try:
            msg = pickle.load(inp)
        except EOFError:
            return
        if msg[0] == "exit":
            return
        if msg[0] == "setup":
            _, impl, function, args, options = msg
            try:
                if options.get("process") == "cli":
                    from gradcli.process import tune_allocator
                    tune_allocator()
                inprocess.prepare(impl, options.get("threads", 1))
                factory = getattr(inprocess, function)
                if options.get("warm") is not None:
                    # a small run first: this process's one-time costs (lazy imports, an op
                    # prepared at first use, the interpreter's specialisation) are then out of
                    # the samples; a failure shows in the measured runs instead
                    try:
                        factory(impl, *options["warm"])()
                    except Exception:  # noqa: BLE001
                        pass
                run = factory(impl, *args)
                if options.get("process") == "cli":
                    from gradcli.process import tune_collector
                    tune_collector()
                reply("ok")
            except Exception as e:  # noqa: BLE001 - reported in the table
                reply(*failure(e))
        elif msg[0] == "run":
            k = msg[1]
            phases = {}
            # what a call returned is let go before the next call, as a training loop keeps
            # nothing of the last step: holding it (a weight's gradient, 8 MB) kept a block in
            # use across the next pass and decided where glibc's heap put the new one
            value = ph = None
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            try:
                for _ in range(k):
                    value = ph = None
                    value, ph = run()
                    for name, v in (ph or {}).items():
                        phases[name] = phases.get(name, 0.0) + v
            except BaseException as e:  # noqa: BLE001 - a RecursionError, a MemoryError, ...
                if isinstance(e, KeyboardInterrupt):
                    raise
                reply(*failure(e))
                continue
            wall = time.perf_counter() - t0
            cpu = time.process_time() - c0
            reply("ok", value, phases, wall, cpu)


def main():
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here.parent))          # bench/: `workloads`
    sys.path.insert(0, str(here.parent.parent))   # the checkout: `gradcli`
    # the protocol keeps the process's stdout; anything printed goes to stderr
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main()
