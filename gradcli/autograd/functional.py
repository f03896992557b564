"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp."""

from ..engine.functional import hessian, hvp, jacobian, jvp, vhp, vjp

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]
