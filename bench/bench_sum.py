"""Float sums in PyTorch's order (gradcli/ops/summation.py) against NumPy's own sum of the same
array over the same axes: the time of each and their ratio, side by side.

    python bench/bench_sum.py                    # float32 and float64, 1-d to 3-d, all and some dims
    python bench/bench_sum.py --before ../main   # and another checkout's summation.py beside it
    python bench/bench_sum.py --threads 1        # the split of 1 thread (default: the CPUs')

Each time is the best CPU time of the timing thread over several rounds, the functions timed in
turn within a round, so that a shared machine's load falls on all of them alike; run it twice
and trust what both runs say.
"""

import argparse
import importlib.util
import sys
import time
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gradcli.ops import summation  # noqa: E402

CASES = [((1,), None), ((7,), None), ((64,), None), ((100,), None), ((2000,), None),
         ((30000,), None), ((100000,), None), ((1000000,), None),
         ((200, 100), None), ((200, 100), (0,)), ((200, 100), (1,)),
         ((1000, 1000), None), ((1000, 1000), (0,)), ((1000, 1000), (1,)),
         ((64, 3), (0,)), ((3, 64), (0,)),          # a few rows: NumPy's order is PyTorch's
         ((32, 256), (0,)), ((8, 16, 32), (0, 2))]  # sum_to_size of broadcast gradients
ROUNDS = 15


def load(checkout):
    """The summation module of another checkout, loaded on its own (it imports only NumPy)."""
    path = Path(checkout) / "gradcli" / "ops" / "summation.py"
    spec = importlib.util.spec_from_file_location("summation_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def best(fns, rounds=ROUNDS, budget=0.01):
    """The best CPU time (of this thread: what other processes take is not counted) of each
    function, over rounds in which each is timed in turn."""
    timers = [timeit.Timer(fn, timer=time.thread_time) for fn in fns]
    numbers = [max(1, int(budget / max(t.timeit(number=1), 1e-7))) for t in timers]
    times = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, (t, number) in enumerate(zip(timers, numbers)):
            times[i] = min(times[i], t.timeit(number=number) / number)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another checkout, timed beside this one")
    parser.add_argument("--threads", type=int, default=summation.get_num_threads())
    args = parser.parse_args(argv)
    modules = [summation] + ([load(args.before)] if args.before else [])
    for module in modules:
        module.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    head = f"{'dtype':8} {'shape':>12} {'dims':>5} {'numpy':>9} {'gradcli':>9} {'ratio':>6}"
    print(f"threads {args.threads}; best CPU time of {ROUNDS} rounds")
    print(head + (f" {'before':>9} {'ratio':>6} {'speedup':>7}" if args.before else ""))
    for dtype in (np.float32, np.float64):
        for shape, ax in CASES:
            a = rng.standard_normal(shape).astype(dtype)
            fns = [lambda: np.sum(a, axis=ax)] + [lambda m=m: m.torch_sum(a, ax) for m in modules]
            for m in modules[1:]:
                assert np.array_equal(m.torch_sum(a, ax), summation.torch_sum(a, ax))
            times = best(fns)
            dims = "all" if ax is None else ",".join(map(str, ax))
            line = (f"{np.dtype(dtype).name:8} {'x'.join(map(str, shape)):>12} {dims:>5} "
                    f"{times[0] * 1e6:7.1f}us {times[1] * 1e6:7.1f}us {times[1] / times[0]:6.2f}")
            if args.before:
                line += (f" {times[2] * 1e6:7.1f}us {times[2] / times[0]:6.2f}"
                         f" {times[2] / times[1]:7.2f}")
            print(line, flush=True)


if __name__ == "__main__":
    main()
