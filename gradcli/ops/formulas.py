"""What a VJP formula does with its gradient, read from the formula's expression tree.

One fast path of the engine depends on the shape of an op's VJP formulas (the declarations of
gradcli.ops.derivatives, compiled into functions that carry their Formula as `fn.derivative`):
float_formula(fn), whether the formula gives on Python floats what it gives on 0-d float64
tensors (dispatch._on_floats), so that a scalar graph's backward pass needs no tensor per node.

It is answered from the formula's `ast`, never by running it, so the answer depends only on
what the formula says: it is the same on every Python.  A function without a declaration (one
written by hand) does not take it.
"""

import ast

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_NUMBERS = (int, float)  # constants a float formula may use (exact types: True is refused)
# helpers that are C++'s Scalar arithmetic (gradcli.ops.arith: `_mul_s(t, s)` is t * s,
# MulBackward1), which compute on 0-d float64 tensors what the operator computes on floats
# (and which take Python floats): read as their operator, the first argument its left operand
ARITHMETIC_HELPERS = {"_mul_s": ast.Mult, "_add_s": ast.Add, "_sub_s": ast.Sub,
                      "_div_s": ast.Div}


class _Refused(Exception):
    """The formula does something the fast path cannot follow."""


def _declaration(fn):
    formula = getattr(fn, "derivative", None)
    if formula is None or not formula.params:
        return None
    return formula


# ------------------------------------------------------------------------- float formulas

def float_formula(fn, float_method):
    """Whether VJP fn gives on Python floats what it gives on 0-d float64 tensors: made only of
    + - * / and unary - on its parameters and on int or float constants (not `number / value`,
    which Tensor computes as a reciprocal times the number), of methods of the saved values
    (every parameter but the gradient) for which float_method(name) is true, called without
    arguments, and of `a if <test> else b` whose test compares only the op's attributes (the
    parameters formula.attrs names: the same values in both runs) and constants (add's
    `grad if alpha == 1 else _mul_s(grad, alpha)`).  No other name (global, helper, op).  None
    when not, else whether the formula calls such methods (its saved values are then passed as
    dispatch._FloatArg)."""
    formula = _declaration(fn)
    if formula is None:
        return None
    grad = formula.params[0]
    params = set(formula.params)
    attrs = set(formula.attrs)
    methods = []

    def plain(node):
        """Whether test node reads only attributes and number constants (a comparison of them,
        `and`, `or`, `not`)."""
        if isinstance(node, ast.Constant):
            return type(node.value) in _NUMBERS or node.value is None
        if isinstance(node, ast.Name):
            return node.id in attrs
        if isinstance(node, ast.Compare):
            return plain(node.left) and all(map(plain, node.comparators))
        if isinstance(node, ast.BoolOp):
            return all(map(plain, node.values))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            return plain(node.operand)
        return False

    def kind(node):
        """"const" for an expression of numbers only, "value" for one of the parameters."""
        if isinstance(node, ast.Constant):
            if type(node.value) in _NUMBERS:
                return "const"
            raise _Refused
        if isinstance(node, ast.Name):
            if node.id in params:
                return "value"
            raise _Refused
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
            left, right = kind(node.left), kind(node.right)
            if isinstance(node.op, ast.Div) and left == "const" and right == "value":
                raise _Refused
            return "value" if "value" in (left, right) else "const"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ARITHMETIC_HELPERS and len(node.args) == 2
                and not node.keywords):
            kind(node.args[1])
            if kind(node.args[0]) != "value":  # (the helper tells a float run by t)
                raise _Refused
            return "value"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "pow" and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.Constant) and type(node.args[0].value) is int
                and node.args[0].value in (2, 3) and isinstance(node.func.value, ast.Name)
                and node.func.value.id in params and node.func.value.id != grad
                and float_method("pow")):
            # (x.pow(2), x.pow(3): PyTorch's kernel computes x*x and x*x*x, as floats do)
            methods.append("pow")
            return "value"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return kind(node.operand)
        if isinstance(node, ast.IfExp) and plain(node.test):
            body, orelse = kind(node.body), kind(node.orelse)
            return "value" if "value" in (body, orelse) else "const"
        if (isinstance(node, ast.Call) and not node.args and not node.keywords
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id in params
                and node.func.value.id != grad and not node.func.attr.startswith("__")
                and float_method(node.func.attr)):
            methods.append(node.func.attr)
            return "value"
        raise _Refused

    try:
        kind(formula.tree)
    except _Refused:
        return None
    return bool(methods)
