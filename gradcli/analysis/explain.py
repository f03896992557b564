"""The backward pass step by step, as a teacher writes the chain rule on the board: each node in
the order it runs, its expression, its local derivative as a formula and a number, the product
with the incoming gradient, and where the result accumulates (SPEC §3, §5)."""

import re
from dataclasses import dataclass, field

import numpy as np

from ..engine.graph import AccumulateGrad
from ..engine.tensor import Tensor
from .kinks import kink_at

INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "matmul": "@", "remainder": "%",
         "pow": "**", "floor_divide": "//"}
REFLECTED = {"rsub": "-", "rdiv": "/"}
# Python's binding strength of each operator, to bracket operands only where Python needs it
PRECEDENCE = {"add": 1, "sub": 1, "rsub": 1, "mul": 2, "div": 2, "rdiv": 2, "matmul": 2,
              "remainder": 2, "floor_divide": 2, "neg": 3, "pow": 4}
ATOM = 5  # names, numbers, calls, subscripts


@dataclass
class Contribution:
    target: str            # the input's expression or name
    local: str | None      # the local derivative as a number (scalar case) or None
    gradient: object       # the tensor passed on
    accumulates: str | None = None   # "x.grad" when it lands in a leaf


@dataclass
class ExplainStep:
    index: int
    node: str
    expression: str
    formula: str
    incoming: object
    contributions: list = field(default_factory=list)
    kink: str | None = None
    output_labels: tuple = ()  # for a node of several outputs: what each incoming gradient is of

    def defined_incoming(self):
        """The incoming gradients that are defined, as (label, tensor) (one unlabelled entry for
        a node of one output)."""
        if not isinstance(self.incoming, tuple):
            return [(None, self.incoming)]
        return [(label, g) for label, g in zip(self.output_labels, self.incoming) if g is not None]


@dataclass
class ForwardStep:
    """One op of the forward computation a backward pass differentiates: the program's name
    for its output (None if it has none), its expression, and the output's value."""
    name: str | None
    expression: str
    value: object


class BackwardSteps(list):
    """The ExplainSteps of one output's backward pass, in the order autograd ran them, with
    `forward`: the ForwardSteps of the ops they differentiate, in the program's order."""

    def __init__(self, steps=(), forward=()):
        super().__init__(steps)
        self.forward = list(forward)


# the outputs of the ops that return (values, indices), as PyTorch names them
VALUES_INDICES = frozenset({"max", "min", "sort", "topk", "kthvalue", "median", "nanmedian",
                            "mode", "cummax", "cummin"})


def output_labels(namer, node, count):
    """What each output of a node of several outputs is called: the field PyTorch gives it
    (values, indices), else the program's name for it, else `output N`."""
    op = getattr(node, "op", None)
    base = op.name.split(".")[0] if op is not None else ""
    if base in VALUES_INDICES and count == 2:
        return ("values", "indices")
    return tuple(namer.by_output.get((node, nr)) or f"output {nr}" for nr in range(count))


class Namer:
    """Names for nodes and tensors: the program's variables first, else an expression."""

    def __init__(self, namespace, recording):
        self.records = recording.records if recording else {}
        self.by_output = {}
        self.by_leaf = {}
        for name, value in namespace.items():
            if isinstance(value, Tensor):
                if value.grad_fn is not None:
                    self.by_output.setdefault((value.grad_fn, value._output_nr), name)
                else:
                    self.by_leaf.setdefault(id(value), name)

    def names(self):
        out = {key: name for key, name in self.by_output.items()}
        out.update(self.by_leaf)
        return out

    def operand(self, x, depth=0, binding=0):
        """x as an operand of an expression that binds with strength `binding` (PRECEDENCE):
        an infix expression that binds less tightly is put in brackets."""
        if isinstance(x, Tensor):
            if x.grad_fn is None:
                name = self.by_leaf.get(id(x))
                if name:
                    return name
                from ..engine.values import short_value
                return _signed(short_value(x), binding)
            name = self.by_output.get((x.grad_fn, x._output_nr))
            if name:
                return name
            if depth >= 6:
                return "…"
            inner = self.expression(x.grad_fn, depth + 1)
            return f"({inner})" if self.precedence(x.grad_fn) < binding else inner
        if isinstance(x, (list, tuple)):
            return "[" + ", ".join(self.operand(v, depth) for v in x) + "]"
        return _signed(repr(x), binding)

    def expression(self, node, depth=0):
        """The forward expression that made node's output, e.g. `2 * x` or `sin(a)`, with its
        operands in the program's order (`2 * x` is PyTorch's mul(x, 2): NodeRecord.swapped)
        and brackets where Python needs them."""
        rec, name, p = self._form(node)
        if rec is None:
            return node.name()
        if name == "neg":
            return f"-{self.operand(rec.inputs[0], depth, p)}"
        if p < ATOM:  # an infix operator
            a, b = rec.inputs
            if name in REFLECTED or rec.swapped:
                a, b = b, a
            # `**` groups from the right, the others from the left
            left, right = (p + 1, p) if name == "pow" else (p, p + 1)
            symbol = INFIX.get(name) or REFLECTED[name]
            return (f"{self.operand(a, depth, left)} {symbol} "
                    f"{self.operand(b, depth, right)}")
        if name in ("select", "slice"):
            dim, *rest = rec.attrs
            where = str(rest[0]) if name == "select" else _index_text(slice(*rest))
            return f"{self.operand(rec.inputs[0], depth, ATOM)}[{':, ' * dim}{where}]"
        op = node.op
        args = [self.operand(x, depth) for x in rec.inputs]
        if op.variadic:
            args = ["[" + ", ".join(args) + "]"]
        attrs = [f"{k}={v!r}" for k, v, d in zip(op.attr_names, rec.attrs, op.attr_defaults)
                 if v is not d and v != d]
        return f"{name}({', '.join(args + attrs)})"

    def precedence(self, node):
        """How tightly expression(node) binds (PRECEDENCE; ATOM for calls and the like)."""
        return self._form(node)[2]

    def _form(self, node):
        """(record, the op's short name, how tightly its expression binds) of node, or
        (None, None, ATOM) for a node the recording does not know."""
        rec, op = self.records.get(node), getattr(node, "op", None)
        if rec is None or op is None:
            return None, None, ATOM
        name = op.name.split(".")[0]
        if name == "neg" or len(rec.inputs) == 2 and (name in INFIX or name in REFLECTED):
            return rec, name, PRECEDENCE[name]
        return rec, name, ATOM

    def node_label(self, node):
        if type(node) is AccumulateGrad:
            return self.by_leaf.get(id(node.variable), "a leaf")
        return self.by_output.get((node, 0)) or self.expression(node)


def _signed(text, binding):
    """A number as an operand: `(-2) ** x` needs its brackets (-2 ** x is -(2 ** x))."""
    return f"({text})" if binding > PRECEDENCE["pow"] and text.startswith("-") else text


def _index_text(index):
    items = index if isinstance(index, tuple) else (index,)
    parts = []
    for i in items:
        if isinstance(i, slice):
            step = None if i.step == 1 else i.step
            stop = None if i.stop is not None and i.stop >= 2 ** 62 else i.stop
            start = None if i.start == 0 else i.start
            text = ":".join("" if v is None else str(v) for v in (start, stop, step))
            parts.append(text.rstrip(":") if step is None else text)
        elif i is Ellipsis:
            parts.append("...")
        else:
            parts.append(repr(i))
    return ", ".join(parts)


def _scalar(t):
    return isinstance(t, Tensor) and t._data.size == 1


def explain_steps(ev, out_name):
    """The BackwardSteps of output out_name (from its recorded trace)."""
    namer = Namer(ev.session.namespace, ev.recording)
    steps = BackwardSteps()
    ran = ev.steps.get(out_name, [])
    for rec in (ev.recording.records.values() if ev.recording else []):
        if any(s.node is rec.node for s in ran):
            steps.forward.append(ForwardStep(namer.by_output.get((rec.node, 0)),
                                             namer.expression(rec.node), rec.outputs[0]))
    for i, step in enumerate(ev.steps.get(out_name, []), 1):
        node = step.node
        op = getattr(node, "op", None)
        incoming = step.grad_outputs[0] if len(step.grad_outputs) == 1 else step.grad_outputs
        labels = output_labels(namer, node, len(incoming)) if isinstance(incoming, tuple) else ()
        defined = [g for g in (incoming if isinstance(incoming, tuple) else (incoming,))
                   if g is not None]
        # the one gradient the chain rule multiplies by (None when several are defined)
        single = defined[0] if len(defined) == 1 else None
        own = namer.by_output.get((node, 0))
        expression = namer.expression(node)
        if own:
            expression = f"{own} = {expression}"
        rec = namer.records.get(node)
        es = ExplainStep(i, node.name(), expression, _formula(op, rec) if op is not None else "",
                         incoming, kink=kink_at(node, rec) if rec else None,
                         output_labels=labels)
        inputs = rec.edge_inputs if rec else [None] * len(node.next_functions)
        for (child, _), g, x in zip(node.next_functions, step.grad_inputs, inputs):
            if child is None or g is None:
                continue
            target = namer.operand(x) if x is not None else namer.node_label(child)
            local = None
            if _scalar(single) and _scalar(g):
                gin = float(np.ravel(single._data)[0])
                if gin != 0:
                    local = _number(float(np.ravel(g._data)[0]) / gin)
            acc = None
            if type(child) is AccumulateGrad:
                acc = f"{namer.by_leaf.get(id(child.variable), 'leaf')}.grad"
            es.contributions.append(Contribution(target, local, g, acc))
        steps.append(es)
    return steps


def _formula(op, rec):
    """op's derivative formula with its numeric attributes written as the values this node used
    (`x + y`: `d/dother = 1`, not `= alpha`; leaky_relu: `else 0.01`)."""
    if rec is None:
        return op.formula
    if getattr(op, "declaration", None) is not None:
        return op.formula_at(rec.attrs)
    formula = op.formula
    for name, value in zip(op.attr_names, rec.attrs):
        if type(value) in (int, float):
            formula = re.sub(rf"-\b{name}\b", f"{-value:g}" if value < 0 else f"-{value:g}",
                             formula)
            formula = re.sub(rf"\b{name}\b", f"{value:g}" if value >= 0 else f"({value:g})",
                             formula)
    return formula


def _number(x):
    return f"{x:.6g}"
