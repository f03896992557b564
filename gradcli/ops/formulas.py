"""What a VJP formula does with its gradient, read from the formula's expression tree.

Two fast paths of the engine depend on the shape of an op's VJP formulas (the declarations of
gradcli.ops.derivatives, compiled into functions that carry their Formula as `fn.derivative`):

- float_formula(fn): whether the formula gives on Python floats what it gives on 0-d float64
  tensors (registry._on_floats), so that a scalar graph's backward pass needs no tensor per node;
- reads_gradient_once_by_operator(fn): whether the formula reads its gradient exactly once, as an
  operand of + - * / or unary -, so that the operator may compute into the gradient's array.

Both are answered from the formula's `ast`, never by running it, so the answer depends only on
what the formula says: it is the same on every Python.  A function without a declaration (one
written by hand) takes neither fast path.
"""

import ast

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_NUMBERS = (int, float)  # constants a float formula may use (exact types: True is refused)
# helpers that are C++'s Scalar arithmetic (gradcli.ops.backward_ops: `_mul_s(t, s)` is t * s,
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
    which Tensor computes as a reciprocal times the number), and of methods of the saved
    values (every parameter but the gradient) for which float_method(name) is true, called
    without arguments.  No other name (global, helper, op).  None when not, else whether the
    formula calls such methods (its saved values are then passed as registry._FloatArg)."""
    formula = _declaration(fn)
    if formula is None:
        return None
    grad = formula.params[0]
    params = set(formula.params)
    methods = []

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


# ------------------------------------------------------------------------------- donation

_BRANCHES = (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
             ast.GeneratorExp, ast.NamedExpr, ast.Starred)


def reads_gradient_once_by_operator(fn):
    """Whether VJP fn reads its gradient (its first parameter) exactly once, as an operand of
    +, -, * or / (or unary -), so that the operator's op may compute into the gradient's array:
    nothing in fn reads the gradient after that operator has run.
    A formula that passes the gradient to a call or a container, reads an attribute of it,
    reads it twice, is the gradient itself, or branches or loops (`and`/`or`, a comprehension,
    a chained comparison, a conditional expression inside it) answers False; a formula that is
    a conditional expression `a if test else b`, the test not reading the gradient, answers
    whether both a and b read it so."""
    formula = _declaration(fn)
    if formula is None:
        return False
    return _reads_once_by_operator(formula.tree, formula.params[0])


def _reads_once_by_operator(tree, grad):
    if isinstance(tree, ast.IfExp):  # each branch, where the test does not read the gradient
        if any(isinstance(n, ast.Name) and n.id == grad for n in ast.walk(tree.test)):
            return False
        return (_reads_once_by_operator(tree.body, grad)
                and _reads_once_by_operator(tree.orelse, grad))
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == grad]
    if len(reads) != 1 or tree is reads[0]:
        return False
    for node in ast.walk(tree):
        if isinstance(node, _BRANCHES):
            return False
        if isinstance(node, ast.Compare) and (
                len(node.ops) > 1 or isinstance(node.ops[0], (ast.In, ast.NotIn, ast.Is, ast.IsNot))):
            return False
    read = reads[0]
    return any(isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC)
               and (read is node.left or read is node.right)
               or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
               and read is node.operand for node in ast.walk(tree))
