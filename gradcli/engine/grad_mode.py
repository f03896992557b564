"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode — context managers and
decorators that save and restore the global state."""

import functools


class _GradMode:
    """Global switch read by every op: record the graph or not.  The mode objects here and in
    the engine are slotted instances rather than classes: every op reads them, and an instance
    slot is read by one specialised load where a class attribute goes through the type's
    method cache (whose collisions depend on the hash seed and slow some processes down)."""
    __slots__ = ("enabled",)

    def __init__(self):
        self.enabled = True


GradMode = _GradMode()


def is_grad_enabled():
    return GradMode.enabled


class _GradModeManager:
    mode = True

    def __enter__(self):
        self._prev = GradMode.enabled
        GradMode.enabled = self.mode

    def __exit__(self, *exc):
        GradMode.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeManager):
    """Disable graph recording inside the block (or the decorated function)."""
    mode = False


class enable_grad(_GradModeManager):
    """Enable graph recording inside the block, even within no_grad."""
    mode = True


class InferenceMode:
    enabled = False


def is_inference_mode_enabled():
    return InferenceMode.enabled


class inference_mode(_GradModeManager):
    """Like no_grad (gradcli has no separate inference tensors); also a bare decorator
    (`@torch.inference_mode`)."""

    def __new__(cls, mode=True):
        if callable(mode):
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = not mode
        self.inference = bool(mode)

    def __enter__(self):
        super().__enter__()
        self._prev_inference = InferenceMode.enabled
        InferenceMode.enabled = self.inference

    def __exit__(self, *exc):
        InferenceMode.enabled = self._prev_inference
        return super().__exit__(*exc)

    def __call__(self, fn):
        inference = self.inference

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(inference):
                return fn(*args, **kwargs)
        return wrapper


class set_grad_enabled(_GradModeManager):
    """Set grad mode now; as a context manager, restore the previous mode on exit."""

    def __init__(self, mode):
        self._prev = GradMode.enabled
        self.mode = bool(mode)
        GradMode.enabled = self.mode

    def __enter__(self):
        pass

    def __call__(self, fn):
        GradMode.enabled = self._prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = GradMode.enabled
            GradMode.enabled = self.mode
            try:
                return fn(*args, **kwargs)
            finally:
                GradMode.enabled = prev
        return wrapper


def _set_grad_enabled_repr(self):
    return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


set_grad_enabled.__repr__ = _set_grad_enabled_repr
# the module PyTorch's reprs name (`<torch.autograd.grad_mode.no_grad object at 0x…>`)
for _cls in (no_grad, enable_grad, inference_mode, set_grad_enabled):
    _cls.__module__ = "torch.autograd.grad_mode"
