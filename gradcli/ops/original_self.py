"""PyTorch's original_self: an in-place op whose derivative reads self (hardtanh_, threshold_,
hardswish_, silu_, sin_, mul_, …) saves self.clone(), taken before the write, in its generated
code.  The node's edge is still self's node before the op, but the saved self is the clone:
`grad_fn._saved_self` prints grad_fn=<CloneBackward0>, and a double backward goes through that
CloneBackward0 to the node before the write (to the view's node for a view).

`SavesOriginalSelf(op)` is op as `ops._inplace` calls it (op(source, *args)) with the saved self
made so.  nn.functional's in-place activations use it; the Tensor methods (`x.sin_()`) take the
same step once `ops._inplace` wraps its op in it (see the report of branch t20b)."""

from ..engine.grad_mode import GradMode
from .registry import OPS


class SavesOriginalSelf:
    """op (an Op, or what ops._inplace accepts) whose saved self is PyTorch's original_self."""

    def __init__(self, op):
        self.op = op
        self.name = op.name

    @property
    def saves(self):
        return self.op.saves

    def __call__(self, source, *args, **kwargs):
        if not (GradMode.enabled and source.requires_grad_flag) or "self" not in self.saves:
            return self.op(source, *args, **kwargs)
        original = OPS["clone"](source)  # (before the op: its node's sequence number is lower)
        result = self.op(source, *args, **kwargs)
        # the op's node took its edge from source already; what it saved now unpacks as the clone
        source.grad_fn, source._output_nr = original.grad_fn, 0
        return result
