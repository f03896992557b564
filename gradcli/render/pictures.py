"""Pictures of the backward graph, made in the frontend: the DOT text rebuilt from the
evaluator's `graph --json` document (checked: untrusted data) and Graphviz's drawing of it.
Imports nothing of the engine (the frontend of a one-shot command runs without it)."""

import re

DRAWN_FORMATS = ("ascii", "dot", "mermaid")  # text drawings (render.graph.FORMATS)
IMAGE_FORMATS = ("svg", "png")  # pictures, through Graphviz
_ID = re.compile(r"n\d{1,7}$")


def dot_from_json(document):
    """DOT text of a `graph --json` document the evaluator sent, checked (the frontend trusts
    no data from the evaluator: ids must be n<digits>, labels are escaped strings, so that
    nothing but boxes, arrows and text reach Graphviz)."""
    if not isinstance(document, dict):
        raise ValueError("not a graph document")
    nodes, edges = document.get("nodes"), document.get("edges")
    roots, outputs = document.get("roots"), document.get("outputs")
    if not (isinstance(nodes, list) and isinstance(edges, list) and isinstance(roots, dict)
            and isinstance(outputs, list)) or len(nodes) > 100_000 or len(edges) > 400_000:
        raise ValueError("not a graph document")

    def node_id(value):
        if not isinstance(value, str) or not _ID.match(value):
            raise ValueError("bad node id")
        return value

    def text(value):
        return escape(str(value)[:500]).replace("\n", "\\n")

    lines = ["digraph backward {", "  rankdir=BT;", '  node [shape=box, fontname="monospace"];']
    for node in nodes:
        if not isinstance(node, dict):
            raise ValueError("bad node")
        shape = ', style=filled, fillcolor="lightblue"' if node.get("leaf") is True else ""
        lines.append(f'  {node_id(node.get("id"))} [label="{text(node.get("label", ""))}"'
                     f'{shape}];')
    for edge in edges:
        if not isinstance(edge, dict):
            raise ValueError("bad edge")
        lines.append(f"  {node_id(edge.get('to'))} -> {node_id(edge.get('from'))};")
    for i, name in enumerate(outputs[:1000]):
        root = roots.get(name) if isinstance(name, str) else None
        if root is not None:
            lines.append(f'  out{i} [label="{text(name)}", shape=ellipse];')
            lines.append(f"  {node_id(root)} -> out{i};")
    lines.append("}")
    return "\n".join(lines)


def render_with_graphviz(dot_text, fmt, timeout=60):
    """Graphviz's `dot -T fmt` of dot_text: the picture's bytes.  Raises FileNotFoundError when
    dot is not on PATH, RuntimeError when it fails."""
    import shutil
    import subprocess
    dot = shutil.which("dot")
    if dot is None:
        raise FileNotFoundError("dot")
    try:
        p = subprocess.run([dot, f"-T{fmt}"], input=dot_text.encode("utf-8"),
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"no picture after {timeout} s") from None
    if p.returncode != 0:
        raise RuntimeError(p.stderr.decode("utf-8", "replace").strip().split("\n")[0])
    return p.stdout


def escape(text):
    """text inside a DOT string literal."""
    return text.replace("\\", "\\\\").replace('"', '\\"')
