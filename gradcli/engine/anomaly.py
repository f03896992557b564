"""Anomaly detection: nodes remember where they were created, and a backward pass that produces
NaN raises an error naming the node (after a warning showing that place)."""

import functools
import warnings

from . import callables
from .graph import AnomalyMode
from .torch_classes import TorchClass

ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and "
                   "should only be enabled for debugging.")


def is_anomaly_enabled():
    return AnomalyMode.enabled


def is_anomaly_check_nan_enabled():
    return AnomalyMode.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    AnomalyMode.enabled = bool(enabled)
    AnomalyMode.check_nan = bool(check_nan)


class _AnomalyManager(metaclass=TorchClass):
    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False

    def __repr__(self):
        # PyTorch's classes live in torch.autograd.anomaly_mode (the classes keep gradcli's
        # module: the sandbox tells engine objects by it)
        return f"<torch.autograd.anomaly_mode.{type(self).__name__} object at {id(self):#x}>"


class detect_anomaly(_AnomalyManager):
    """Context manager (and decorator) enabling anomaly detection inside its block."""

    _torch_name = "torch.autograd.anomaly_mode.detect_anomaly"

    def __init__(self, check_nan=True):
        self.prev = AnomalyMode.enabled
        self.prev_check_nan = AnomalyMode.check_nan
        self.check_nan = check_nan
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __call__(self, fn):
        fn = callables.checked(fn)   # (as the program's own call of it)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly(_AnomalyManager):
    """Turn anomaly detection on or off now; as a context manager, restore it on exit."""

    _torch_name = "torch.autograd.anomaly_mode.set_detect_anomaly"

    def __init__(self, mode, check_nan=True):
        self.prev = AnomalyMode.enabled
        self.prev_check_nan = AnomalyMode.check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass
