"""Recording the forward graph while a program runs: each node's inputs, output values and the
program line that made it (for graph --values, explain and `why`)."""

from ..engine.records import Record
from ..engine.graph import NodeRecorder


class NodeRecord(Record):
    _fields = ("node", "inputs", "outputs", "line", "attrs", "swapped")

    def __init__(self, node, inputs, outputs, line=None, attrs=(), swapped=False):
        self.node = node
        self.inputs = inputs    # the op's inputs: tensors and Python numbers
        self.outputs = outputs  # output arrays, copied at creation (later in-place edits don't
        #                         show)
        self.line = line
        self.attrs = attrs
        self.swapped = swapped  # a `number + tensor` or `number * tensor` of the program, which
        # PyTorch computes as add(tensor, number): the inputs are in its order

    @property
    def edge_inputs(self):
        """The inputs that are edges of the node, in next_functions order (PyTorch leaves
        Scalar operands and where's condition out of the graph)."""
        index = getattr(getattr(self.node, "op", None), "edge_index", None)
        return self.inputs if index is None else tuple(self.inputs[i] for i in index)


class Recording(Record):
    """Node records by node, in creation order."""
    _fields = ("records", "location")

    def __init__(self, records=None, location=None):
        self.records = {} if records is None else records
        self.location = location  # callable giving the current program line, set by the language

    def on_node(self, node, inputs, results, swapped=False):
        self.records[node] = NodeRecord(
            node, tuple(inputs), tuple(r._data.copy() if r._data.size <= 10_000 else r._data
                                       for r in results),
            self.location() if self.location else None, getattr(node, "_attrs", ()), swapped)

    def __enter__(self):
        self._prev = NodeRecorder.callback
        NodeRecorder.callback = self.on_node
        return self

    def __exit__(self, *exc):
        NodeRecorder.callback = self._prev
        return False
