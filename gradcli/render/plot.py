"""A terminal plot of an output and its derivative (no plotting library needed)."""

import math


def render_plot(curve, width=72, height=20):
    """Two series on one character grid: `*` the output, `+` its derivative, axes as `|`/`-`."""
    points = [(x, y) for x, y in zip(curve.xs, curve.ys) if math.isfinite(y)]
    dpoints = [(x, d) for x, d in zip(curve.xs, curve.dys) if math.isfinite(d)]
    values = [v for _, v in points + dpoints]
    if not values:
        return f"{curve.output}: no finite values over the range"
    lo, hi = min(values), max(values)
    if hi == lo:
        lo, hi = lo - 1, hi + 1
    x0, x1 = curve.xs[0], curve.xs[-1]
    grid = [[" "] * width for _ in range(height)]

    def col(x):
        return min(width - 1, max(0, round((x - x0) / (x1 - x0) * (width - 1))))

    def row(v):
        return min(height - 1, max(0, round((hi - v) / (hi - lo) * (height - 1))))

    if lo <= 0 <= hi:
        for c in range(width):
            grid[row(0)][c] = "-"
    if x0 <= 0 <= x1:
        for r in range(height):
            grid[r][col(0)] = "|"
    for x, d in dpoints:
        grid[row(d)][col(x)] = "+"
    for x, y in points:
        grid[row(y)][col(x)] = "*"
    label_w = max(len(f"{hi:.4g}"), len(f"{lo:.4g}"))
    lines = []
    for r, cells in enumerate(grid):
        label = f"{hi:.4g}" if r == 0 else f"{lo:.4g}" if r == height - 1 else ""
        lines.append(f"{label:>{label_w}} {''.join(cells).rstrip()}")
    lines.append(" " * (label_w + 1) + f"{x0:<.4g}".ljust(width - len(f"{x1:.4g}")) + f"{x1:.4g}")
    lines.append(f"* {curve.output}   + d{curve.output}/d{curve.input}   "
                 f"({curve.input} from {x0:g} to {x1:g}, {len(curve.xs)} points)")
    return "\n".join(lines)
