"""torch.nn.Parameter: a leaf tensor that a Module registers as one of its parameters."""

from ..engine import messages
from ..engine.tensor import Tensor, _init


class Parameter(Tensor):
    """A tensor that requires grad by default and prints as `Parameter containing:`; it shares
    its data with the tensor it is made from, as PyTorch's does."""

    _torch_name = "torch.nn.parameter.Parameter"

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = Tensor(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not "
                            f"{messages.type_name(data)}")
        _init(self, data._data, None, 0, False)
        self._counter = data._counter
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__
