"""A terminal plot of an output and its derivative: two panels, each with its own axes, at braille
resolution (plotille), or as a character grid in pure ASCII (`plot --ascii`, and where plotille
is not installed); and the same two panels as a PNG or SVG file through matplotlib, drawn in the
frontend from the sampled curve (never in the evaluator, which may write no file)."""

import math
import re
import sys
from collections import namedtuple

# What a plot draws: any object with these attributes (gradcli.analysis.plot.Curve, sampled in
# the evaluator, or this tuple, read back from its JSON in the frontend)
PlotData = namedtuple("PlotData", ["input", "output", "xs", "ys", "dys"])


# on a terminal: the output's line and legend mark in one colour, the derivative's in another
COLOURS = ((r"\*+", "bold cyan"), (r"\++(?![\d.])", "magenta"), (r"[-|]{2,}|\|", "dim"))


def render_plot(curve, width=72, height=20, color=False, ascii_only=False):
    """The output's panel above its derivative's, at braille resolution (plotille), each with
    its own y axis (so that 1/x does not flatten its derivative); color: ANSI colours (the
    output cyan, the derivative magenta).  ascii_only, or no plotille: render_ascii."""
    if not ascii_only:
        try:
            import plotille  # noqa: F401
        except ImportError:
            ascii_only = True
    if ascii_only:
        return render_ascii(curve, width, height)
    rows = max(3, (height - 7) // 2)  # (each panel adds a title row and two x-axis rows)
    columns = max(10, width - 13)     # (the y labels take 12 columns and a space)
    x0, x1 = curve.xs[0], curve.xs[-1]
    top = _panel(curve.xs, curve.ys, curve.output, columns, rows, (x0, x1), "cyan", color,
                 curve.input)
    derivative = f"d{curve.output}/d{curve.input}" if _plain(curve.output) else \
        f"d({curve.output})/d{curve.input}"
    bottom = _panel(curve.xs, curve.dys, derivative, columns, rows, (x0, x1), "magenta", color,
                    curve.input)
    caption = (f"{curve.output} (top) and {derivative} (bottom), {curve.input} from {x0:g} to "
               f"{x1:g}, {len(curve.xs)} points")
    return "\n".join([top, "", bottom, caption])


def _plain(name):
    return name.replace("_", "a").isalnum()


def y_limits(values):
    """The y range of a panel: its finite values' range; where a few values dwarf the rest (a
    pole, as 1/x has at 0) the 2nd to 98th percentile, so that the curve does not flatten."""
    finite = sorted(v for v in values if math.isfinite(v))
    if not finite:
        return None
    lo, hi = finite[0], finite[-1]
    if len(finite) >= 10:
        p_lo = finite[int(0.02 * (len(finite) - 1))]
        p_hi = finite[math.ceil(0.98 * (len(finite) - 1))]
        q_lo = finite[int(0.1 * (len(finite) - 1))]
        q_hi = finite[math.ceil(0.9 * (len(finite) - 1))]
        # (hi - lo > 10 * max(q_hi - q_lo, 1e-300), in halves: hi - lo may overflow)
        if hi / 20 - lo / 20 > max(q_hi / 2 - q_lo / 2, 5e-301):
            lo, hi = p_lo, p_hi
    return _widened(lo, hi)


def _widened(lo, hi):
    """lo to hi (_drawable) with a 5 % margin."""
    lo, hi = _drawable(lo, hi)
    pad = (hi - lo) * 0.05
    return lo - pad, hi + pad


def _drawable(lo, hi):
    """lo to hi, finite and not empty even where the values span more than the largest float
    (1.7e308 and -1.7e308: hi - lo overflows) or a unit is lost in them (1e17 + 1).  A
    panel's scale takes hi - lo: lo and hi are kept within a quarter of the largest float
    each side, so that it stays finite; the values beyond are drawn at the panel's edge."""
    bound = sys.float_info.max / 4
    lo, hi = max(min(lo, bound), -bound), max(min(hi, bound), -bound)
    if hi == lo:
        step = max(1.0, abs(lo) * 1e-6)
        lo, hi = lo - step, hi + step
    return lo, hi


def _panel(xs, ys, label, columns, rows, x_range, colour, color, x_name=""):
    """One plotille panel: the series as lines through its finite samples (a value that is not
    finite breaks the line), the axes through 0 where 0 is in range."""
    import plotille
    fig = plotille.Figure()
    fig.width, fig.height = columns, rows
    fig.with_colors = False  # (coloured below: plotille colours only when stdout is a tty)
    fig.origin = True
    fig.x_label, fig.y_label = x_name, label
    fig.set_x_limits(min_=x_range[0], max_=x_range[1])
    limits = y_limits(ys)
    if limits is None:
        return f"{label}: no finite values over the range"
    lo, hi = limits
    fig.set_y_limits(min_=lo, max_=hi)
    fig.y_ticks_fkt = lambda low, high: f"{low:.4g}"
    fig.x_ticks_fkt = lambda low, high: f"{low:.4g}"
    run = []
    for x, y in zip(xs, ys):
        if math.isfinite(y):
            run.append((x, min(max(y, lo), hi)))  # (clipped: a pole leaves the panel's edge)
            continue
        _plot_run(fig, run, colour)
        run = []
    _plot_run(fig, run, colour)
    text = fig.show(legend=False)
    if color:  # the series' dots in the panel's colour (ANSI: rich reads it with from_ansi)
        code = ANSI_COLOURS[colour]
        text = re.sub("[\u2801-\u28ff]+", lambda m: f"\x1b[{code}m{m.group()}\x1b[0m", text)
    return text


ANSI_COLOURS = {"cyan": "36", "magenta": "35"}


def _plot_run(fig, run, colour):
    if len(run) == 1:
        fig.scatter([run[0][0]], [run[0][1]])
    elif run:
        fig.plot([x for x, _ in run], [y for _, y in run])


def render_ascii(curve, width=72, height=20):
    """Two series on one character grid: `*` the output, `+` its derivative, each drawn as a
    line through its samples (a value that is not finite breaks it), axes as `|`/`-`, the
    y axis labelled at the top, at 0 and at the bottom."""
    values = [v for v in curve.ys + curve.dys if math.isfinite(v)]
    if not values:
        return f"{curve.output}: no finite values over the range"
    lo, hi = _drawable(min(values), max(values))
    x0, x1 = curve.xs[0], curve.xs[-1]
    grid = [[" "] * width for _ in range(height)]

    def col(x):
        return min(width - 1, max(0, round((x - x0) / (x1 - x0) * (width - 1))))

    def row(v):  # (v clipped to the range: _drawable may have narrowed it)
        return min(height - 1, max(0, round((hi - min(max(v, lo), hi)) / (hi - lo) *
                                            (height - 1))))

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


# ---------------------------------------------------------------------- image files (frontend)

IMAGE_FORMATS = ("png", "svg")
IMAGE_SIZE = (8, 6)   # inches; at 100 dpi a PNG is 800 x 600 pixels, an SVG 576 x 432 pt
IMAGE_DPI = 100


def curve_from_json(document):
    """The PlotData of an evaluator's `plot --json` document, checked (the frontend trusts no
    data from the evaluator): x, y, dy lists of one length of numbers or "inf"/"-inf"/"nan"
    (x finite)."""
    if not isinstance(document, dict):
        raise ValueError("not a plot document")

    def number(v):
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise ValueError("not a number")
        if isinstance(v, str):
            if v not in ("inf", "-inf", "nan"):
                raise ValueError("not a number")
            return float(v)
        return float(v)

    series = []
    for key in ("x", "y", "dy"):
        values = document.get(key)
        if not isinstance(values, list) or not 1 <= len(values) <= 100_000:
            raise ValueError(f"bad {key}")
        series.append([number(v) for v in values])
    if not all(math.isfinite(x) for x in series[0]):  # (axis limits: matplotlib refuses them)
        raise ValueError("x not finite")
    if len({len(v) for v in series}) != 1:
        raise ValueError("series of different lengths")
    names = [str(document.get(k, ""))[:200] for k in ("input", "output")]
    return PlotData(names[0], names[1], *series)


def write_image(curve, path, fmt):
    """The two panels as a PNG or SVG file (matplotlib, the `plot` extra); raises ImportError
    when matplotlib is not installed.  The labels are a program's text, shown as it is: no
    mathtext (`$`), and no LaTeX even where the user's matplotlibrc sets text.usetex (LaTeX
    would run in the frontend on the program's text: `\\input` reads the user's files)."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    with matplotlib.rc_context({"text.usetex": False}):
        fig = Figure(figsize=IMAGE_SIZE, dpi=IMAGE_DPI)
        top, bottom = fig.subplots(2, 1, sharex=True)
        derivative = f"d{curve.output}/d{curve.input}" if _plain(curve.output) else \
            f"d({curve.output})/d{curve.input}"
        for ax, ys, label, colour in ((top, curve.ys, curve.output, "tab:blue"),
                                      (bottom, curve.dys, derivative, "tab:purple")):
            limits = y_limits(ys)
            shown = [y if math.isfinite(y) else float("nan") for y in ys]
            ax.plot(curve.xs, shown, color=colour, linewidth=1.5)
            if limits is not None:
                ax.set_ylim(*limits)
            ax.set_ylabel(label, parse_math=False, usetex=False)
            ax.axhline(0, color="0.6", linewidth=0.8)
            ax.grid(True, alpha=0.3)
        bottom.set_xlabel(curve.input, parse_math=False, usetex=False)
        fig.tight_layout()
        fig.savefig(path, format=fmt, dpi=IMAGE_DPI)
