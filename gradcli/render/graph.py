"""The backward graph as an ASCII tree, Graphviz DOT or Mermaid — with values and gradients on
every node when asked.  Shared subgraphs are drawn once and referenced after; order follows
`next_functions`, so output is deterministic."""

from ..engine.graph import reachable_nodes
from ..engine.graph import AccumulateGrad
from .pictures import DRAWN_FORMATS, escape as _escape
from .values import short_value

UNICODE = {"tee": "├─ ", "last": "└─ ", "pipe": "│  ", "space": "   "}
ASCII = {"tee": "+- ", "last": "`- ", "pipe": "|  ", "space": "   "}


class GraphView:
    """What a drawing needs: the nodes reachable from the outputs and their labels."""

    def __init__(self, outputs, names=None, recording=None, steps=None, with_values=False):
        self.outputs = outputs                       # [(name, tensor)]
        self.names = names or {}                     # (node, output_nr) or id(leaf) -> name
        self.records = recording.records if recording else {}
        self.grads = {}
        for step in steps or []:
            self.grads[step.node] = step.grad_outputs
            for (child, nr), g in zip(step.node.next_functions, step.grad_inputs):
                if type(child) is AccumulateGrad and g is not None:
                    prev = self.grads.get(child)
                    self.grads[child] = (g if prev is None else (prev[0] + g),)
        self.with_values = with_values
        self.nodes = reachable_nodes([t.grad_fn for _, t in outputs if t.grad_fn is not None])
        parents = {}
        for node in self.nodes:
            for child, _ in node.next_functions:
                if child is not None:
                    parents[child] = parents.get(child, 0) + 1
        self.shared = {n for n, k in parents.items() if k > 1}

    def name_of(self, node):
        if type(node) is AccumulateGrad:
            return self.names.get(id(node.variable), "leaf")
        return self.names.get((node, 0))

    def short_label(self, node):
        """The node's name and the program's name for it, without values."""
        name = self.name_of(node)
        if type(node) is AccumulateGrad:
            return f"{name} (leaf)"
        return node.name() + (f"  {name}" if name else "")

    def label(self, node):
        name = self.name_of(node)
        if type(node) is AccumulateGrad:
            text = f"{name} (leaf, AccumulateGrad)"
            value = node.variable._data
        else:
            text = node.name() + (f"  {name}" if name else "")
            rec = self.records.get(node)
            value = rec.outputs[0] if rec and rec.outputs else None
        if self.with_values:
            if value is not None:
                text += f"  value={short_value(value)}"
            grad = self.grads.get(node)
            if grad is not None and grad[0] is not None:
                text += f"  grad={short_value(grad[0])}"
        return text


def graph_json(view):
    """The graph as data (`graph --json`): nodes with their grad_fn name, the program's name,
    value and gradient; edges from a node to each of its next_functions (the way gradients
    flow); and each output's root node."""
    from .values import to_json
    ids = _ids(view)
    nodes = []
    for node in view.nodes:
        leaf = type(node) is AccumulateGrad
        if leaf:
            value = node.variable._data
        else:
            rec = view.records.get(node)
            value = rec.outputs[0] if rec and rec.outputs else None
        grad = view.grads.get(node)
        nodes.append({"id": ids[node], "grad_fn": node.name(), "name": view.name_of(node),
                      "leaf": leaf, "value": to_json(value) if value is not None else None,
                      "grad": to_json(grad[0]) if grad and grad[0] is not None else None})
    edges = [{"from": ids[node], "to": ids[child], "input": k}
             for node in view.nodes
             for k, (child, _) in enumerate(node.next_functions) if child is not None]
    roots = {name: ids[t.grad_fn] if t.grad_fn is not None else None
             for name, t in view.outputs}
    for node, entry in zip(view.nodes, nodes):
        entry["label"] = view.label(node)
    return {"outputs": [name for name, _ in view.outputs], "roots": roots, "nodes": nodes,
            "edges": edges}


def _children(node):
    return [child for child, _ in node.next_functions if child is not None]


MAX_INDENT = 40
"""Levels of the tree drawn as indentation: a node deeper than that is drawn at the deepest
indentation with its level (`level 41: MulBackward0`), so that a chain of n ops (a loop's
`y = y * w`) takes n lines, not n lines of up to n indentations (3 * n ** 2 / 2 characters:
600 MB for 20,000 ops)."""


def draw_ascii(view, ascii_only=False):
    """A tree from each output down to the leaves; a shared node gets a [n] tag and later
    appearances say `(see [n])`."""
    sym = ASCII if ascii_only else UNICODE
    tags = {}
    lines = []
    for out_name, t in view.outputs:
        if t.grad_fn is None:
            lines.append(f"{out_name}: no graph ({'a leaf' if t.requires_grad else 'does not require grad'})")
            continue
        lines.append(f"{out_name}")
        stack = [(t.grad_fn, "", True, 1)]
        while stack:
            node, prefix, last, level = stack.pop()
            branch = sym["last"] if last else sym["tee"]
            if level > MAX_INDENT:
                branch += f"level {level}: "
            if node in tags:
                lines.append(f"{prefix}{branch}(see [{tags[node]}]) {view.short_label(node)}")
                continue
            tag = ""
            if node in view.shared:
                tags[node] = len(tags) + 1
                tag = f"[{tags[node]}] "
            lines.append(f"{prefix}{branch}{tag}{view.label(node)}")
            kids = _children(node)
            inner = prefix if level >= MAX_INDENT else \
                prefix + (sym["space"] if last else sym["pipe"])
            for i, child in reversed(list(enumerate(kids))):
                stack.append((child, inner, i == len(kids) - 1, level + 1))
    return "\n".join(lines)


def _ids(view):
    return {node: f"n{i}" for i, node in enumerate(view.nodes)}


def draw_dot(view):
    ids = _ids(view)
    lines = ["digraph backward {", "  rankdir=BT;", '  node [shape=box, fontname="monospace"];']
    for node in view.nodes:
        shape = ', style=filled, fillcolor="lightblue"' if type(node) is AccumulateGrad else ""
        lines.append(f'  {ids[node]} [label="{_escape(view.label(node))}"{shape}];')
    for node in view.nodes:
        for child in _children(node):
            lines.append(f"  {ids[child]} -> {ids[node]};")
    for i, (out_name, t) in enumerate(view.outputs):
        if t.grad_fn is not None:
            lines.append(f'  out{i} [label="{_escape(out_name)}", shape=ellipse];')
            lines.append(f"  {ids[t.grad_fn]} -> out{i};")
    lines.append("}")
    return "\n".join(lines)


def draw_mermaid(view):
    ids = _ids(view)
    lines = ["flowchart BT"]
    for node in view.nodes:
        label = view.label(node).replace('"', "#quot;")
        lines.append(f'  {ids[node]}["{label}"]')
    for node in view.nodes:
        for child in _children(node):
            lines.append(f"  {ids[child]} --> {ids[node]}")
    for i, (out_name, t) in enumerate(view.outputs):
        if t.grad_fn is not None:
            lines.append(f'  out{i}(["{out_name}"])')
            lines.append(f"  {ids[t.grad_fn]} --> out{i}")
    return "\n".join(lines)


FORMATS = dict(zip(DRAWN_FORMATS, (draw_ascii, draw_dot, draw_mermaid)))
