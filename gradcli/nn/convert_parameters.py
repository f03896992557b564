"""torch.nn.utils.parameters_to_vector and vector_to_parameters: a model's parameters as one
flat vector (torch.cat of their views: differentiable) and back (each parameter's data set to
its slice of the vector, as PyTorch's `param.data = vec[a:b].view_as(param).data`)."""

from ..engine.tensor import Tensor
from ..ops import OPS
from .module import _typename


def parameters_to_vector(parameters):
    return OPS["cat"]([param.view(-1) for param in _each(parameters)])


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in _each(parameters):
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _each(parameters):
    """The parameters (a tensor's rows, if given one tensor: PyTorch iterates over it too)."""
    for param in parameters:
        if not isinstance(param, Tensor):  # (PyTorch's _check_param_device reads param.device)
            raise AttributeError(f"'{type(param).__name__}' object has no attribute 'device'")
        yield param
