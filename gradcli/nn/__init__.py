"""torch.nn: functional, init, Parameter and a minimal set of modules (Module, Linear,
Sequential, activations, losses)."""

from . import functional, init, modules, utils
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules
from .parameter import Parameter
from .conv import *  # noqa: F401,F403
from .conv import __all__ as _conv_modules

# (torch.nn.modules, as programs see it: the module classes and torch.nn.modules.module)
__all__ = ["functional", "init", "utils", "Parameter", "modules",
           *(name for name in _modules if name != "module")]
__all__ += _conv_modules
from .rnn import *  # noqa: F401,F403,E402
from .rnn import __all__ as _rnn_modules  # noqa: E402
__all__ += _rnn_modules
