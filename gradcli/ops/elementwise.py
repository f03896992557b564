"""Elementwise math: one input (exp, sin, relu, …), comparisons, where, clamp and friends."""

import numpy as np

from .registry import Op, Sample, elementwise_samples, register

ANY = elementwise_samples()
POSITIVE = elementwise_samples(0.5, 2.0)


def unary(name, forward, vjp, doc, formula, samples=ANY, **kw):
    """Declare a one-input elementwise op whose JVP is its VJP applied to the tangent."""
    kw.setdefault("dtype", "float")
    kw.setdefault("inplace", True)
    return register(Op(name, forward, vjp, doc=doc, formula=formula, samples=samples, **kw))


unary("exp", np.exp, lambda g, result: g * result, "e^self", "exp(self)")
unary("log", np.log, lambda g, self: g / self, "natural logarithm", "1/self", POSITIVE)
unary("sin", np.sin, lambda g, self: g * self.cos(), "sine", "cos(self)")
unary("cos", np.cos, lambda g, self: g * -self.sin(), "cosine", "-sin(self)")
unary("tanh", np.tanh, lambda g, result: g * (1 - result * result), "hyperbolic tangent",
      "1 - tanh(self)^2")
unary("sqrt", np.sqrt, lambda g, result: g / (2 * result), "square root", "1/(2*sqrt(self))",
      POSITIVE)
unary("abs", np.abs, lambda g, self: g * self.sign(), "absolute value",
      "sign(self) (0 at the kink self=0)", dtype="same")


def _relu(a):
    return np.maximum(a, 0).astype(a.dtype, copy=False)


unary("relu", _relu, lambda g, result: g * (result > 0), "max(self, 0)",
      "1 if self > 0 else 0 (0 at the kink)", dtype="same")
unary("sigmoid", lambda a: 1 / (1 + np.exp(-a)), lambda g, result: g * (result * (1 - result)),
      "1/(1+e^-self)", "sigmoid(self) * (1 - sigmoid(self))")
unary("sign", np.sign, lambda g: g * 0, "sign of self", "0 (undefined at 0)", dtype="same")
unary("floor", np.floor, lambda g: g * 0, "round down", "0", dtype="same")
unary("trunc", np.trunc, lambda g: g * 0, "round toward zero", "0", dtype="same")


def _masked_fill(a, mask, value):
    return np.where(mask, np.asarray(value, dtype=a.dtype), a)


register(Op(
    "masked_fill", _masked_fill,
    (lambda g, mask: g.masked_fill(mask, 0.0), None, lambda g, mask: g.masked_fill(~mask, 0).sum()),
    inputs=("self", "mask", "value"), dtype="same", inplace=True, jvp="elementwise",
    doc="self with value where mask is True", formula="d/dself = 1 where mask is False, else 0",
    samples=[Sample((3,), None, values={1: [True, False, True], 2: 0.5}, gradgrad=True)],
    kind="elementwise"))


def comparison(name, forward, doc):
    return register(Op(name, forward, None, inputs=("self", "other"), dtype="bool", doc=doc,
                       kind="comparison", inplace=False))


comparison("eq", np.equal, "self == other")
comparison("ne", np.not_equal, "self != other")
comparison("lt", np.less, "self < other")
comparison("le", np.less_equal, "self <= other")
comparison("gt", np.greater, "self > other")
comparison("ge", np.greater_equal, "self >= other")
comparison("logical_and", np.logical_and, "self and other, elementwise")
comparison("logical_or", np.logical_or, "self or other, elementwise")
comparison("logical_xor", np.logical_xor, "self xor other, elementwise")
register(Op("logical_not", np.logical_not, None, dtype="bool", doc="not self, elementwise",
            kind="comparison"))
register(Op("bitwise_not", lambda a: np.logical_not(a) if a.dtype == np.bool_ else np.invert(a),
            None, dtype="same", doc="~self", kind="comparison"))
