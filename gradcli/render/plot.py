"""A terminal plot of an output and its derivative (no plotting library needed)."""

import math


# on a terminal: the output's line and legend mark in one colour, the derivative's in another
COLOURS = ((r"\*+", "bold cyan"), (r"\++(?![\d.])", "magenta"), (r"[-|]{2,}|\|", "dim"))


def render_plot(curve, width=72, height=20):
    """Two series on one character grid: `*` the output, `+` its derivative, each drawn as a
    line through its samples (a value that is not finite breaks it), axes as `|`/`-`, the
    y axis labelled at the top, at 0 and at the bottom."""
    values = [v for v in curve.ys + curve.dys if math.isfinite(v)]
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

    zero_row = row(0) if lo <= 0 <= hi else None
    if zero_row is not None:
        grid[zero_row] = ["-"] * width
    if x0 <= 0 <= x1:
        for r in range(height):
            grid[r][col(0)] = "|"
    for series, char in ((curve.dys, "+"), (curve.ys, "*")):  # the output drawn over
        _draw(grid, [(row(v), col(x)) if math.isfinite(v) else None
                     for x, v in zip(curve.xs, series)], char)
    labels = {0: f"{hi:.4g}", height - 1: f"{lo:.4g}"}
    if zero_row is not None:
        labels.setdefault(zero_row, "0")
    label_w = max(len(text) for text in labels.values())
    lines = [f"{labels.get(r, ''):>{label_w}} {''.join(cells).rstrip()}"
             for r, cells in enumerate(grid)]
    lines.append(" " * (label_w + 1) + f"{x0:<.4g}".ljust(width - len(f"{x1:.4g}")) + f"{x1:.4g}")
    lines.append(f"* {curve.output}   + d{curve.output}/d{curve.input}   "
                 f"({curve.input} from {x0:g} to {x1:g}, {len(curve.xs)} points)")
    return "\n".join(lines)


def _draw(grid, cells, char):
    """Mark each (row, column) of cells and the straight segment from the one before (None, for
    a value that is not finite, leaves a gap)."""
    previous = None
    for cell in cells:
        if cell is not None:
            for r, c in _segment(previous or cell, cell):
                grid[r][c] = char
        previous = cell


def _segment(start, end):
    """The grid cells of the straight line from start to end, both included (Bresenham)."""
    (r0, c0), (r1, c1) = start, end
    dr, dc = abs(r1 - r0), abs(c1 - c0)
    step_r, step_c = (1 if r1 > r0 else -1), (1 if c1 > c0 else -1)
    error = dc - dr
    cells = []
    while True:
        cells.append((r0, c0))
        if (r0, c0) == (r1, c1):
            return cells
        twice = 2 * error
        if twice > -dr:
            error -= dr
            c0 += step_c
        if twice < dc:
            error += dc
            r0 += step_r
