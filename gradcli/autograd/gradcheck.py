"""torch.autograd.gradcheck: finite-difference checks of derivatives."""

from ..engine.gradcheck import (GradcheckError, get_analytical_jacobian, get_numerical_jacobian,
                                gradcheck, gradgradcheck)

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck", "get_numerical_jacobian",
           "get_analytical_jacobian"]
