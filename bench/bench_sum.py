"""Float sums in PyTorch's order (gradcli/ops/summation.py) against NumPy's own sum of the same
array over the same axes: the time of each and their ratio, side by side.

    python bench/bench_sum.py            # float32 and float64, 1-d and 2-d, all and one dim
"""

import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gradcli.ops.summation import torch_sum  # noqa: E402

CASES = [((100,), None), ((2000,), None), ((30000,), None), ((100000,), None),
         ((1000000,), None), ((200, 100), None), ((200, 100), (0,)), ((200, 100), (1,)),
         ((1000, 1000), None), ((1000, 1000), (0,)), ((1000, 1000), (1,))]


def best(fn, budget=0.2):
    number = max(1, int(budget / max(timeit.timeit(fn, number=1), 1e-7) / 5))
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def main():
    rng = np.random.default_rng(0)
    print(f"{'dtype':8} {'shape':>12} {'dims':>6} {'numpy':>10} {'gradcli':>10} {'ratio':>6}")
    for dtype in (np.float32, np.float64):
        for shape, ax in CASES:
            a = rng.standard_normal(shape).astype(dtype)
            t_np = best(lambda: np.sum(a, axis=ax))
            t_emu = best(lambda: torch_sum(a, ax))
            dims = "all" if ax is None else ",".join(map(str, ax))
            print(f"{np.dtype(dtype).name:8} {'x'.join(map(str, shape)):>12} {dims:>6} "
                  f"{t_np * 1e6:8.1f}us {t_emu * 1e6:8.1f}us {t_emu / t_np:6.1f}")


if __name__ == "__main__":
    main()
