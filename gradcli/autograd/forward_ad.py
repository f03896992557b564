"""Forward-mode AD: dual tensors (a primal and its tangent) within a `dual_level`.

Tangents live in `Tensor._fw` (engine.tangents holds the level's state); every op of the
table propagates them with its JVP (`gradcli.ops.forward_mode._forward_ad`).  Leaving the level
clears every tangent it created.
"""

from collections import namedtuple

from ..engine.grad_mode import GradMode
from ..engine.graph import Node, gradient_edge
from ..engine.tangents import ForwardAD, set_tangent
from ..engine.tensor import Tensor
from ..engine.torch_classes import TorchClass

NESTED = "Nested forward mode AD is not supported at the moment"
NO_LEVEL = ("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first.")
ALREADY_DUAL = ("Making a dual Tensor based on a Tensor that already has a forward gradient at "
                "the same level {level} is not supported.")
SIZE_MISMATCH = ("Trying to set a forward gradient that has a different size than that of the "
                 "original Tensor, this is not supported. Tensor is of size {primal} while the "
                 "given forward gradient is of size {tangent}.")

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"],
                                module="torch.autograd.forward_ad")


def _state():
    return ForwardAD


def enter_dual_level():
    """Open the (single) forward AD level and return its index, 0."""
    state = _state()
    if state.level is not None:
        raise RuntimeError(NESTED)
    state.level = 0
    state.duals = []
    return 0


def exit_dual_level(*, level=None):
    """Close the level: every tangent created inside it is dropped."""
    state = _state()
    if state.level is None:
        raise RuntimeError("Dual level must be a positive number.")
    for ref in state.duals or ():
        t = ref()
        if t is not None:
            t._fw = None
    state.level = None
    state.duals = None


class dual_level(metaclass=TorchClass):
    """Context manager for forward AD: `with dual_level(): ...`."""

    _torch_name = "torch.autograd.forward_ad.dual_level"

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False

    def __repr__(self):
        # PyTorch's echo (the class keeps gradcli's module: the sandbox tells engine objects
        # by it)
        return f"<torch.autograd.forward_ad.{type(self).__name__} object at {id(self):#x}>"


class Identity(Node):
    """The node of an unpacked primal (PyTorch names it `Identity`)."""

    __slots__ = ()

    def __init__(self, edge):
        Node.__init__(self)
        self.next_functions = (edge,)

    def apply(self, grads):
        return [grads[0]]


def _alias(t):
    """A view of t sharing data and version counter, without tangent."""
    record = t.requires_grad_flag and GradMode.enabled
    node = Identity(gradient_edge(t)) if record else None
    a = Tensor._make(t._data, node, 0, record)
    a._counter = t._counter
    a._base = t._base if t._base is not None else t
    return a


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` carrying `tangent` as its forward gradient."""
    state = _state()
    if state.level is None:
        raise RuntimeError(NO_LEVEL)
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(SIZE_MISMATCH.format(primal=list(tensor._data.shape),
                                                tangent=list(tangent._data.shape)))
    if tensor._fw is not None:
        raise RuntimeError(ALREADY_DUAL.format(level=state.level))
    dual = tensor.view(tuple(tensor._data.shape))
    set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of a dual tensor; tangent is None outside a level or for plain tensors."""
    if _state().level is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_alias(tensor), tensor._fw)


__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "UnpackedDualTensor"]
