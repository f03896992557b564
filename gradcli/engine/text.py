"""Text about values that needs no tensor (standard library only, so that a frontend that
never loads the engine may use it): derivative labels (`dz/dx`, `d(x * w)/dx`) and
JSON-ready documents."""

import math



def wrt(label):
    """A label as it reads after `dy/d`: a name as it is, anything compound in brackets
    (`dy/d(x * w)`, not `dy/dx * w`, which is other mathematics)."""
    label = label.strip()
    if all(part.isidentifier() for part in label.split(".")):  # (a.b too)
        return label
    if label.startswith("(") and _closing(label, 0) == len(label) - 1:
        return label
    return f"({label})"


def _closing(text, start):
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return None


def json_ready(document):
    """document with every non-finite float (nested in dicts and lists) as "inf"/"-inf"/"nan"."""
    if isinstance(document, float):
        if math.isfinite(document):
            return document
        return "nan" if math.isnan(document) else ("inf" if document > 0 else "-inf")
    if isinstance(document, dict):
        return {k: json_ready(v) for k, v in document.items()}
    if isinstance(document, (list, tuple)):
        return [json_ready(v) for v in document]
    return document


def derivative_label(out, leaf, order=1):
    """dz/dx, d2z/dx2; an output that is an expression is bracketed: d(x*2 + 1)/dx."""
    out = wrt(out)
    if order == 1:
        return f"d{out}/d{leaf}"
    if "," in leaf:  # a mixed partial, "x,x,w": d3y/dx2 dw
        names = leaf.split(",")
        counts = {n: names.count(n) for n in names}
        return f"d{order}{out}/" + " ".join(f"d{n}{k if k > 1 else ''}"
                                           for n, k in counts.items())
    return f"d{order}{out}/d{leaf}{order}"
