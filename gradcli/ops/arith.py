"""Arithmetic: + - * / // % ** and their named forms."""

import numpy as np

from ..engine.tensor import Tensor
from .registry import Op, Overload, Sample, alias, elementwise_samples, register

BINARY = elementwise_samples(unary=False)
POSITIVE = elementwise_samples(0.5, 2.0, unary=False)


def _add(a, b, alpha):
    return np.add(a, b) if alpha == 1 else np.add(a, np.multiply(b, alpha))


def _sub(a, b, alpha):
    return np.subtract(a, b) if alpha == 1 else np.subtract(a, np.multiply(b, alpha))


register(Op(
    "add", _add, (lambda g: g, lambda g, alpha: g if alpha == 1 else g * alpha),
    inputs=("self", "other"), attrs=(("alpha", 1),), jvp="linear", inplace=True,
    doc="self + alpha * other", formula="d/dself = 1, d/dother = alpha",
    samples=BINARY, kind="binary"))

register(Op(
    "sub", _sub, (lambda g: g, lambda g, alpha: -g if alpha == 1 else g * -alpha),
    inputs=("self", "other"), attrs=(("alpha", 1),), jvp="linear", inplace=True,
    doc="self - alpha * other", formula="d/dself = 1, d/dother = -alpha",
    samples=BINARY, kind="binary"))

register(Op(
    "rsub", lambda a, b, alpha: _sub(b, a, alpha),
    (lambda g, alpha: -g if alpha == 1 else g * -alpha, lambda g: g),
    inputs=("self", "other"), attrs=(("alpha", 1),), jvp="linear", grad_fn="RsubBackward1",
    method=False, doc="other - alpha * self (the reflected `-`)",
    formula="d/dself = -alpha, d/dother = 1", samples=BINARY, kind="binary"))

register(Op(
    "mul", np.multiply, (lambda g, other: g * other, lambda g, self: g * self),
    inputs=("self", "other"), inplace=True, doc="self * other",
    formula="d/dself = other, d/dother = self", samples=BINARY, kind="binary"))


def _div(a, b, rounding_mode):
    if rounding_mode is None:
        return np.true_divide(a, b)
    if rounding_mode == "trunc":
        return np.trunc(np.true_divide(a, b)) if np.result_type(a, b).kind == "f" else _int_trunc_div(a, b)
    if rounding_mode == "floor":
        return np.floor_divide(a, b)
    raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


def _int_trunc_div(a, b):
    q = np.floor_divide(a, b)
    return np.where((np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)), q + 1, q)


def _div_vjp_self(g, other, rounding_mode):
    return g / other if rounding_mode is None else g * 0


def _div_vjp_other(g, self, other, rounding_mode):
    return -g * self / (other * other) if rounding_mode is None else g * 0


register(Op(
    "div", _div, (_div_vjp_self, _div_vjp_other), inputs=("self", "other"),
    attrs=(("rounding_mode", None),), inplace=True, dtype="float",
    doc="self / other", formula="d/dself = 1/other, d/dother = -self/other^2",
    samples=[Sample(a, b, low=0.5, high=2.0) for a, b in
             [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3))]], kind="binary"))
for _alias, _target in {"divide": "div", "true_divide": "div", "multiply": "mul",
                        "subtract": "sub"}.items():
    alias(_alias, _target)

register(Op(
    "rdiv", lambda a, b: np.true_divide(b, a), lambda g, self, other: -g * other / (self * self),
    inputs=("self", "other"), grad_fn="DivBackward0", method=False, public=False, dtype="float",
    doc="other / self (the reflected `/`)", formula="d/dself = -other/self^2",
    samples=[Sample((3,), None, low=0.5, high=2.0, values={1: 2.0})], kind="binary"))

register(Op(
    "neg", np.negative, lambda g: -g, inplace=True, doc="-self", formula="-1",
    samples=elementwise_samples()))
register(Op(
    "positive", lambda a: a, None, method=True, doc="+self", dtype="same", kind="elementwise"))


def _pow_tensor_scalar_vjp(g, self, exponent):
    if exponent == 0:
        return g * 0
    return g * (exponent * self ** (exponent - 1))


def _pow_tensor_tensor_self(g, self, exponent):
    return g * (exponent * self ** (exponent - 1))


def _pow_tensor_tensor_exponent(g, self, exponent, result):
    return g * (result * self.log()).masked_fill((self == 0) & (exponent >= 0), 0.0)


def _pow_scalar_tensor_exponent(g, self, result):
    if self == 0:
        return g * (result * 0).masked_fill(result != result, 0.0)
    return g * (result * float(np.log(self)))


def _np_pow(a, b):
    try:
        return np.power(a, b)
    except ValueError as e:
        raise RuntimeError(str(e)) from None


pow_tensor_scalar = Op(
    "pow.Tensor_Scalar", _np_pow, (_pow_tensor_scalar_vjp, None), inputs=("self", "exponent"),
    grad_fn="PowBackward0", method=False, public=False, inplace=True,
    doc="self ** exponent (number)", formula="exponent * self^(exponent-1)",
    samples=[Sample((3,), None, low=0.5, high=2.0, values={1: 3}),
             Sample((2, 3), None, low=0.5, high=2.0, values={1: -1.5}),
             Sample((), None, values={1: 2})], kind="binary")
pow_tensor_tensor = Op(
    "pow.Tensor_Tensor", _np_pow, (_pow_tensor_tensor_self, _pow_tensor_tensor_exponent),
    inputs=("self", "exponent"), grad_fn="PowBackward1", method=False, public=False,
    inplace=True, doc="self ** exponent (tensor)",
    formula="d/dself = exponent * self^(exponent-1), d/dexponent = self^exponent * log(self)",
    samples=POSITIVE, kind="binary")
pow_scalar_tensor = Op(
    "pow.Scalar", _np_pow, (None, _pow_scalar_tensor_exponent), inputs=("self", "exponent"),
    grad_fn="PowBackward2", method=False, public=False,
    doc="number ** exponent", formula="d/dexponent = self^exponent * log(self)",
    samples=[Sample(None, (3,), values={0: 2.0})], kind="binary")
for _op in (pow_tensor_scalar, pow_tensor_tensor, pow_scalar_tensor):
    register(_op)


def _choose_pow(self, exponent=None, **kwargs):
    if not isinstance(self, Tensor):
        return pow_scalar_tensor
    return pow_tensor_tensor if isinstance(exponent, Tensor) else pow_tensor_scalar


register(Overload("pow", _choose_pow, (pow_tensor_scalar, pow_tensor_tensor, pow_scalar_tensor),
                  doc="self ** exponent (also written ^ in gradcli)", kind="binary",
                  formula="exponent * self^(exponent-1); self^exponent * log(self)"))


register(Op(
    "floor_divide", np.floor_divide, None, inputs=("self", "other"), inplace=True,
    doc="floor(self / other) (not differentiable)", kind="binary"))

register(Op(
    "remainder", np.remainder,
    (lambda g: g, lambda g, self, other: g * -(self / other).floor()),
    inputs=("self", "other"), inplace=True, doc="self - floor(self / other) * other",
    formula="d/dself = 1, d/dother = -floor(self/other)",
    samples=[Sample((3,), (3,), low=0.3, high=0.9), Sample((2, 3), (3,), low=0.3, high=0.9)],
    kind="binary"))

register(Op(
    "fmod", np.fmod, (lambda g: g, lambda g, self, other: g * -(self / other).trunc()),
    inputs=("self", "other"), inplace=True, doc="self - trunc(self / other) * other",
    formula="d/dself = 1, d/dother = -trunc(self/other)",
    samples=[Sample((3,), (3,), low=0.3, high=0.9)], kind="binary"))
