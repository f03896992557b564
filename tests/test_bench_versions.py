"""bench/bench_versions.py's table: one row per goal of bench/bench_suite.py, one column per
version, from the runs' saved JSON (no measuring here)."""

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _load(name):
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(BENCH))


def _run(python, eval_ms, chain_us, flat, wrong=None):
    suite = _load("bench_suite")
    rows = []
    r = suite.Row("one-shot CLI gradient (whole process)", "gradcli eval", "ms", 1e3,
                  ref="numpy import", goal=1.5, goal_impl="gradcli eval", group="oneshot")
    r.samples, r.cpu = [eval_ms / 1e3] * 3, [eval_ms / 1e3] * 3
    rows.append(r)
    r = suite.Row("one-shot CLI gradient (whole process)", "numpy import", "ms", 1e3,
                  ref="numpy import", goal=1.5, goal_impl="gradcli eval", group="oneshot")
    r.samples, r.cpu = [0.080] * 3, [0.080] * 3
    rows.append(r)
    for impl, us in (("gradcli", chain_us), ("torch", 6.0)):
        r = suite.Row("scalar chain 10,000 ops, fwd+bwd per op", impl, "us/op", 1e6 / 1e4,
                      ref="torch", goal=0.8, group="chain10k")
        r.samples = [us * 1e-2] * 3  # seconds per run of 10k ops
        r.wrong = wrong if impl == "gradcli" else None
        rows.append(r)
    r = suite.Row("per-op cost 1M vs 10k (flat?)", "gradcli", "", goal=1.25, group="flat")
    r.derived_ratio = flat
    r.notes = [f"CPU-time ratio {flat - 0.01:.2f}x", "4.29 -> 5.65 us/op, same rounds"]
    rows.append(r)
    versions = {"python": python, "numpy": "2.4.6", "torch": "2.13.0+cpu",
                "autograd": "1.9.1", "micrograd": "0.1.0", "torch_python": "3.11.7",
                "torch_numpy": "2.4.6"}
    return {"machine": {"date": "2026-11-27", "versions": versions},
            "meta": {"seconds": 500, "load_start": [0.5, 0.4, 0.3], "load_end": [1.0, 0.9, 0.8],
                     "uptime_before": " 01:00:00 up 3:00,  0 user,  load average: 0.50, 0.40, "
                                      "0.30"},
            "args": {"quick": False, "only": ""},
            "rows": [r.to_json() for r in rows]}


def test_one_row_per_goal_one_column_per_version():
    bv = _load("bench_versions")
    table = bv.render([("3.10", _run("3.10.13", 110, 4.0, 1.3)),
                       ("3.13", _run("3.13.0", 130, 5.0, 1.1))])
    lines = table.splitlines()
    assert lines[0] == "| goal | 3.10 | 3.13 |"
    assert lines[2] == ("| one-shot CLI gradient (whole process): gradcli eval <= 1.5x numpy "
                        "import | 1.38x PASS (CPU 1.38x) | 1.62x FAIL (CPU 1.62x) |")
    assert lines[3] == ("| scalar chain 10,000 ops, fwd+bwd per op: gradcli <= 0.8x torch | "
                        "0.67x PASS | 0.83x FAIL |")
    assert lines[4] == ("| per-op cost 1M vs 10k (flat?): gradcli <= 1.25x | "
                        "1.30x FAIL (CPU 1.29x) | 1.10x PASS (CPU 1.09x) |")
    assert lines[5] == "| **goals** | 2 PASS, 1 FAIL | 1 PASS, 2 FAIL |"
    assert "- 3.13: Python 3.13.0, NumPy 2.4.6; PyTorch 2.13.0+cpu" in table
    assert "on Python 3.11.7 (NumPy 2.4.6)" in table
    assert "load average 0.50, 0.40, 0.30 at start, 1.00, 0.90, 0.80 at end" in table


def test_a_wrong_result_fails_and_says_so_and_missing_goals_say_not_run():
    bv = _load("bench_versions")
    quick = _run("3.12.1", 100, 4.0, 1.0, wrong="WRONG result vs numpy (max abs err 1)")
    quick["rows"] = [d for d in quick["rows"] if not d["workload"].startswith("per-op")]
    table = bv.render([("3.11", _run("3.11.7", 100, 4.0, 1.0)), ("3.12", quick)], cpu=False)
    lines = table.splitlines()
    assert lines[3].endswith("| 0.67x PASS | 0.67x FAIL (WRONG) |")
    assert lines[4].endswith("| 1.00x PASS | not run |")
