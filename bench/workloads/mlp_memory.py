"""Child process of bench/bench_suite.py's peak-memory workload: one implementation's 3-layer
1024x1024 tanh MLP (batch 64, float64), forward and backward ITERS times, in a fresh process.

    python bench/workloads/mlp_memory.py IMPL [ITERS]

The parent reads the whole process's peak RSS from os.wait4; this prints one JSON line with the
peak RSS after the imports and the setup (before the first forward), for the note column.
"""
import json
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workloads import inprocess  # noqa: E402


def main():
    impl = sys.argv[1]
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    run = inprocess.mlp(impl)
    setup_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(iters):
        grad, _ = run()
    print(json.dumps({"impl": impl, "setup_maxrss_kb": setup_kb,
                      "check": float(abs(grad).sum())}))


if __name__ == "__main__":
    main()
