"""Dropout as PyTorch computes it on the CPU (aten/src/ATen/native/Dropout.cpp, _dropout_impl):
a noise tensor drawn by `bernoulli_(1 - p)` from the default generator, divided by 1 - p (alpha
dropout: scaled and shifted instead), and multiplied into the input, so the graph ends in
MulBackward0 saving the input and the noise, as PyTorch's does.  Out of training, at p = 0 or
on an empty input the input itself comes back; at p = 1 it is multiplied by a 0-d zero.

The draws are those of PyTorch's portable bernoulli kernel (one 53-bit uniform double per
element, in the order of the input's memory, kept where it is < 1 - p): the kernel of CPUs
without Intel's MKL path, such as AMD's and ARM's.  PyTorch on an Intel CPU draws its Bernoulli
noise with MKL's own generator, so its masks differ there."""

import numpy as np

from ..engine import dtypes
from ..engine.tensor import Tensor
from .derivatives import helper
from .registry import OPS, Composed, Op, Plain, Sample, register, show_saved_as

ALPHA = 1.7580993408473766  # PyTorch's alpha_dropout constant (SELU's alpha * scale)


def check_probability(p, error=RuntimeError):
    """ATen's check (a RuntimeError, p printed as C++ prints a double), or with
    error=ValueError torch.nn's (p printed by Python)."""
    if not 0 <= p <= 1:
        shown = f"{float(p):g}" if error is RuntimeError else p
        raise error(f"dropout probability has to be between 0 and 1, but got {shown}")


def memory_order(a, drawn):
    """The values drawn one by one for a's elements, in the order of a's memory (PyTorch's
    serial kernels walk a tensor so), laid out in a's shape."""
    axes = sorted(range(a.ndim), key=lambda i: -abs(a.strides[i]) if a.shape[i] > 1 else 0)
    return drawn.reshape([a.shape[i] for i in axes]).transpose(np.argsort(axes))


def bernoulli_like(a, prob, generator=None):
    """`torch.empty_like(a).bernoulli_(prob)`: 0/1 in a's dtype, drawn in a's memory order."""
    from .creation import generator_of
    drawn = generator_of(generator, "bernoulli_")._uniform(a.size, np.float64) < prob
    return memory_order(a, drawn).astype(a.dtype)


def _noise_shape(a, feature):
    if not feature:
        return a
    if a.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return np.empty(a.shape[:2] + (1,) * (a.ndim - 2), a.dtype)  # (input.new_empty)


def _dropout(input, p, train, feature=False, alpha=False, inplace=False):
    check_probability(p)
    multiply = Tensor.mul_ if inplace else OPS["mul"]
    a = input._data
    if p == 0 or not train or a.size == 0:
        return input
    if p == 1:
        return multiply(input, Tensor._make(np.zeros((), a.dtype), None, 0, False))
    noise = bernoulli_like(_noise_shape(a, feature), 1 - p)
    if a.dtype.kind not in "fc":
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{dtypes.from_numpy_dtype(a.dtype).short}")
    t = a.dtype.type
    if alpha:
        scale = 1.0 / np.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
        shift = (noise + t(-1)) * t(ALPHA * scale) + t(ALPHA * scale * p)
        noise = noise * t(scale)
    else:
        noise = noise / t(1 - p)
    out = multiply(input, Tensor._make(noise, None, 0, False))
    if alpha:
        out = out.add_(Tensor._make(shift, None, 0, False))
    return out


_KINDS = {"dropout": {}, "feature_dropout": {"feature": True},
          "alpha_dropout": {"alpha": True},
          "feature_alpha_dropout": {"feature": True, "alpha": True}}
# (the tests seed the generator before each call of a random op: Op.random)
_SAMPLES = [Sample((3,), attrs={"p": 0.5, "train": True}),
            Sample((2, 3), attrs={"p": 0.3, "train": True}),
            Sample((2, 3), attrs={"p": 0.5, "train": False}),
            Sample((3,), attrs={"p": 1.0, "train": True})]


def _declare(name, flags):
    """torch.<name> (a composite op of the table) and torch.<name>_ (in place: mul_)."""
    def compose(input, p, train):
        return _dropout(input, p, train, **flags)

    def in_place(input, p, train):
        return _dropout(input, p, train, inplace=True, **flags)
    samples = [s for s in _SAMPLES if not flags.get("feature") or len(s.shapes[0]) >= 2]
    what = ("whole channels (dim 1) " if flags.get("feature") else "elements ") + (
        "set to SELU's negative saturation, then scaled and shifted" if flags.get("alpha")
        else "zeroed with probability p, the rest scaled by 1 / (1 - p)")
    via = ("mul", "add") if flags.get("alpha") else ("mul",)
    op = Composed(name, compose, via=via, attrs=("p", "train"), method=False,
                  public=True, kind="random", dtype="same", doc=f"in training, {what}",
                  samples=samples,  # (the node it ends in, in training)
                  grad_fn="AddBackward0" if flags.get("alpha") else "MulBackward0")
    op.random = True
    register(op)
    in_place.__name__ = name + "_"
    register(Plain(name + "_", in_place, f"{name} in place (MulBackward0 of mul_)",
                   kind="random", signature=f"{name}_(input, p, train)", via=via))


for _name, _flags in _KINDS.items():
    _declare(_name, _flags)


# ------------------------------------------------------------------ torch.native_dropout

def _native_dropout_forward(input, mask, p, train):
    """native_dropout_cpu: (input * mask * scale, mask) in training, else (a copy, mask)."""
    if train is None or train:
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
        return (input * mask) * input.dtype.type(scale), mask
    return input.copy(), mask


@helper
def _native_dropout_vjp(grad, mask, p, train):
    """infinitely_differentiable_native_dropout_backward: grad * (mask * scale), whose scale
    derivatives.yaml takes as 1 unless train is given and true (so train=None, which drops
    out, has the gradient of train=False)."""
    scale = 1.0 if not train else 0.0 if p == 1 else 1.0 / (1.0 - p)
    return grad[0] * (mask.to(grad[0].dtype) * scale)


@helper
def _native_dropout_jvp(t, mask, p, train):
    """derivatives.yaml's result0: scale * input_t * mask in training (train None: too)."""
    if train is None or train:
        return [t * (0.0 if p == 1 else 1.0 / (1.0 - p)) * mask, None]
    return [t, None]


NATIVE_DROPOUT = Op(
    "native_dropout.mask", _native_dropout_forward,
    "input: _native_dropout_vjp(grad, mask, p, train)",
    inputs=("input", "mask"), edges=("input",), attrs=("p", "train"), outputs=2,
    grad_fn="NativeDropoutBackward0", jvp="input: _native_dropout_jvp(input_t, mask, p, train)",
    dtype="same", method=False, public=False,
    kind="random", doc="(input * mask / (1 - p), mask) for a Bernoulli mask, in training",
    samples=[Sample((3,), None, values={1: np.array([True, False, True])},
                    attrs={"p": 0.4, "train": True}),
             Sample((2, 3), None, values={1: np.ones((2, 3), bool)},
                    attrs={"p": 0.5, "train": False})])
show_saved_as(NATIVE_DROPOUT, {"mask": "result1"})
NATIVE_DROPOUT.hidden_saved += ("train",)


def native_dropout(input, p, train):
    """torch.native_dropout: the mask drawn as bernoulli_(1 - p) draws it (all True out of
    training), then the table's native_dropout (NativeDropoutBackward0)."""
    a = input._data
    if train is None or train:
        if not 0 <= 1 - p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p:g}")
        mask = bernoulli_like(a, 1 - p).astype(bool)
    else:
        mask = np.ones(a.shape, bool)
    return NATIVE_DROPOUT(input, Tensor._make(mask, None, 0, False), p, train)


register(NATIVE_DROPOUT)
register(Plain("native_dropout", native_dropout,
               "(output, mask): dropout's fused form (NativeDropoutBackward0)", kind="random",
               signature="native_dropout(input, p, train)", via=("native_dropout.mask",)))
