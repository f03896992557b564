"""torch.autograd: backward, grad, custom Functions, the functional API, forward-mode AD,
gradcheck and anomaly detection."""

from ..engine.autograd import backward, grad

__all__ = ["backward", "grad"]
