"""The benchmark suite (issue 6): gradcli against PyTorch (CPU), HIPS autograd, micrograd and
hand-written NumPy on the same workloads, run on demand (never in CI).

    .venv/bin/pip install autograd micrograd      # comparison libraries: venv only, not deps
    apt-get install -y hyperfine                  # whole-process timings (optional: a fallback)
    .venv/bin/python bench/bench_suite.py [--quick] [--only NAME[,NAME]] [--json OUT] [--markdown]

Implementations are always run alternately (round-robin, the order rotated every round) in one
invocation, so that the noise of a shared machine hits all of them alike; each row reports the
median, min-max, and the ratio of its median to the median of the goal's reference implementation.
In-process workloads run each implementation in a worker process of its own
(bench/workloads/worker.py), as its users run it: no other library's objects for the cyclic garbage
collector to walk. The scalar chains, the MLP and the elementwise chain also run gradcli under the
process settings of the `gradcli` console script, its collector and allocator settings ("gradcli
(CLI settings)"; both gradcli rows are judged, the MLP's and the elementwise chain's against
hand-written NumPy under the same settings, "numpy (CLI settings)"); a worker lets go of what a call
returned before the next call. Whole-process workloads run in fresh child processes (hyperfine when
installed, one hyperfine call per round with every command in it; peak memory from os.wait4's
ru_maxrss). Every result is checked against the reference implementation's value before
it is reported. PASS/FAIL judges the wall-clock ratio of medians; the note column of each goal row
also gives the ratio of median CPU times (process_time in process, hyperfine's user+system for
whole processes), which a loaded machine disturbs far less than wall time.

    .venv/bin/python bench/bench_suite.py --json run.json      # measure once, keep everything
    .venv/bin/python bench/bench_suite.py --from-json run.json --markdown   # table for README

Interpreters: gradcli and hand-written NumPy run on the interpreter under test (--python, default
the one running this script; its `gradcli` console script for the whole-process rows), PyTorch,
autograd and micrograd on --torch-python (default: the same). PyTorch's wheel lies on this
machine for CPython 3.11 only, so a run on 3.13 interleaves gradcli on 3.13 with PyTorch on 3.11;
the goals against NumPy, `import numpy` or gradcli itself compare one interpreter's processes.
bench/bench_versions.py builds the venvs and runs this on 3.10-3.13, one table for all:

    python3 bench/bench_versions.py        # bench/.runs/versions/table.md; see bench/NOTES.md

Workload NAMEs for --only (a prefix selects several, e.g. --only chain):
  oneshot      whole process: `gradcli eval "z=(2*x)**3" --at x=3` vs `python -c "import numpy"`
  chain10k     scalar chain x*w, x+b, sin(x), x*1.0001 repeated, forward+backward, per op
  chain100k    the same, 100,000 ops
  chain1m      the same, 1,000,000 ops (five rounds; per-op flatness 1M vs 10k)
  mlp          3-layer 1024x1024 tanh MLP, batch 64, forward+backward
  elementwise  20-op elementwise chain on 1e6 elements, forward+backward
  second       second derivative of a 1000-op scalar chain (create_graph)
  hessian      Hessian of a 100-dim function: reverse (PyTorch's default) and forward-over-reverse
  jacobian     Jacobian 100x100: reverse (PyTorch's default) and forward mode
  memory       peak RSS of a fresh process running the MLP (3 forward+backward)
  loop         20,000-iteration program: `gradcli run bench/loop_program.grad` vs the same code
               on the Python API (bench/loop_program.py)

Threads: every library runs single-threaded by default (OMP/OpenBLAS/MKL and torch), which is
the fair and least noisy setting on a small shared machine; --threads N changes that, --threads 0
leaves the libraries' defaults.
"""

import argparse
import os
import sys


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="fewer rounds, smaller loop, no 1M-op chain (a smoke run)")
    ap.add_argument("--only", default="", help="comma-separated workload names or prefixes")
    ap.add_argument("--impls", default="gradcli,torch,autograd,micrograd,numpy",
                    help="comma-separated implementations (default: all)")
    ap.add_argument("--json", metavar="OUT", help="write every raw time and result to OUT")
    ap.add_argument("--markdown", action="store_true",
                    help="print the table as Markdown (for README.md)")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads per library (default 1; 0 = the libraries' defaults)")
    ap.add_argument("--rounds", type=int, default=0, help="override every workload's rounds")
    ap.add_argument("--list", action="store_true", help="list the workload names and exit")
    ap.add_argument("--from-json", metavar="IN",
                    help="print the table of a run saved with --json (no measuring)")
    ap.add_argument("--python", metavar="PATH",
                    help="the interpreter under test: gradcli's and hand-written NumPy's rows, "
                         "and the `gradcli` console script beside it (default: this one)")
    ap.add_argument("--torch-python", metavar="PATH",
                    help="the interpreter of the comparison libraries' rows (torch, autograd, "
                         "micrograd; default: --python), e.g. a 3.11 venv with PyTorch while "
                         "gradcli runs on 3.13 (bench/bench_versions.py)")
    return ap.parse_args(argv)


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS is not None and ARGS.threads > 0:  # before NumPy is imported, and inherited by children
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(ARGS.threads)

import datetime  # noqa: E402
import json  # noqa: E402
import pickle  # noqa: E402
import resource  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from workloads import inprocess  # noqa: E402

# The interpreters (set_interpreters): PY runs the code under test, gradcli and hand-written
# NumPy (NumPy is gradcli's floor, so it runs on the same interpreter), and GRADCLI is the console
# script beside it; TORCH_PY runs the comparison libraries, PyTorch, autograd and micrograd,
# which may be another interpreter (PyTorch's wheels lie on this machine for one CPython only).
# Each implementation always runs in processes of its own, so one run can interleave gradcli on
# 3.13 with PyTorch on 3.11; every goal whose reference is NumPy, `python -c "import numpy"` or
# gradcli itself compares two processes of the same interpreter.
PY = TORCH_PY = GRADCLI = None
OWN = ("gradcli", "numpy")  # implementations that run on PY


def console_script(python):
    d = Path(python).parent
    return str(d / "gradcli") if (d / "gradcli").exists() else shutil.which("gradcli")


def set_interpreters(args):
    global PY, TORCH_PY, GRADCLI
    PY = args.python or sys.executable
    TORCH_PY = args.torch_python or PY
    GRADCLI = console_script(PY)


def python_for(impl):
    """The interpreter of impl's processes ("gradcli (CLI settings)" is gradcli's)."""
    return PY if impl.split(" ")[0] in OWN else TORCH_PY

WORKLOADS = ["oneshot", "chain10k", "chain100k", "chain1m", "mlp", "elementwise", "second",
             "hessian", "jacobian", "memory", "loop"]

# "gradcli (CLI settings)" is gradcli under the process settings of the `gradcli` console script
# (gradcli.process.tune_collector and tune_allocator), where the Python API leaves
# Python's defaults
CLI_SETTINGS = "gradcli (CLI settings)"
# hand-written NumPy under the same process settings: the reference of gradcli's CLI-settings row
# where NumPy is the reference (the MLP, the elementwise chain), so that the row compares like
# with like (under glibc's default thresholds either process may fault its big arrays' pages in
# again on every pass, depending on what its heap holds: see README, Benchmarks)
NUMPY_CLI = "numpy (CLI settings)"
CHAIN_IMPLS = ("gradcli", CLI_SETTINGS) + tuple(i for i in inprocess.IMPLS if i != "gradcli")

FLAT_LIMIT = 1.25  # "per-op cost flat from 10k to 1M": per-op at 1M within 1.25x of per-op at 10k


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Results

class Row:
    """One (workload, implementation) line of the table."""

    def __init__(self, workload, impl, unit, scale=1.0, ref=None, goal=None, goal_impl="gradcli",
                 group=""):
        self.workload, self.impl, self.unit, self.scale = workload, impl, unit, scale
        self.ref, self.goal, self.goal_impl, self.group = ref, goal, goal_impl, group
        self.samples = []      # raw measurements (seconds, or KB for memory)
        self.phases = {}       # name -> list of seconds
        self.notes = []
        self.failure = None    # reason string when the implementation cannot do it
        self.value = None      # first result, for the correctness check
        self.derived_ratio = None  # for rows that are a ratio of other rows (flatness)
        self.wrong = None      # set when the result disagrees with the reference's
        self.cpu = []          # in-process workloads: CPU seconds (process_time) per sample

    @property
    def ok(self):
        return self.failure is None and bool(self.samples)

    def median(self):
        return statistics.median(self.samples) * self.scale if self.ok else None

    def span(self):
        return (min(self.samples) * self.scale, max(self.samples) * self.scale) if self.ok else None

    def to_json(self):
        return {"group": self.group, "workload": self.workload, "impl": self.impl,
                "unit": self.unit, "scale": self.scale, "samples": self.samples,
                "median": self.median(), "phases": self.phases, "notes": self.notes,
                "failure": self.failure, "wrong": self.wrong, "ref": self.ref, "goal": self.goal,
                "goal_impl": self.goal_impl, "derived_ratio": self.derived_ratio,
                "cpu": self.cpu}

    def cpu_median(self):
        return statistics.median(self.cpu) * self.scale if self.ok and self.cpu else None

    @classmethod
    def from_json(cls, d):
        goal_impl = d.get("goal_impl") or (
            "gradcli eval" if d["workload"].startswith("one-shot") else
            "gradcli run" if "loop program" in d["workload"] else "gradcli")
        r = cls(d["workload"], d["impl"], d["unit"], d["scale"], d["ref"], d["goal"], goal_impl,
                d.get("group", ""))
        r.samples, r.phases, r.notes = d["samples"], d["phases"], d["notes"]
        r.failure, r.wrong, r.derived_ratio = d["failure"], d.get("wrong"), d["derived_ratio"]
        r.cpu = d.get("cpu") or []
        return r


def fmt_num(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_ratio(x):
    return f"{x:.2f}x" if x >= 0.1 else f"{x:.2g}x"


def attach_ratios(rows):
    """ratio = median / the reference implementation's median, within each workload."""
    by_wl = {}
    for r in rows:
        by_wl.setdefault(r.workload, {})[r.impl] = r
    out = []
    for r in rows:
        ratio = r.derived_ratio
        if ratio is None and r.ref and r.ok:
            ref = by_wl[r.workload].get(r.ref)
            if ref is not None and ref.ok and ref.median():
                ratio = r.median() / ref.median()
        verdict = ""
        if r.goal is not None and r.impl == r.goal_impl:
            verdict = "FAIL" if ratio is None or ratio > r.goal or r.wrong else "PASS"
        out.append((r, ratio, verdict))
    return out


def table(rows, markdown=False):
    header = ["workload", "impl", "median", "min-max", "ratio", "goal", "result", "note"]
    lines = []
    for r, ratio, verdict in attach_ratios(rows):
        if r.failure is not None:
            med, span, rat = "fails: " + r.failure, "", ""
        elif r.derived_ratio is not None:
            med, span, rat = "", "", fmt_ratio(ratio)
        else:
            med = f"{fmt_num(r.median())} {r.unit}"
            lo, hi = r.span()
            span = f"{fmt_num(lo)}-{fmt_num(hi)}"
            rat = "" if ratio is None else (f"{fmt_ratio(ratio)} {r.ref}" if r.impl != r.ref
                                            else "1 (ref)")
        goal = ""
        if r.goal is not None and r.impl == r.goal_impl:
            goal = f"<= {r.goal:g}x {r.ref}" if r.derived_ratio is None else f"<= {r.goal:g}x"
        extra = []
        if r.goal is not None and r.impl == r.goal_impl and r.cpu_median() and r.ref:
            ref = next((x for x in rows if x.workload == r.workload and x.impl == r.ref), None)
            if ref is not None and ref.cpu_median():
                extra.append(f"CPU-time ratio {fmt_ratio(r.cpu_median() / ref.cpu_median())}")
        note = "; ".join(([r.wrong] if r.wrong else []) + extra + r.notes)
        lines.append([r.workload, r.impl, med, span, rat, goal, verdict, note])
    if markdown:
        esc = [[c.replace("|", "\\|") for c in line] for line in lines]
        for i, line in enumerate(esc):  # the workload in bold on its first row only
            line[0] = "" if i and lines[i - 1][0] == lines[i][0] else f"**{line[0]}**"
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(line) + " |" for line in esc]
        return "\n".join(out)
    # plain: failures' long reasons go in the note column so the table stays aligned
    plain = []
    for line in lines:
        line = list(line)
        if line[2].startswith("fails: "):
            line[7] = line[2] + (("; " + line[7]) if line[7] else "")
            line[2] = "fails"
        plain.append(line)
    widths = [max(len(h), *(len(line[i]) for line in plain)) if plain else len(h)
              for i, h in enumerate(header)]
    widths[-1] = 0
    fmt = lambda cols: "  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths[:-1]] + ["----"])]
                     + [fmt(line) for line in plain])


def check_values(rows, rtol=1e-6, atol=1e-9):
    """Every implementation's result against numpy's (or torch's when numpy did not run)."""
    by_wl = {}
    for r in rows:
        by_wl.setdefault(r.workload, {})[r.impl] = r
    for impls in by_wl.values():
        ref = next((impls[k] for k in ("numpy", "torch")
                    if k in impls and impls[k].value is not None), None)
        if ref is None:
            continue
        for r in impls.values():
            if r is ref or r.value is None:
                continue
            a, b = np.asarray(r.value, dtype=float), np.asarray(ref.value, dtype=float)
            if a.shape != b.shape or not np.allclose(a, b, rtol=rtol, atol=atol):
                err = float(np.max(np.abs(a - b))) if a.shape == b.shape else float("nan")
                r.wrong = f"WRONG result vs {ref.impl} (max abs err {err:.3g})"


# ---------------------------------------------------------------------------------------------
# In-process workloads: one round = every implementation once, in a rotated order.

class Worker:
    """A bench/workloads/worker.py process running one implementation's workload (see there)."""

    def __init__(self, spec):
        impl, function, args, options = spec
        self.proc = subprocess.Popen([python_for(impl), str(BENCH / "workloads" / "worker.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        options = dict(options, threads=ARGS.threads if ARGS is not None else 1)
        self.failure = self.call("setup", impl, function, args, options)[1]

    def call(self, *msg):
        """Send msg, return the reply: ("ok", ...) or (kind, reason) for a failure."""
        try:
            pickle.dump(msg, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
            reply = pickle.load(self.proc.stdout)
        except (EOFError, BrokenPipeError, pickle.UnpicklingError):
            code = self.proc.wait()
            return ("error", f"the worker process died (exit code {code})")
        if reply[0] == "error":
            log(reply[2])
        return reply if reply[0] != "ok" else (reply[0], None, *reply[1:])

    def close(self):
        try:
            pickle.dump(("exit",), self.proc.stdin)
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def measure_inprocess(rows, specs, rounds, warmup, min_time=0.05, keys=None, inner=None):
    """specs: key -> (impl, factory name in bench/workloads/inprocess.py, its further
    arguments, worker options); a row's key is keys[id(row)], else its impl.  Each key runs
    in a worker process of its own (bench/workloads/worker.py), all driven round-robin.

    A sample is the mean of k back-to-back calls, k chosen in the warm-up so that a sample lasts
    at least min_time: a 1 ms call is otherwise one scheduler time slice away from 5 ms on a busy
    machine. Without warm-up (the big workloads) k = 1.
    """
    keys = keys or {}
    key = lambda r: keys.get(id(r), r.impl)  # noqa: E731
    workers = {}
    try:
        for r in rows:
            w = workers[key(r)] = Worker(specs[key(r)])
            if w.failure is not None:
                r.failure = w.failure
        live = [r for r in rows if r.failure is None]
        inner = {key(r): (inner or {}).get(key(r), 1) for r in live}

        def once(r, record):
            k = inner[key(r)]
            reply = workers[key(r)].call("run", k)
            if reply[0] != "ok":
                r.failure = reply[1]
                return None
            _, _, value, phases, wall, cpu = reply
            dt, cpu = wall / k, cpu / k
            if r.value is None:
                r.value = value
            if record:
                r.samples.append(dt)
                r.cpu.append(cpu)
                for name, v in phases.items():
                    r.phases.setdefault(name, []).append(v / k)
            return dt

        for w in range(warmup):
            for r in live:
                if r.failure is None:
                    dt = once(r, record=False)
                    if dt is not None and w == warmup - 1 and inner[key(r)] == 1:
                        inner[key(r)] = max(1, min(1000, int(min_time / max(dt, 1e-9)) + 1))
        for r in live:
            if inner[key(r)] > 1:
                r.notes.append(f"{inner[key(r)]} calls per sample")
        for i in range(rounds):
            order = live[i % len(live):] + live[:i % len(live)] if live else []
            for r in order:
                if r.failure is None:
                    once(r, record=True)
            log(f"    round {i + 1}/{rounds}: " + ", ".join(
                f"{key(r)} {r.samples[-1] * r.scale:.3g}" for r in order
                if r.failure is None and r.samples))
    finally:
        for w in workers.values():
            w.close()


# ---------------------------------------------------------------------------------------------
# Whole-process workloads

def check_command(argv, env, expect=None, timeout=600):
    """Run once, untimed: the command must succeed (and print `expect`); None or a reason."""
    try:
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                           cwd=ROOT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{type(e).__name__}: {e}", ""
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or [""]
        return f"exit {p.returncode}: {tail[0][:160]}", p.stdout
    if expect is not None and expect not in p.stdout:
        return f"WRONG output: {p.stdout.strip()[:160]!r} (expected {expect!r})", p.stdout
    return None, p.stdout


def _shell_words(argv, env_extra):
    words = (["env"] + [f"{k}={v}" for k, v in env_extra.items()] if env_extra else []) + argv
    return shlex.join(words)


def measure_processes(rows, commands, rounds, runs, warmup, use_hyperfine=True):
    """commands: impl -> (argv, extra env, expected output or None). Wall seconds per run."""
    env = dict(os.environ)
    live = []
    for r in rows:
        argv, extra, expect = commands[r.impl]
        reason, _ = check_command(argv, {**env, **extra}, expect)
        if reason:
            r.failure = reason
        else:
            live.append(r)
    r_cmd = {r.impl: _shell_words(*commands[r.impl][:2]) for r in live}
    hyperfine = shutil.which("hyperfine") if use_hyperfine else None
    for i in range(rounds):
        order = live[i % len(live):] + live[:i % len(live)] if live else []
        if not order:
            break
        if hyperfine:
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "hf.json"
                cmd = [hyperfine, "-N", "--style", "none", "--warmup", str(warmup), "-r",
                       str(runs), "--export-json", str(out)] + [r_cmd[r.impl] for r in order]
                p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
                if p.returncode != 0:
                    log(p.stderr)
                    for r in order:
                        r.failure = f"hyperfine failed: {p.stderr.strip()[-160:]}"
                    break
                data = json.loads(out.read_text())
                for r, res in zip(order, data["results"]):
                    r.samples.extend(res["times"])
                    r.cpu.append(res["user"] + res["system"])  # hyperfine gives the means
        else:
            for r in order:
                argv, extra, _ = commands[r.impl]
                for _ in range(warmup):
                    subprocess.run(argv, env={**env, **extra}, capture_output=True, cwd=ROOT)
                for _ in range(runs):
                    u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    t0 = time.perf_counter()
                    subprocess.run(argv, env={**env, **extra}, capture_output=True, cwd=ROOT)
                    r.samples.append(time.perf_counter() - t0)
                    u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    r.cpu.append(u1.ru_utime - u0.ru_utime + u1.ru_stime - u0.ru_stime)
        log(f"    round {i + 1}/{rounds}: " + ", ".join(
            f"{r.impl} {statistics.median(r.samples[-runs:]) * r.scale:.4g}" for r in order))
    tool = "hyperfine -N" if hyperfine else "subprocess wall clock (hyperfine not found)"
    return tool


PEAK_RSS_LAUNCHER = """
import json, os, subprocess, sys
p = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(p.pid, 0)
print(json.dumps({"status": os.waitstatus_to_exitcode(status), "maxrss_kb": usage.ru_maxrss}),
      file=sys.stderr)
"""


def peak_rss_kb(argv, env):
    """Run argv in a fresh process; (its peak RSS in KB, its stdout).

    Linux carries a process's peak RSS across fork and exec, so a child forked straight from
    this (large) process would report at least our own RSS: the child is started from a small
    process instead, /usr/bin/time (GNU time, %M) or a tiny Python launcher that os.wait4s it.
    """
    with tempfile.TemporaryDirectory() as tmp:
        rss_file = Path(tmp) / "rss"
        if Path("/usr/bin/time").exists():
            launcher = ["/usr/bin/time", "-f", "%M", "-o", str(rss_file)]
        else:
            launcher = [PY, "-c", PEAK_RSS_LAUNCHER]
        p = subprocess.run(launcher + argv, env=env, capture_output=True, text=True, cwd=ROOT)
        if p.returncode != 0:
            tail = p.stderr.strip().splitlines()[-1:] or [""]
            raise RuntimeError(f"exit {p.returncode}: {tail[0][:160]}")
        if launcher[0] == "/usr/bin/time":
            kb = int(rss_file.read_text().split()[-1])
        else:
            kb = json.loads(p.stderr.strip().splitlines()[-1])["maxrss_kb"]
        return kb, p.stdout


# ---------------------------------------------------------------------------------------------
# The workloads

ONESHOT_TORCH = ("import torch; x=torch.tensor(3.,requires_grad=True); z=(2*x)**3; z.backward(); "
                 "print(x.grad)")
ONESHOT_GRADCLI_API = ONESHOT_TORCH.replace("import torch", "import gradcli as torch")
ONESHOT_AUTOGRAD = "from autograd import grad; print(grad(lambda x: (2*x)**3)(3.))"
ONESHOT_MICROGRAD = ("from micrograd.engine import Value; x=Value(3.); z=(2*x)**3; z.backward(); "
                     "print(x.grad)")


class Suite:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.impls = [i.strip() for i in args.impls.split(",") if i.strip()]
        self.rows = []
        self.meta = {}

    def rounds(self, full, quick):
        if self.args.rounds:
            return self.args.rounds
        return quick if self.quick else full

    def new_rows(self, group, workload, impls, unit, scale=1.0, ref=None, goal=None,
                 goal_impl="gradcli"):
        rows = [Row(workload, impl, unit, scale, ref, goal, goal_impl, group)
                for impl in impls if impl in self.impls or impl.split(" ")[0] in self.impls]
        self.rows.extend(rows)
        return rows

    # --- whole process ---------------------------------------------------------------------

    def oneshot(self):
        cmds = {
            "gradcli eval": ([GRADCLI, "eval", "z=(2*x)**3", "--at", "x=3"], {}, "dz/dx = 216"),
            "numpy import": ([PY, "-c", "import numpy"], {}, None),
            "gradcli -c": ([PY, "-c", ONESHOT_GRADCLI_API], {}, "216"),
            "torch -c": ([TORCH_PY, "-c", ONESHOT_TORCH], {}, "216"),
            "autograd -c": ([TORCH_PY, "-c", ONESHOT_AUTOGRAD], {}, "216"),
            "micrograd -c": ([TORCH_PY, "-c", ONESHOT_MICROGRAD], {}, "216"),
        }
        rows = self.new_rows("oneshot", "one-shot CLI gradient (whole process)", cmds, "ms",
                             1e3, ref="numpy import", goal=1.5, goal_impl="gradcli eval")
        if not rows:
            return
        tool = measure_processes(rows, {r.impl: cmds[r.impl] for r in rows},
                                 rounds=self.rounds(5, 2), runs=2 if not self.quick else 2,
                                 warmup=1)
        self.meta["oneshot_tool"] = tool
        for r in rows:
            if r.impl == "gradcli eval":
                r.notes.append('gradcli eval "z=(2*x)**3" --at x=3')
            elif r.impl == "numpy import":
                r.notes.append('python -c "import numpy"')
            elif r.impl == "gradcli -c":
                r.notes.append("torch snippet with import gradcli as torch")

    def memory(self):
        script = str(BENCH / "workloads" / "mlp_memory.py")
        impls = ["gradcli", "torch", "autograd", "micrograd", "numpy"]
        rows = self.new_rows("memory", "peak RSS, MLP process", impls, "MB", 1 / 1024,
                             ref="numpy", goal=1.15)
        live = []
        for r in rows:
            if r.impl == "micrograd":
                r.failure = "scalar-only (no MLP, see above)"
            else:
                live.append(r)
        setup = {r.impl: [] for r in live}
        rounds = self.rounds(3, 1)
        for i in range(rounds):
            order = live[i % len(live):] + live[:i % len(live)] if live else []
            for r in order:
                if r.failure:
                    continue
                try:
                    kb, out = peak_rss_kb([python_for(r.impl), script, r.impl, "3"], dict(os.environ))
                except RuntimeError as e:
                    r.failure = str(e)
                    continue
                r.samples.append(kb)
                info = json.loads(out.strip().splitlines()[-1])
                setup[r.impl].append(info["setup_maxrss_kb"])
                if r.value is None:
                    r.value = info["check"]
            log(f"    round {i + 1}/{rounds}: " + ", ".join(
                f"{r.impl} {r.samples[-1] / 1024:.0f} MB" for r in order if r.ok))
        for r in live:
            if r.ok:
                s = statistics.median(setup[r.impl]) / 1024
                r.notes.append(f"after imports+setup {s:.0f} MB; workload adds "
                               f"{r.median() - s:.0f} MB")

    def loop(self):
        grad_src = (BENCH / "loop_program.grad").read_text()
        py_src = (BENCH / "loop_program.py").read_text()
        marker = "# --- BODY ---"
        body = grad_src.split(marker, 1)[1]
        if body != py_src.split(marker, 1)[1]:
            raise SystemExit("bench/loop_program.grad and .py differ below the BODY marker")
        steps = 2_000 if self.quick else 20_000
        if self.quick:  # shrunk copies, same code otherwise
            tmp = Path(tempfile.mkdtemp(prefix="gradcli-bench-"))
            (tmp / "loop_program.grad").write_text(grad_src.replace("range(20000)",
                                                                    f"range({steps})"))
            (tmp / "loop_program.py").write_text(py_src.replace("range(20000)",
                                                                f"range({steps})"))
            gpath, ppath = tmp / "loop_program.grad", tmp / "loop_program.py"
        else:
            gpath, ppath = BENCH / "loop_program.grad", BENCH / "loop_program.py"
        expect = "checkpoints = " + str(steps // 1000)
        pp = {"PYTHONPATH": str(ROOT)}
        cmds = {
            "gradcli run": ([GRADCLI, "run", str(gpath)], {}, expect),
            "gradcli": ([PY, str(ppath)], pp, expect),
            "torch": ([TORCH_PY, str(ppath)], {**pp, "LOOP_IMPL": "torch"}, expect),
        }
        rows = self.new_rows("loop", f"{steps:,}-iteration loop program (whole process)", cmds,
                             "s", 1.0, ref="gradcli", goal=2.0, goal_impl="gradcli run")
        if not rows:
            return
        measure_processes(rows, {r.impl: cmds[r.impl] for r in rows},
                          rounds=self.rounds(3, 1), runs=1, warmup=0)
        for r in rows:
            r.notes.append({"gradcli run": "gradcli run bench/loop_program.grad",
                            "gradcli": "python bench/loop_program.py (import gradcli as torch)",
                            "torch": "LOOP_IMPL=torch python bench/loop_program.py"}[r.impl])

    # --- in process ----------------------------------------------------------------------

    def chain(self, n, name):
        """The chain of n ops; for n > 10k also a 10k-op control run of each implementation in
        every round, right next to the big one, for the per-op flatness (big vs control): two
        sizes measured minutes apart on a shared machine would mostly compare the load."""
        rows = self.new_rows(name, f"scalar chain {n:,} ops, fwd+bwd per op",
                             CHAIN_IMPLS, "us/op", 1e6 / n, ref="torch",
                             goal=None if n >= 1_000_000 else 0.8)
        for r in rows:
            if r.impl.startswith("gradcli"):  # both gradcli rows are judged
                r.goal_impl = r.impl
        if n >= 1_000_000:  # five rounds: its flatness is judged on a median of them
            rounds, warmup = self.rounds(5, 1), 0
        elif n >= 100_000:
            rounds, warmup = self.rounds(3, 1), 0
        else:
            rounds, warmup = self.rounds(7, 3), 1
        measured = list(rows)
        control = {}
        if n > 10_000:
            for r in rows:
                if r.impl == "micrograd":
                    continue
                c = Row(f"scalar chain 10,000 ops (control for {name})", r.impl, "us/op",
                        1e6 / 10_000, group=name)
                control[r.impl] = c
                measured.insert(measured.index(r) + 1, c)
        keys = {id(c): c.impl + " control" for c in control.values()}
        specs = {}
        for r in measured:
            impl = r.impl.split(" ")[0]
            options = {"warm": (1_000,)}  # (the big runs have no warm-up round)
            if r.impl == CLI_SETTINGS:
                options["process"] = "cli"
            size = 10_000 if id(r) in keys else n
            specs[keys.get(id(r), r.impl)] = (impl, "chain", (size,), options)
        measure_inprocess(measured, specs, rounds, warmup, keys=keys,
                          inner={k: 3 for k in keys.values()})
        for r in rows:
            if r.ok and r.phases:
                f = statistics.median(r.phases["fwd"]) * 1e6 / n
                b = statistics.median(r.phases["bwd"]) * 1e6 / n
                r.notes.append(f"fwd {fmt_num(f)} + bwd {fmt_num(b)} us/op")
        if control:
            self.flatness(control, {r.impl: r for r in rows}, f"{n // 1000}k" if n < 10**6
                          else f"{n // 10**6}M")
        return rows

    def flatness(self, control, big, label):
        at = max(self.rows.index(r) for r in big.values()) + 1  # right after the chain rows
        new = []
        for impl in CHAIN_IMPLS:
            c, b = control.get(impl), big.get(impl)
            if c is not None and b is not None and c.ok and b.ok:
                row = Row(f"per-op cost {label} vs 10k (flat?)", impl, "", ref=None,
                          goal=FLAT_LIMIT, group="flat",
                          goal_impl=impl if impl.startswith("gradcli") else "gradcli")
                row.derived_ratio = b.median() / c.median()
                row.notes.append(f"{fmt_num(c.median())} -> {fmt_num(b.median())} us/op, "
                                 "same rounds")
                if c.cpu and b.cpu:
                    row.notes.insert(0, f"CPU-time ratio "
                                     f"{fmt_ratio(b.cpu_median() / c.cpu_median())}")
                new.append(row)
        self.rows[at:at] = new

    def simple(self, name, label, factory, ref, goal, rounds, warmup=1, unit="ms", scale=1e3,
               args=(), cli=False):
        """factory: the name of a factory of bench/workloads/inprocess.py, called as
        factory(impl, *args) in each implementation's worker process.  cli: also a row of
        gradcli under the console script's process settings (CLI_SETTINGS), judged too, against
        NumPy under the same settings (NUMPY_CLI) where NumPy is the reference."""
        impls = inprocess.IMPLS
        if cli:
            at = impls.index("gradcli") + 1
            impls = impls[:at] + (CLI_SETTINGS,) + impls[at:]
            if ref == "numpy":
                impls += (NUMPY_CLI,)
        rows = self.new_rows(name, label, impls, unit, scale, ref=ref, goal=goal)
        specs = {}
        for r in rows:
            if r.impl in (CLI_SETTINGS, NUMPY_CLI):
                specs[r.impl] = (r.impl.split(" ")[0], factory, args, {"process": "cli"})
                if r.impl == CLI_SETTINGS:
                    r.goal_impl = r.impl
                    if NUMPY_CLI in impls and "numpy" in self.impls:
                        r.ref = NUMPY_CLI
            else:
                specs[r.impl] = (r.impl, factory, args, {})
        measure_inprocess(rows, specs, rounds, warmup)
        return rows

    def run(self):
        sel = [s.strip() for s in self.args.only.split(",") if s.strip()]
        unknown = [s for s in sel if not any(w.startswith(s) for w in WORKLOADS)]
        if unknown:
            raise SystemExit(f"unknown workload {unknown}: choose from {', '.join(WORKLOADS)}")
        want = lambda name: not sel or any(name.startswith(s) for s in sel)  # noqa: E731
        if self.quick and not self.args.only:
            skip = {"chain1m"}
        else:
            skip = set()
        t_start = time.time()
        self.meta["load_start"] = os.getloadavg()
        for name in WORKLOADS:
            if not want(name) or name in skip:
                continue
            log(f"== {name}")
            t0 = time.perf_counter()
            if name == "oneshot":
                self.oneshot()
            elif name.startswith("chain"):
                n = {"chain10k": 10_000, "chain100k": 100_000, "chain1m": 1_000_000}[name]
                self.chain(n, name)
            elif name == "mlp":
                # 15 rounds: big arrays make samples bimodal (page faults after heap trims),
                # and a median of 7 could land on either mode
                self.simple(name, "3-layer 1024x1024 tanh MLP, batch 64, fwd+bwd", "mlp",
                            "numpy", 1.1, self.rounds(15, 3), cli=True)
            elif name == "elementwise":
                self.simple(name, "20-op elementwise chain, 1e6 elements, fwd+bwd",
                            "elementwise", "numpy", 1.1, self.rounds(15, 3), cli=True)
            elif name == "second":
                self.simple(name, "2nd derivative of a 1000-op chain (create_graph)",
                            "second_derivative", "torch", 1.0, self.rounds(7, 3))
            elif name == "hessian":
                self.simple(name, "Hessian 100-dim, reverse (torch default)",
                            "hessian", "torch", 1.0, self.rounds(5, 2), args=("reverse",))
                self.simple(name, "Hessian 100-dim, forward-over-reverse (vectorize=True)",
                            "hessian", "torch", 1.0, self.rounds(5, 2), args=("forward",))
            elif name == "jacobian":
                self.simple(name, "Jacobian 100x100, reverse (torch default)",
                            "jacobian", "torch", 1.0, self.rounds(5, 2), args=("reverse",))
                self.simple(name, "Jacobian 100x100, forward (vectorize=True)",
                            "jacobian", "torch", 1.0, self.rounds(5, 2), args=("forward",))
            elif name == "memory":
                self.memory()
            elif name == "loop":
                self.loop()
            log(f"   ({time.perf_counter() - t0:.0f} s)")
        check_values(self.rows)
        self.meta["load_end"] = os.getloadavg()
        self.meta["seconds"] = round(time.time() - t_start)


INTERPRETER_PROBE = """
import importlib.util, json, platform, sys
from importlib.metadata import version
out = {"python": platform.python_version(), "executable": sys.executable}
for mod in sys.argv[1:]:
    try:
        out[mod] = version(mod)
    except Exception:
        out[mod] = "not installed"
spec = importlib.util.find_spec("gradcli")
out["gradcli_origin"] = spec.origin if spec else None
print(json.dumps(out))
"""


def probe_interpreter(python, modules):
    """Python's and the modules' versions in another interpreter, and where its `import
    gradcli` (outside any checkout: the console script's) comes from."""
    p = subprocess.run([python, "-c", INTERPRETER_PROBE, *modules], capture_output=True,
                       text=True, cwd="/")
    if p.returncode != 0:
        raise SystemExit(f"{python} does not run: {p.stderr.strip()[-300:]}")
    return json.loads(p.stdout)


def machine_description(args):
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    own = probe_interpreter(PY, ["numpy"])
    versions = {"python": own["python"], "numpy": own["numpy"]}
    other = own if TORCH_PY == PY else probe_interpreter(TORCH_PY, ["numpy"])
    versions.update({mod: v for mod, v in probe_interpreter(
        TORCH_PY, ["torch", "autograd", "micrograd"]).items()
        if mod in ("torch", "autograd", "micrograd")})
    if TORCH_PY != PY:
        versions["torch_python"] = other["python"]
        versions["torch_numpy"] = other["numpy"]
    hf = shutil.which("hyperfine")
    if hf:
        versions["hyperfine"] = subprocess.run([hf, "--version"], capture_output=True,
                                               text=True).stdout.split()[-1]
    threads = "library defaults" if args.threads == 0 else f"{args.threads} per library"
    interpreters = {"python": PY, "torch_python": TORCH_PY, "gradcli": GRADCLI,
                    "gradcli_origin": own["gradcli_origin"]}
    return {"date": datetime.date.today().isoformat(), "cpu": cpu, "cores": os.cpu_count(),
            "memory": mem, "versions": versions, "threads": threads,
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
            "interpreters": interpreters}


def report(m, meta, rows, quick, markdown):
    v = m["versions"]
    libs = (f"PyTorch {v['torch']}, autograd {v['autograd']}, micrograd {v['micrograd']}")
    if "torch_python" in v:  # the comparison libraries on an interpreter of their own
        libs = (f"the comparison libraries on Python {v['torch_python']} "
                f"(NumPy {v['torch_numpy']}): {libs}")
    head = (f"{m['date']}, {m['cores']} cores ({m['cpu']}), {m['memory']}, threads: "
            f"{m['threads']}; Python {v['python']}, NumPy {v['numpy']}, {libs}"
            + (f", hyperfine {v['hyperfine']}" if "hyperfine" in v else "")
            + f"; load average {meta['load_start'][0]:.1f} at start, "
              f"{meta['load_end'][0]:.1f} at end; {meta['seconds']} s"
            + ("; --quick" if quick else ""))
    print(head + "\n")
    if m.get("console_warning"):
        print("warning: " + m["console_warning"] + "\n")
    print(table(rows, markdown=markdown))
    verdicts = [v for _, _, v in attach_ratios(rows) if v]
    print(f"\ngoals: {verdicts.count('PASS')} PASS, {verdicts.count('FAIL')} FAIL")


def main():
    args = ARGS or parse_args()
    if args.list:
        print("\n".join(WORKLOADS))
        return 0
    if args.from_json:  # re-render a saved run (e.g. as --markdown) without measuring again
        data = json.loads(Path(args.from_json).read_text())
        report(data["machine"], data["meta"], [Row.from_json(d) for d in data["rows"]],
               data["args"].get("quick"), args.markdown)
        return 0
    set_interpreters(args)
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        # with it, every import of a process whose bytecode cache was never written compiles
        # again: start-up (the one-shot row) would measure the compiler
        log("note: PYTHONDONTWRITEBYTECODE unset for the measured processes")
    suite = Suite(args)
    m = machine_description(args)
    if m["openblas_coretype"]:
        log("warning: OPENBLAS_CORETYPE is set, which slows a current NumPy")
    origin = m["interpreters"]["gradcli_origin"]
    if origin is None or not Path(origin).resolve().is_relative_to(ROOT):
        # the workers and `python -c` import this checkout's gradcli (sys.path, cwd), but the
        # console script (`gradcli eval`, `gradcli run`) imports the interpreter's own
        m["console_warning"] = (f"the console script's gradcli is {origin}, not this checkout's "
                                f"({ROOT}): pip install -e {ROOT} in {Path(PY).parent.parent}")
        log("warning: " + m["console_warning"])
    suite.run()
    report(m, suite.meta, suite.rows, args.quick, args.markdown)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"machine": m, "meta": suite.meta, "args": vars(args),
             "rows": [r.to_json() for r in suite.rows],
             "ratios": [{"workload": r.workload, "impl": r.impl, "ratio": ratio,
                         "verdict": verdict} for r, ratio, verdict in attach_ratios(suite.rows)]},
            indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
