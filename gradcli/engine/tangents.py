"""Forward-mode AD's state: the open dual level and the tangents given at it.

Tangents live in `Tensor._fw`; every op of the table propagates them with its JVP
(gradcli.ops.registry); torch.autograd.forward_ad (gradcli.autograd.forward_ad) opens and
closes the level.  Leaving the level clears every tangent it created.
"""

import weakref


class _ForwardAD:
    """The active forward-mode AD level (None when no dual_level is open); a slotted instance,
    as GradMode."""
    __slots__ = ("level", "duals", "batch")

    def __init__(self):
        self.level = None
        self.duals = None  # weak references to the tensors given a tangent at this level
        # jacobian(strategy="forward-mode", vectorize=True): every tangent at the level carries
        # a leading batch dimension of this size (one column of the Jacobian each)
        self.batch = None


ForwardAD = _ForwardAD()


class Unbatchable(Exception):
    """A batched forward-mode evaluation met something it cannot batch (the caller falls back
    to one column at a time)."""


def set_tangent(t, tangent):
    """Attach a tangent to t at the current level (and remember to drop it at exit)."""
    t._fw = tangent
    if ForwardAD.duals is not None:
        ForwardAD.duals.append(weakref.ref(t))
