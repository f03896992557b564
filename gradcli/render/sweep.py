"""A sweep's results (SPEC §3): a table (rich on a terminal), --csv, --json (one document with
"points") or --jsonl (one point a line, written as it is computed)."""

import json

from ..engine.text import json_ready
from .values import to_json, value_text

FORMATS = ("table", "csv", "json", "jsonl")


def cell_text(value):
    """A value in a table cell: on one line, as eval prints it."""
    if isinstance(value, float):
        return f"{value:.6g}"
    return " ".join(value_text(value).split())


def csv_text(value):
    """A value in a CSV field: a number as Python writes it (inf, nan as SPEC's strings), a
    tensor of several elements as its JSON list."""
    v = json_ready(to_json(value))
    if isinstance(v, (list, dict)):
        return json.dumps(v, allow_nan=False)
    return "" if v is None else str(v)


class SweepWriter:
    """Collects (or streams) the points of a sweep in one of FORMATS.

    head: the JSON document's keys before "points" (dtype, outputs, ...)."""

    def __init__(self, renderer, fmt, head=None):
        self.renderer = renderer
        self.fmt = fmt
        self.head = head or {}
        self.records = []
        self.headers = None
        self.rows = []
        self.csv = None

    def add(self, record, cells):
        """One point: record is its JSON object ({"at": ..., ...}); cells the (header, value)
        pairs of its table row / CSV line."""
        out = self.renderer.out
        if self.fmt == "jsonl":
            out.write(json.dumps(json_ready(record), allow_nan=False) + "\n")
            out.flush()
        elif self.fmt == "json":
            self.records.append(record)
        elif self.fmt == "csv":
            if self.csv is None:
                import csv
                self.csv = csv.writer(out, lineterminator="\n")
                self.csv.writerow([h for h, _ in cells])
            self.csv.writerow([csv_text(v) for _, v in cells])
        else:
            if self.headers is None:
                self.headers = [h for h, _ in cells]
            self.rows.append([cell_text(v) for _, v in cells])

    def close(self, tail=None):
        """The end of the sweep: the JSON document or the table (tail: keys after "points" of
        the document, or a summary line under the table)."""
        if self.fmt == "json":
            self.renderer.json({**self.head, "points": self.records,
                                **(tail if isinstance(tail, dict) else {})})
        elif self.fmt == "table" and self.headers is not None:
            self.renderer.table(None, self.headers, self.rows)
        self.renderer.out.flush()


def at_cells(point):
    return [(name, value) for name, value in point.items()]


def at_text(point):
    return ", ".join(f"{n}={v:.6g}" for n, v in point.items())
