"""The benchmark suite on every supported CPython, side by side with PyTorch (issue 18): one
command that builds what it needs, runs bench/bench_suite.py once per version and prints one
Markdown table of the goals, one column per version.

    python3 bench/bench_versions.py                       # 3.10-3.13, the full suite (~45 min)
    python3 bench/bench_versions.py --versions 3.13 --quick --only chain10k
    python3 bench/bench_versions.py --render              # the table of the last run again

PyTorch's wheel lies on this machine for one CPython (3.11), so each run interleaves two
interpreters, each implementation in processes of its own (bench/bench_suite.py's --python and
--torch-python): gradcli and hand-written NumPy on the version under test, PyTorch, HIPS autograd
and micrograd on 3.11.  Every goal whose reference is NumPy (the MLP, the elementwise chain, peak
memory), `python -c "import numpy"` (the one-shot start-up) or gradcli itself (the flatness of
the chains, the `gradcli run` loop) compares like with like on the version under test; the goals
against PyTorch compare gradcli on that version with PyTorch on 3.11, measured in the same rounds.

What it builds, once, under bench/.venvs/ (ignored by git; --venvs elsewhere):
  py3.X/        `python3.X -m venv`, `pip install -e <this checkout>` and NumPy (pinned, NUMPY):
                the editable install, so that a rerun measures the checkout's current code;
                it is reinstalled when pyproject.toml changes
  py3.X/cache/  its XDG_CACHE_HOME (gradcli's parser tables), warmed before the suite runs:
                one per version and checkout, as a shared one thrashes
  torch-py3.11/ PyTorch (TORCH), the same NumPy, autograd and micrograd (or --torch-python)

The interpreters come from pyenv (`pyenv root`/versions/3.X.*, the newest patch release) or
PATH (--interpreter 3.X=PATH overrides).  Each version's suite runs under that version's venv
with OPENBLAS_NUM_THREADS=1 (the suite's --threads 1) and without PYTHONDONTWRITEBYTECODE, its
output in --out (default bench/.runs/versions/): py3.X.json (the suite's --json, with the load
average before and after), py3.X.txt (its table), table.md (the table below).  Arguments after
`--` go to every bench/bench_suite.py (e.g. `-- --rounds 3`).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

VERSIONS = ("3.10", "3.11", "3.12", "3.13")
TORCH_VERSION = "3.11"
TORCH = "torch==2.13.0"
NUMPY = "numpy==2.4.6"                  # README's runs; the same on every version that has it
NUMPY_PIN = {"3.10": "numpy==2.2.6"}    # NumPy 2.3 and later need 3.11
COMPARISON = ("autograd", "micrograd")
DEFAULT_IMPLS = "gradcli,torch,autograd,micrograd,numpy"  # bench_suite.py's --impls


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Interpreters and venvs

def find_interpreter(version, overrides):
    if version in overrides:
        return overrides[version]
    roots = []
    try:
        roots.append(subprocess.run(["pyenv", "root"], capture_output=True, text=True,
                                    check=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        pass
    roots.append(str(Path.home() / ".pyenv"))
    for root in roots:
        found = []
        for d in Path(root, "versions").glob(version + ".*"):
            m = re.fullmatch(re.escape(version) + r"\.(\d+)", d.name)
            exe = d / "bin" / f"python{version}"
            if m and exe.exists():
                found.append((int(m.group(1)), str(exe)))
        if found:
            return max(found)[1]
    exe = shutil.which(f"python{version}")
    if exe is None:
        raise SystemExit(f"no python{version}: give --interpreter {version}=PATH")
    return exe


def clean_env(**extra):
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the venvs' bytecode caches get written
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    env.update(extra)
    return env


def run(cmd, **kw):
    log("$ " + " ".join(str(c) for c in cmd))
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def ensure_venv(venv, interpreter, packages, editable=None):
    """venv with packages (and `pip install -e editable`); (re)installed when what it should
    hold changed (the packages, the interpreter, the checkout's pyproject.toml)."""
    want = {"interpreter": interpreter, "packages": list(packages),
            "editable": str(editable) if editable else None,
            "pyproject": (Path(editable) / "pyproject.toml").read_text() if editable else None}
    stamp = venv / ".bench-venv.json"
    python = venv / "bin" / "python"
    if python.exists() and stamp.exists() and json.loads(stamp.read_text()) == want:
        return python
    if not python.exists():
        run([interpreter, "-m", "venv", venv], env=clean_env())
    run([python, "-m", "pip", "install", "-q", *packages,
         *(["-e", editable] if editable else [])], env=clean_env())
    stamp.write_text(json.dumps(want, indent=1))
    return python


def warm(python, env):
    """Write the bytecode caches and gradcli's parser tables before anything is timed."""
    gradcli = python.parent / "gradcli"
    for cmd in ([python, "-c", "import numpy"], [python, "-c", "import gradcli"],
                [gradcli, "eval", "z=(2*x)**3", "--at", "x=3"],
                [gradcli, "eval", "z=(2*x)**3", "--at", "x=3"]):
        subprocess.run([str(c) for c in cmd], env=env, cwd=ROOT, check=True,
                       capture_output=True)


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


# ---------------------------------------------------------------------------------------------
# The table

def _suite():
    sys.path.insert(0, str(BENCH))
    import bench_suite
    return bench_suite


def goal_results(data):
    """One saved run (bench_suite.py --json) -> [(key, goal label, ratio, cpu ratio, verdict,
    wrong)] for its rows that carry a goal, in the suite's order."""
    suite = _suite()
    rows = [suite.Row.from_json(d) for d in data["rows"]]
    out = []
    for r, ratio, verdict in suite.attach_ratios(rows):
        if not verdict:
            continue
        if r.derived_ratio is not None:
            label = f"{r.workload}: {r.impl} <= {r.goal:g}x"
        else:
            label = f"{r.workload}: {r.impl} <= {r.goal:g}x {r.ref}"
        cpu = None
        ref = next((x for x in rows if x.workload == r.workload and x.impl == r.ref), None)
        if r.cpu_median() and ref is not None and ref.cpu_median():
            cpu = r.cpu_median() / ref.cpu_median()
        else:  # derived rows (flatness) keep theirs in the note
            for note in r.notes:
                m = re.match(r"CPU-time ratio ([0-9.e+-]+)x", note)
                if m:
                    cpu = float(m.group(1))
        out.append(((r.workload, r.impl), label, ratio, cpu, verdict, r.wrong))
    return out


def _fmt(x):
    return "-" if x is None else (f"{x:.2f}x" if x >= 0.1 else f"{x:.2g}x")


def render(runs, cpu=True):
    """runs: [(column title, saved run)] -> the Markdown table: one row per goal, one column per
    run (the ratio of medians, PASS/FAIL and, with cpu, the ratio of CPU times), then the
    totals and a line per run on what ran where."""
    keys, labels, cells = [], {}, []
    for _, data in runs:
        col = {}
        for key, label, ratio, cpu_ratio, verdict, wrong in goal_results(data):
            if key not in labels:
                keys.append(key)
                labels[key] = label
            text = f"{_fmt(ratio)} {verdict}"
            if wrong:
                text += " (WRONG)"
            if cpu and cpu_ratio is not None:
                text += f" (CPU {_fmt(cpu_ratio)})"
            col[key] = (text, verdict)
        cells.append(col)
    head = ["goal"] + [title for title, _ in runs]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key in keys:
        line = [labels[key].replace("|", "\\|")]
        line += [col[key][0] if key in col else "not run" for col in cells]
        lines.append("| " + " | ".join(line) + " |")
    totals = []
    for col in cells:
        v = [verdict for _, verdict in col.values()]
        totals.append(f"{v.count('PASS')} PASS, {v.count('FAIL')} FAIL")
    lines.append("| **goals** | " + " | ".join(totals) + " |")
    notes = []
    for title, data in runs:
        m, meta = data["machine"], data["meta"]
        v = m["versions"]
        torch_py = v.get("torch_python", v["python"])
        load = meta.get("uptime_before") or meta.get("load_start")
        load_end = meta.get("uptime_after") or meta.get("load_end")
        notes.append(
            f"- {title}: Python {v['python']}, NumPy {v['numpy']}; PyTorch {v['torch']}, "
            f"autograd {v['autograd']}, micrograd {v['micrograd']} on Python {torch_py}"
            + (f" (NumPy {v['torch_numpy']})" if "torch_numpy" in v else "")
            + f"; {m['date']}, {meta.get('seconds', '?')} s"
            + ("; --quick" if data["args"].get("quick") else "")
            + (f"; --only {data['args']['only']}" if data["args"].get("only") else "")
            + (f"; --impls {data['args']['impls']}"
               if data["args"].get("impls", DEFAULT_IMPLS) != DEFAULT_IMPLS else "")
            + f"; load average {_load(load)} at start, {_load(load_end)} at end")
    return "\n".join(lines) + "\n\n" + "\n".join(notes)


def _load(x):
    if isinstance(x, str):  # uptime's line: its three load averages
        m = re.search(r"load average: (.*)$", x)
        return m.group(1) if m else x
    return ", ".join(f"{v:.2f}" for v in x) if x else "?"


# ---------------------------------------------------------------------------------------------

def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--versions", default=",".join(VERSIONS),
                    help="comma-separated CPython versions (default: %(default)s)")
    ap.add_argument("--quick", action="store_true", help="bench_suite.py --quick")
    ap.add_argument("--only", default="", help="bench_suite.py --only")
    ap.add_argument("--out", default=str(BENCH / ".runs" / "versions"),
                    help="where the runs and the table go (default: %(default)s)")
    ap.add_argument("--venvs", default=str(BENCH / ".venvs"),
                    help="where the venvs are built (default: %(default)s)")
    ap.add_argument("--torch-python", metavar="PATH",
                    help=f"an interpreter with {TORCH}, autograd and micrograd (default: "
                         f"built on {TORCH_VERSION})")
    ap.add_argument("--interpreter", action="append", default=[], metavar="3.X=PATH",
                    help="the base interpreter of a version (default: pyenv's, or PATH's)")
    ap.add_argument("--render", action="store_true",
                    help="print the table of the runs in --out again, measuring nothing")
    ap.add_argument("--setup", action="store_true",
                    help="build (or update) the venvs and warm their caches, measuring nothing")
    ap.add_argument("--no-cpu", action="store_true", help="leave the CPU-time ratios out")
    ap.add_argument("suite_args", nargs="*", help="after --: more bench_suite.py arguments")
    return ap.parse_args(argv)


def needs_numpy(args):
    """The table reuses bench_suite.py's ratios, which import NumPy: without it here, run again
    under the PyTorch venv's interpreter (or end with a hint)."""
    import importlib.util
    if importlib.util.find_spec("numpy") is not None:
        return
    python = Path(args.torch_python or Path(args.venvs) / f"torch-py{TORCH_VERSION}/bin/python")
    if not python.exists():
        raise SystemExit("rendering needs NumPy: run this with an interpreter that has it")
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def main(argv=None):
    args = parse_args(argv)
    versions = [v.strip() for v in args.versions.split(",") if v.strip()]
    out = Path(args.out)
    if args.render:
        needs_numpy(args)
        runs = [(v, json.loads((out / f"py{v}.json").read_text())) for v in versions
                if (out / f"py{v}.json").exists()]
        print(render(runs, cpu=not args.no_cpu))
        return 0
    overrides = dict(item.split("=", 1) for item in args.interpreter)
    venvs = Path(args.venvs)
    venvs.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    torch_py = args.torch_python or ensure_venv(
        venvs / f"torch-py{TORCH_VERSION}", find_interpreter(TORCH_VERSION, overrides),
        [TORCH, NUMPY, *COMPARISON])
    pythons = {v: ensure_venv(venvs / f"py{v}", find_interpreter(v, overrides),
                              [NUMPY_PIN.get(v, NUMPY)], editable=ROOT) for v in versions}
    subprocess.run([str(torch_py), "-c", "import torch, autograd, micrograd"], check=True,
                   env=clean_env())
    log(f"venvs ready ({time.time() - t0:.0f} s)")
    if args.setup:
        for v in versions:
            warm(pythons[v], clean_env(XDG_CACHE_HOME=str(pythons[v].parent.parent / "cache")))
        return 0
    if not args.setup:
        needs_numpy(args)  # now rather than after the runs (a re-run skips the built venvs)
    runs = []
    for v in versions:
        python = pythons[v]
        env = clean_env(XDG_CACHE_HOME=str(python.parent.parent / "cache"),
                        OPENBLAS_NUM_THREADS="1")
        warm(python, env)
        cmd = [str(python), str(BENCH / "bench_suite.py"), "--torch-python", str(torch_py),
               "--json", str(out / f"py{v}.json")]
        cmd += (["--quick"] if args.quick else []) + (["--only", args.only] if args.only else [])
        cmd += args.suite_args
        before = uptime()
        log(f"== Python {v}: {before}")
        log("$ " + " ".join(cmd))
        with open(out / f"py{v}.txt", "w") as txt:
            p = subprocess.run(cmd, env=env, cwd=ROOT, stdout=txt)
        after = uptime()
        log(f"== Python {v} done (exit {p.returncode}): {after}")
        if p.returncode != 0:
            raise SystemExit(f"bench_suite.py failed on {v}: see {out / f'py{v}.txt'}")
        data = json.loads((out / f"py{v}.json").read_text())
        data["meta"].update(uptime_before=before, uptime_after=after)
        (out / f"py{v}.json").write_text(json.dumps(data, indent=1, default=str))
        runs.append((v, data))
    table = render(runs, cpu=not args.no_cpu)
    (out / "table.md").write_text(table + "\n")
    print(table)
    log(f"all versions: {time.time() - t0:.0f} s; runs and table.md in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
