"""Language benchmarks, run on demand (never in CI): the cost of the gradcli language over the
same code written in Python on the Python API (`import gradcli as torch`), and the time to parse
a REPL line.

    .venv/bin/python bench/bench_language.py [--quick] [--rounds N] [--only NAME[,NAME]]

Workloads (NAME for --only):
  loop      issue 3's program: 20,000 scalar updates with forward and backward
  fit       20,000 gradient-descent steps fitting y = w*x + b (names, not literals, as operands)
  python    200,000 iterations of plain Python arithmetic, calls and attributes: the guards'
            cost where no engine work hides it
  parse     parse (lark + AST) and parse + compile of typical REPL lines, with the cached parser

Each loop workload is measured twice: whole processes (`gradcli run FILE` against
`python FILE.py`, started alternately, hyperfine not needed) and in-process (Session.run against
exec of the compiled Python, alternately, start-up excluded), each by wall time and by CPU time
(of the process and its children).  Rows give the median and min-max; `ratio` is gradcli's
median over Python's.  The machine may be shared: only ratios of medians measured side by side
mean anything, and CPU time is the steadier of the two clocks there.
"""

import argparse
import gc
import io
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

def _fit_program():
    """The `fit` workload: the suite's loop program (bench/loop_program.grad) with N steps."""
    path = Path(__file__).resolve().with_name("loop_program.grad")
    body = path.read_text(encoding="utf-8").split("# --- BODY ---\n", 1)[1]
    return "import torch\n" + body.replace("range(20000)", "range(N)").strip()


PROGRAMS = {
    "loop": """
        import torch
        w = torch.tensor(0.5, requires_grad=True)
        for i in range(N):
            loss = (w * 3.0 - 1.0) ** 2
            loss.backward()
            with torch.no_grad():
                w -= 0.01 * w.grad
            w.grad.zero_()
        print(w)
        """,
    "fit": _fit_program(),
    "python": """
        import math
        def step(s, i):
            return s + math.sin(i * 0.001) * 2 - abs(i % 7)
        s = 0.0
        values = [0.0, 1.0]
        for i in range(N):
            s = step(s, i)
            values[i % 2] += s.real
        print(round(s, 3), len(values))
        """,
}
ITERATIONS = {"loop": 20_000, "fit": 20_000, "python": 200_000}
REPL_LINES = [
    "x = torch.tensor([1., 2., 3.], requires_grad=True)",
    "y = (x ** 2).sum()",
    "y.backward()",
    "x.grad",
    "z = sin(x) * exp(-x) + 0.5 * x.pow(3)",
    'print(f"{y.item():.3f}")',
    "w = torch.randn(3, 4, requires_grad=True); b = torch.zeros(4)",
    "out = torch.relu(x @ w + b).mean()",
    "with torch.no_grad(): x -= 0.1 * x.grad",
    "def f(x, k=2): return x ** k + 1",
]


def sources(name, n):
    """(gradcli program, the same code on the Python API)."""
    program = textwrap.dedent(PROGRAMS[name]).strip().replace("range(N)", f"range({n})") + "\n"
    return program, program.replace("import torch", "import gradcli as torch", 1)


def stats(times):
    return statistics.median(times), min(times), max(times)


def report(title, times, unit="s", scale=1.0):
    """One row per implementation, the first being the reference of the ratios."""
    print(title)
    reference = None
    for name, values in times.items():
        median, low, high = (t * scale for t in stats(values))
        reference = reference or median
        print(f"  {name:8s} median {median:9.3f} {unit}   min-max {low:.3f}-{high:.3f} {unit}"
              f"   ratio {median / reference:5.2f}   ({len(values)} runs)")


def alternate(candidates, rounds, clock=time.perf_counter):
    """Run each candidate once per round, in an order rotated every round; their times."""
    times = {name: [] for name in candidates}
    names = list(candidates)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            gc.collect()
            start = clock()
            candidates[name]()
            times[name].append(clock() - start)
    return times


def cpu_time():
    """CPU seconds of this process and its finished children: less disturbed than wall time by
    other processes on a shared machine (though not by their use of caches)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def both_clocks(candidates, rounds):
    """Wall and CPU times of alternate runs (each run is timed by both clocks)."""
    wall, cpu = {name: [] for name in candidates}, {name: [] for name in candidates}

    def timed(name, run):
        def measure():
            start_cpu, start = cpu_time(), time.perf_counter()
            run()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(cpu_time() - start_cpu)
        return measure

    alternate({name: timed(name, run) for name, run in candidates.items()}, rounds)
    return wall, cpu


def whole_process(name, n, rounds):
    program, python = sources(name, n)
    with tempfile.TemporaryDirectory() as tmp:
        grad_file, py_file = Path(tmp, f"{name}.grad"), Path(tmp, f"{name}.py")
        grad_file.write_text(program)
        py_file.write_text(python)
        gradcli = [str(Path(sys.executable).with_name("gradcli")), "run", str(grad_file)]
        plain = [sys.executable, str(py_file)]
        outputs = {}

        def launcher(key, argv):
            def run():
                result = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
                outputs.setdefault(key, set()).add(result.stdout + result.stderr)
            return run

        wall, cpu = both_clocks({"python": launcher("python", plain),
                                 "gradcli": launcher("gradcli", gradcli)}, rounds)
    if outputs["python"] != outputs["gradcli"]:
        sys.exit(f"{name}: outputs differ: {outputs}")
    report(f"{name} ({n:,} iterations), whole process, gradcli run vs python, wall", wall)
    report(f"{name} ({n:,} iterations), whole process, gradcli run vs python, CPU", cpu)


def in_process(name, n, rounds):
    from gradcli.lang.session import Session
    from gradcli.lang.transcript import fresh_interpreter
    program, python = sources(name, n)
    code = compile(python, f"{name}.py", "exec")
    outputs = {}

    def run_gradcli():
        out = io.StringIO()
        with fresh_interpreter():
            Session(out=out).run(program)
        outputs.setdefault("gradcli", set()).add(out.getvalue())

    def run_python():
        out = io.StringIO()
        with fresh_interpreter():
            exec(code, {"__name__": "__main__", "print": lambda *a: print(*a, file=out)})
        outputs.setdefault("python", set()).add(out.getvalue())

    run_gradcli(), run_python()     # warm: parser cache, imports, the op table
    wall, cpu = both_clocks({"python": run_python, "gradcli": run_gradcli}, rounds)
    if outputs["python"] != outputs["gradcli"]:
        sys.exit(f"{name}: outputs differ: {outputs}")
    report(f"{name} ({n:,} iterations), in-process, Session.run vs exec, wall", wall)
    report(f"{name} ({n:,} iterations), in-process, Session.run vs exec, CPU", cpu)


def parse(rounds):
    from gradcli.lang import parser
    from gradcli.lang.syntax import parse_module
    from gradcli.lang.compiler import compile_program
    parser.lark_parser()            # the cached parser, loaded once

    def fresh(step):                # a line not seen before: parse trees are cached by source
        def run(line):
            parser._cached_parse.cache_clear()
            return step(line)
        return run

    steps = {"parse": fresh(parse_module),
             "parse+compile": fresh(lambda s: compile_program(parse_module(s)))}
    per_line = {key: [] for key in steps}
    worst = {key: (0, "") for key in steps}
    for line in REPL_LINES:
        times = alternate({key: (lambda f=f: f(line)) for key, f in steps.items()}, rounds)
        for key, values in times.items():
            median = statistics.median(values)
            per_line[key].append(median)
            worst[key] = max(worst[key], (median, line))
    report(f"REPL line ({len(REPL_LINES)} lines, median per line over {rounds} rounds)",
           per_line, unit="ms", scale=1000)
    for key, (median, line) in worst.items():
        print(f"  slowest {key}: {median * 1000:.3f} ms  {line}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations and rounds")
    ap.add_argument("--rounds", type=int, help="rounds of each measurement")
    ap.add_argument("--only", help="comma-separated workload names")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    rounds = args.rounds or (3 if args.quick else 7)
    for name in PROGRAMS:
        if only and name not in only:
            continue
        n = ITERATIONS[name] // (10 if args.quick else 1)
        whole_process(name, n, rounds)
        in_process(name, n, rounds)
    if not only or "parse" in only:
        parse(rounds * 20)


if __name__ == "__main__":
    main()
