"""Sampling an output and its derivative over a range of one input (`gradcli plot`)."""

from dataclasses import dataclass

import numpy as np

from ..engine.tensor import Tensor
from .evaluate import Binding, Discard, UsageError, evaluate


@dataclass
class Curve:
    input: str
    output: str
    xs: list
    ys: list
    dys: list

    def to_json(self):
        from ..engine.text import json_ready  # (inf, -inf, nan as strings: SPEC §3)
        return json_ready({"input": self.input, "output": self.output, "x": self.xs,
                           "y": self.ys, "dy": self.dys})


def parse_range(spec, points):
    """`x=-3:3` or `x=-3:3:101` -> ("x", array of points)."""
    name, sep, value = spec.partition("=")
    parts = value.split(":")
    if not sep or len(parts) not in (2, 3):
        raise UsageError(f"plot needs --at NAME=START:STOP[:POINTS], got {spec!r}")
    try:
        start, stop = float(parts[0]), float(parts[1])
        n = int(parts[2]) if len(parts) == 3 else points
    except ValueError:
        raise UsageError(f"plot needs numbers in --at {spec!r}") from None
    if not 3 <= n <= 2000 or not start < stop:
        raise UsageError(f"--at {spec!r}: need START < STOP and 3 to 2000 points")
    return name.strip(), np.linspace(start, stop, n)


def sample_curve(source, at, of, points, dtype, timeout):
    ranges = [a for a in at if ":" in a.partition("=")[2]]
    if len(ranges) != 1:
        raise UsageError("plot needs exactly one range, e.g. --at x=-3:3")
    name, xs = parse_range(ranges[0], points)
    fixed = [Binding(*a.split("=", 1)) for a in at if a not in ranges]
    ys, dys = [], []
    output = None
    for x in xs:
        ev = evaluate(source, [Binding(name, repr(float(x)))] + fixed, of, None, 1, dtype,
                      out=Discard(), timeout=timeout, explain_zero=False)
        output = ev.outputs[0]
        y = ev.values[output]
        if not isinstance(y, Tensor) or y.numel() != 1:
            raise UsageError(f"plot needs a scalar output; {output} is not one")
        g = ev.gradients[output].get(name)
        ys.append(float(y.item()))
        dys.append(float(g.item()) if g is not None else 0.0)
    return Curve(name, output, [float(x) for x in xs], ys, dys)

