"""The check a callable that a program hands the engine to call later (a module's hooks, the
function of Module.apply) goes through when the engine takes it: the sandbox installs its
`checked_callable` here (gradcli.lang.sandbox.static_builtins), so that such a callable is held
to what a direct call of it in the program would be (np.ndarray refused, as `map` refuses it).
Outside programs (the engine used from Python) the callable is taken as it is.

Likewise the arithmetic the engine does on a program's values as PyTorch's Python does it (a
scheduler's `lr * gamma ** n`, `base_lr * lr_lambda(epoch)`): the sandbox's metered operators
(OPERATORS), so that an int or a string grows no more than the program's own `*` lets it."""

import operator

CHECK = [None]
OPERATORS = {"*": operator.mul, "**": operator.pow, "+": operator.add, "-": operator.sub,
             "/": operator.truediv}


def checked(func):
    """func, or what the sandbox gives in its place; raises as a call of it would."""
    check = CHECK[0]
    return func if check is None else check(func)


def multiply(a, b):
    return OPERATORS["*"](a, b)


def power(a, b):
    return OPERATORS["**"](a, b)


def add(a, b):
    return OPERATORS["+"](a, b)


def subtract(a, b):
    return OPERATORS["-"](a, b)


def divide(a, b):
    return OPERATORS["/"](a, b)
