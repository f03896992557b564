"""PyTorch's original_self: an in-place op whose derivative reads self (hardtanh_, threshold_,
hardswish_, silu_, sin_, mul_, pow_, clamp_, ...) saves self.clone(), made in its generated
code just after the op's node (its sequence number is the node's plus one).  The node's edge
is still self's node before the op, but the saved self is the clone: `grad_fn._saved_self`
prints grad_fn=<CloneBackward0>, a double backward goes through that CloneBackward0 to the
node before the write (to the view's node for a view), and a later write to the result does
not touch what the node saved.  `ops._inplace` does it for every in-place op
(ops._save_original_self)."""


def SavesOriginalSelf(op):
    """op, for `ops._inplace(SavesOriginalSelf(op))`: every in-place op saves its original
    self now (ops._save_original_self); kept for the callers that name it."""
    return op
