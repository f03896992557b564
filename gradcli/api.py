"""The torch-like namespace of `import gradcli as torch` (gradcli/__init__.py loads it on the
package's first attribute access)."""

import numpy as _np

from .engine.dtypes import (bool_ as bool, complex64, complex128, dtype, float16, float32,  # noqa: A001
                            float64, get_default_dtype, int8, int16, int32, int64,
                            promote_types, set_default_dtype, uint8, uint16, uint32, uint64)
from .engine.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                               is_inference_mode_enabled, no_grad, set_grad_enabled)
from .engine.typeinfo import finfo, iinfo
from .engine.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .engine.printing import set_printoptions, get_printoptions
from .engine.tensor import Tensor, set_element_limit
from .engine.torch_classes import Device as device, Size, strided
from .ops import PUBLIC as _PUBLIC
from .ops.creation import GENERATOR as default_generator, Generator
from .ops.summation import get_num_threads, set_num_threads

_np.seterr(all="ignore")  # PyTorch never warns on inf/nan; neither does the engine

half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128
globals().update(_PUBLIC)
from .functions import INPLACE_FUNCTIONS as _INPLACE_FUNCTIONS, result_type, tensor_split  # noqa: E402,I001
globals().update(_INPLACE_FUNCTIONS)

from . import autograd  # noqa: E402
from . import serialization  # noqa: E402,F401
from .serialization import load, save  # noqa: E402

# torch.nn, torch.optim, torch.func, torch.linalg and torch.cuda are imported at their first use
# (this module's __getattr__, gradcli's, and the program's facades: lang.namespace); a plain
# `gradcli eval` uses none of them, and importing them costs every start-up some 2 ms
from .lazy_modules import API_SUBMODULES as _LAZY_SUBMODULES  # noqa: E402
from .process import tune_process  # noqa: E402,F401  (gradcli's own: not in __all__)

pi = 3.141592653589793
e = 2.718281828459045
inf = _np.inf
nan = _np.nan
from .version import __version__  # noqa: E402,F401


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib
        return importlib.import_module(f"gradcli.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.vmap: torch.func.vmap (imported at first use: see _LAZY_SUBMODULES)."""
    from .func import vmap
    return vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


def is_inference(input):
    return input.is_inference()


__all__ = sorted(
    list(_PUBLIC) + [
        "Tensor", "Size", "dtype", "device", "bool", "complex64", "complex128", "float16",
        "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
        "uint64", "half", "float",
        "double", "short", "int", "long", "cfloat", "cdouble", "get_default_dtype",
        "set_default_dtype", "promote_types", "no_grad", "enable_grad", "set_grad_enabled",
        "is_grad_enabled", "inference_mode", "set_printoptions", "get_printoptions",
        "autograd", "linalg", "nn", "optim", "cuda", "func", "utils", "pi", "e", "inf", "nan", "is_tensor", "numel",
        "vmap",
        "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "strided",
        "set_element_limit", "finfo", "iinfo", "Generator", "default_generator", "result_type", "tensor_split",
        "is_inference_mode_enabled", "get_num_threads", "set_num_threads", "is_inference",
        "save", "load", "serialization",
        *_INPLACE_FUNCTIONS])
