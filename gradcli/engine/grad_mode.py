"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode — context managers and
decorators that save and restore the global state."""

import functools

from . import callables


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
        fn = callables.checked(fn)   # (as the program's own call of it)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class _NoParameterManager(_GradModeManager):
    """A mode that takes no parameter, so also a bare decorator (`@torch.no_grad`), as
    PyTorch's _NoParamDecoratorContextManager."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParameterManager):
    """Disable graph recording inside the block (or the decorated function)."""
    mode = False


class enable_grad(_NoParameterManager):
    """Enable graph recording inside the block, even within no_grad."""
    mode = True


INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")
INFERENCE_REQUIRES_GRAD = ("Setting requires_grad=True on inference tensor outside "
                           "InferenceMode is not allowed.")
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")
INFERENCE_VERSION = "Inference tensors do not track version counter."


class _InferenceVersion:
    """The version an inference tensor does not have: reading it to save the tensor for backward
    raises PyTorch's error, bumping it (`vc[0] += 1`) leaves it as it is."""

    __slots__ = ()

    def __bool__(self):
        raise RuntimeError(INFERENCE_SAVED)

    def __eq__(self, other):
        raise RuntimeError(INFERENCE_SAVED)

    def __ne__(self, other):
        raise RuntimeError(INFERENCE_SAVED)

    __hash__ = None

    def __add__(self, other):
        return self

    def __index__(self):
        raise RuntimeError(INFERENCE_VERSION)

    __int__ = __index__

    def __repr__(self):
        raise RuntimeError(INFERENCE_VERSION)


class _NoViews:
    """The views of an inference tensor, which have no history to regenerate: none kept."""

    __slots__ = ()

    def add(self, view):
        pass

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())


class InferenceCounter:
    """The version counter of inference tensors (a tensor made in inference mode, and its views,
    share the one instance): an in-place change outside inference mode raises PyTorch's error
    when the change bumps it, after the change, as PyTorch's does."""

    __slots__ = ()
    version = _InferenceVersion()
    views = _NoViews()  # (a normal counter's second item: the views regenerated on a change)

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return self.version if i == 0 else self.views

    def __setitem__(self, i, value):
        if not InferenceMode.enabled:
            raise RuntimeError(INFERENCE_INPLACE)


class _InferenceMode:
    """enabled: inference mode is on; counter: the version counter of the tensors made now
    (None: a fresh one on first use; in inference mode, the inference counter)."""
    __slots__ = ("enabled", "counter")
    INFERENCE = InferenceCounter()

    def __init__(self):
        self.enabled = False
        self.counter = None


InferenceMode = _InferenceMode()


def is_inference(tensor):
    return type(tensor._vc) is InferenceCounter


def is_inference_mode_enabled():
    return InferenceMode.enabled


class inference_mode(_GradModeManager):
    """no_grad, and the tensors made inside are inference tensors (`is_inference()`): no
    version counter, no in-place change, requires_grad or saving for backward outside the
    mode.  Also a bare decorator (`@torch.inference_mode`)."""

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
        InferenceMode.counter = InferenceMode.INFERENCE if self.inference else None

    def __exit__(self, *exc):
        InferenceMode.enabled = self._prev_inference
        InferenceMode.counter = InferenceMode.INFERENCE if self._prev_inference else None
        return super().__exit__(*exc)

    def __call__(self, fn):
        inference = self.inference

        fn = callables.checked(fn)   # (as the program's own call of it)

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

        fn = callables.checked(fn)   # (as the program's own call of it)

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
