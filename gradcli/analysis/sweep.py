"""Sweeps (SPEC §3): `--at x=a:b:n` evaluates a program at n points from a to b (ends
included); several sweeps form a grid, `--zip` pairs them.  One evaluator runs every point."""

import itertools
import re

import numpy as np

from .evaluate import Binding, UsageError

MAX_POINTS = 1_000_000
_NUMBER = r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*"
SWEEP = rf"({_NUMBER}):({_NUMBER}):(\s*\d+\s*)$"


def parse_sweep(spec):
    """`x=a:b:n` -> ("x", [n floats from a to b]); None for a binding that is not a sweep."""
    name, sep, value = spec.partition("=")
    # (the pattern compiled only for a value that may be one: `gradcli eval` runs in shell loops)
    m = re.match(SWEEP, value) if sep and value.count(":") == 2 else None
    if m is None:
        return None
    from .evaluate import parse_binding
    name = parse_binding(spec).name  # (the name checked as any --at name is)
    start, stop, n = float(m.group(1)), float(m.group(2)), int(m.group(3))
    if not 1 <= n <= MAX_POINTS:
        raise UsageError(f"--at {spec.strip()}: the number of points must be 1 to {MAX_POINTS:,}")
    return name, [float(v) for v in np.linspace(start, stop, n)]


def split_bindings(at):
    """(fixed bindings, sweeps [(name, values)]) of the --at options."""
    from .evaluate import parse_binding
    fixed, sweeps = [], []
    for spec in at or []:
        sweep = parse_sweep(spec)
        if sweep is None:
            fixed.append(parse_binding(spec))
        else:
            sweeps.append(sweep)
    names = [b.name for b in fixed] + [n for n, _ in sweeps]
    twice = next((n for n in names if names.count(n) > 1), None) if sweeps else None
    if twice is not None:
        raise UsageError(f"--at {twice} is given twice")
    return fixed, sweeps


def sweep_points(sweeps, zipped=False):
    """The points of the sweeps, each {name: float}: their grid (the last name varying
    fastest), or with zipped=True the i-th values of each together."""
    if not sweeps:
        return [{}]
    names = [n for n, _ in sweeps]
    if zipped:
        lengths = {len(v) for _, v in sweeps}
        if len(lengths) != 1:
            raise UsageError("--zip pairs sweeps of the same number of points, not " +
                             ", ".join(f"{n} ({len(v)})" for n, v in sweeps))
        return [dict(zip(names, values)) for values in zip(*(v for _, v in sweeps))]
    total = 1
    for _, v in sweeps:
        total *= len(v)
    if total > MAX_POINTS:
        raise UsageError(f"the sweep grid has {total:,} points (at most {MAX_POINTS:,}); "
                         f"use fewer points or --zip")
    return [dict(zip(names, values)) for values in itertools.product(*(v for _, v in sweeps))]


def point_bindings(point, fixed, order=None):
    """The bindings of one point: its values (as numbers, not parsed) and the fixed ones, in
    the order of the --at names (order), else the point's first."""
    bindings = [Binding(n, repr(v), v) for n, v in point.items()] + list(fixed)
    if order:
        rank = {n: i for i, n in enumerate(order)}
        bindings.sort(key=lambda b: rank.get(b.name, len(rank)))
    return bindings
