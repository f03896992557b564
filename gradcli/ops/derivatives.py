"""Derivative formulas, written once per op as PyTorch's tools/autograd/derivatives.yaml writes
them, and compiled into everything that needs them.

An op declares, per differentiable input, one Python expression of its gradient `grad` (the
third argument of Op, where a VJP function used to be):

    Op("mul", forward, ("self: grad * other", "other: grad * self"), inputs=("self", "other"))

The names a formula may read are those of derivatives.yaml: `grad`, the op's inputs (`self`,
`other`, …), `result` (its output), its attributes (`dim`, `alpha`, …), `<input>_shape` and
`<input>_dtype` (an input's shape and dtype) and `shapes` (every input's shape).  Everything
else it names is a function: a helper registered here with @helper (FunctionsManual.cpp's
role: multi-step linear algebra, sorting, scatter), a Python builtin, an op of the table
(`where(...)`, `tanh_backward(...)`, as derivatives.yaml calls at:: functions) or `math`.
One entry may name several inputs (`self, other: helper(...)`), for a formula that returns one
gradient per input.  Forward-mode formulas are written the same way (jvp=...), of the tangents
`<input>_t`: `self: self_t.mm(mat2)` is input self's contribution to the output tangent (the
contributions of the inputs that have a tangent are summed); `result: ...` is one formula of
all tangents.

From one declaration come
- the functions the engine calls (compile_vjps, compile_jvps): each entry compiled once, at the
  op's first use, into `lambda grad, self, other: grad * other`, the same code a hand-written
  lambda would be; a formula that is `grad` alone is nodes.passthrough;
- what a formula may do with its gradient (gradcli.ops.formulas reads the expression's `ast`,
  attached to the compiled function as `fn.derivative`);
- the text that explain, :why and `gradcli ops` show (text): `grad * self.cos()` is shown as
  `d/dself = cos(self)`; a formula that is not the gradient times a local derivative is shown
  as derivatives.yaml writes it (`self: threshold_backward(grad, result, 0)`).
"""

import ast
import builtins
import math

HELPERS = {}   # name -> function that formulas may call
LAZY_HELPERS = {}  # name -> the lazy op module (gradcli.ops.lazy) that declares that helper


def _entry(entry):
    """The input names and the expression of one "name, name: expression" entry, or None."""
    names, colon, expression = entry.partition(":")
    names = tuple(name.strip() for name in names.split(","))
    return (names, expression) if colon and all(n.isidentifier() for n in names) else None


GRAD = "grad"


def _same_declaration(old, new):
    """Whether new is old declared again: its module imported again after an error stopped
    the import that declared old (a program's RecursionError, the timeout)."""
    names = [(getattr(f, "__module__", None), getattr(f, "__qualname__", None)) for f in (old, new)]
    return names[0] == names[1] and names[0][1] is not None


def helper(fn=None, *, name=None, shows=None):
    """Register fn as a function (or a constant) formulas may name, under its name (or `name`;
    the text shown drops a leading underscore).  `shows`: the text shown for a call of it
    (`{0}`, `{1}`, … its arguments) instead of its name and arguments, or a function of the
    call's argument trees that gives the expression tree to show.  Usable as @helper,
    @helper(shows=...) or helper(fn, name=...)."""
    def register(f):
        key = name or f.__name__
        if key in HELPERS and HELPERS[key] is not f and not _same_declaration(HELPERS[key], f):
            raise ValueError(f"derivative helper {key!r} is declared twice")
        HELPERS[key] = f
        if shows is not None:
            _SHOWS[key] = shows
        return f
    return register if fn is None else register(fn)


_SHOWS = {}
_LOCAL = {}  # function name -> template of the local derivative a call of it multiplies by


def show_local(name, template):
    """Show a call `name(grad, a, b, …)`, linear in its first argument (PyTorch's backward
    functions: threshold_backward, tanh_backward, …), as the gradient times template, whose
    {1}, {2}, … are the call's other arguments (`1 if {1} > {2} else 0`)."""
    _LOCAL[name] = template


class Formula:
    """One entry of a declaration: the inputs it is the gradient (or tangent) of, its source
    and its expression tree; once compiled, `params` (the compiled function's) and `attrs` (those
    of them that are the op's attributes)."""

    __slots__ = ("names", "source", "tree", "params", "attrs", "op_name")

    def __init__(self, names, source, op_name):
        self.names = names
        self.source = source
        self.op_name = op_name
        try:
            self.tree = ast.parse(source.strip(), mode="eval").body
        except SyntaxError as e:
            raise SyntaxError(f"op {op_name}: bad derivative formula {source.strip()!r}: "
                              f"{e.msg}") from None
        self.params = None
        self.attrs = ()

    def __repr__(self):
        return f"{', '.join(self.names)}: {self.source.strip()}"


def parse(spec, op_name):
    """A declaration (a "name: expression" string or a sequence of them) as Formulas."""
    if isinstance(spec, str):
        spec = (spec,)
    out = []
    for entry in spec:
        parsed = _entry(entry)
        if parsed is None:
            raise SyntaxError(f"op {op_name}: a derivative formula is `input: expression`, "
                              f"not {entry!r}")
        out.append(Formula(*parsed, op_name))
    return out


def is_declaration(spec):
    """Whether spec is a declaration in this form (rather than the engine's own "elementwise",
    "linear" or None)."""
    if isinstance(spec, str):
        return ":" in spec
    return isinstance(spec, (tuple, list)) and bool(spec) and all(
        isinstance(s, str) and ":" in s for s in spec)


def entry_names(spec):
    """The input names of each entry of a declaration, without parsing the expressions (for
    Op.__init__, at import)."""
    if isinstance(spec, str):
        spec = (spec,)
    names = []
    for entry in spec:
        parsed = _entry(entry)
        if parsed is None:
            raise SyntaxError(f"a derivative formula is `input: expression`, not {entry!r}")
        names.append(parsed[0])
    return names


# ------------------------------------------------------------------ compiling

def _bound_names(tree):
    """Names the expression binds itself (lambda parameters, comprehension targets)."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound


def _free_names(tree):
    bound = _bound_names(tree)
    seen = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound:
            if node.id not in seen:
                seen.append(node.id)
    return seen


def parameter_names(op, tangents=False):
    """Every name a formula of op may read as a parameter, in the order the compiled function
    takes them: the gradient first (for tangents: `<input>_t`), then inputs, result,
    attributes, shapes and dtypes (the order fixes only the order of what nodes save)."""
    inputs = [n.lstrip("*") for n in op.inputs]
    first = [f"{n}_t" for n in inputs] if tangents else [GRAD]
    return (first + inputs + ["result"] + list(op.attr_names) + [f"{n}_shape" for n in inputs]
            + [f"{n}_dtype" for n in inputs] + ["shapes"])


def _namespace(formula, params):
    """The globals of formula's function: each name it reads that is not a parameter."""
    from .registry import OPS
    names = {"__builtins__": builtins}
    for name in _free_names(formula.tree):
        if name in params:
            continue
        if name in LAZY_HELPERS and name not in HELPERS:
            from .lazy import load
            load(LAZY_HELPERS[name])
        if name in HELPERS:
            names[name] = HELPERS[name]
        elif name == "math":
            names[name] = math
        elif hasattr(builtins, name):
            continue
        elif name in OPS:
            names[name] = OPS[name]
        else:
            raise NameError(f"op {formula.op_name}: derivative formula {formula.source.strip()!r} "
                            f"names {name!r}, which is neither a parameter, a helper nor an op")
    return names


def _compile(formula, params, first, unpack=None):
    """The function of formula: its first parameter `first` (the gradient, or the tangents),
    then the parameters it reads, in the order of params."""
    used = set(_free_names(formula.tree))
    args = [first] + [p for p in params if p in used and p != first and p not in (unpack or ())]
    formula.params = tuple(args)
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in args],
                              kwonlyargs=[], kw_defaults=[], defaults=[])
    name = f"<derivative of {formula.op_name}: {formula!r}>"
    if unpack is None:
        tree = ast.Expression(ast.Lambda(args=arguments, body=formula.tree))
        code = compile(ast.fix_missing_locations(tree), name, "eval")
        fn = eval(code, _namespace(formula, set(params) | {first}))
    else:  # one formula of every input's tangent: `<input>_t, … = tangents` first
        target = ast.Tuple([ast.Name(n, ast.Store()) for n in unpack], ast.Store())
        body = [ast.Assign([target], ast.Name(first, ast.Load())), ast.Return(formula.tree)]
        fdef = ast.FunctionDef(name="jvp", args=arguments, body=body, decorator_list=[],
                               returns=None, type_comment=None)
        if hasattr(ast.FunctionDef, "type_params") or "type_params" in ast.FunctionDef._fields:
            fdef.type_params = []
        module = ast.Module([fdef], type_ignores=[])
        namespace = _namespace(formula, set(params) | {first})
        exec(compile(ast.fix_missing_locations(module), name, "exec"), namespace)
        fn = namespace.pop("jvp")
    fn.derivative = formula
    return fn


def _unknown(op, formula, names, what):
    for n in formula.names:
        if n not in names:
            raise NameError(f"op {op.name}: {what} formula for {n!r}, which is not an input")


def compile_vjps(op, spec, per_input):
    """The VJP of op's declaration spec as the engine takes it: one function, or (per_input)
    a tuple of one function or None per input."""
    from .nodes import passthrough
    formulas = parse(spec, op.name)
    inputs = [n.lstrip("*") for n in op.inputs]
    params = parameter_names(op)
    fns = {}
    for formula in formulas:
        _unknown(op, formula, inputs, "derivative")
        if isinstance(formula.tree, ast.Name) and formula.tree.id == GRAD:
            formula.params = (GRAD,)
            fn = passthrough
        else:
            fn = _compile(formula, params, GRAD)
            formula.attrs = tuple(a for a in op.attr_names if a in formula.params)
        for n in formula.names:
            if n in fns:
                raise ValueError(f"op {op.name}: two derivative formulas for {n!r}")
            fns[n] = fn
    if not per_input:
        return fns[formulas[0].names[0]]
    return tuple(fns.get(n) for n in inputs)


def compile_jvps(op, spec):
    """The JVP of op's declaration spec: a tuple of one function or None per input (each
    input's contribution, of `<input>_t`), or one function of all tangents (`result: ...`)."""
    formulas = parse(spec, op.name)
    inputs = [n.lstrip("*") for n in op.inputs]
    params = parameter_names(op, tangents=True)
    if len(formulas) == 1 and formulas[0].names == ("result",):
        formula = formulas[0]
        tangents = [f"{n}_t" for n in inputs]
        if len(inputs) == 1:
            return _compile(formula, params, tangents[0])
        return _compile(formula, params, "tangents", unpack=tangents)
    fns = {}
    for formula in formulas:
        _unknown(op, formula, inputs, "forward-mode")
        if len(formula.names) != 1:
            raise ValueError(f"op {op.name}: a forward-mode formula is one input's contribution")
        fns[formula.names[0]] = _compile(formula, params, f"{formula.names[0]}_t")
    return tuple(fns.get(n) for n in inputs)


# ------------------------------------------------------------------ text

def text(spec, op_name="?", values=None):
    """The text explain, :why and `gradcli ops` show for a VJP declaration: `d/dself = cos(self)`
    for `self: grad * self.cos()`; a formula that is not the gradient times a local derivative
    as derivatives.yaml writes it (`self: threshold_backward(grad, result, 0)`).  values:
    {attribute: number} to write in the attributes' place (explain: the values a node used;
    a conditional on them is then decided: `1 if alpha == 1 else alpha` is `1` at alpha=1)."""
    parts = []
    for formula in parse(spec, op_name):
        tree = _Fold(values).visit(formula.tree) if values else formula.tree
        local = _local_derivative(tree) if len(formula.names) == 1 else None
        if local is not None:
            parts.append(f"d/d{formula.names[0]} = {render(local)}")
        else:
            parts.append(f"{', '.join(formula.names)}: {render(tree)}")
    return "; ".join(parts)


class _Fold(ast.NodeTransformer):
    """Numbers in the place of the attributes that have one, and what that decides folded:
    a unary minus of a number, a comparison of numbers, a conditional on one."""

    _COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
                ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
                ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}

    def __init__(self, values):
        self.values = {k: v for k, v in values.items() if type(v) in (int, float)}

    def visit_Name(self, node):
        if node.id in self.values:
            return ast.Constant(self.values[node.id])
        return node

    def visit_UnaryOp(self, node):
        node = ast.UnaryOp(node.op, self.visit(node.operand))
        if (isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
                and type(node.operand.value) in (int, float)):
            return ast.Constant(-node.operand.value)
        return node

    def visit_Compare(self, node):
        node = ast.Compare(self.visit(node.left), node.ops, [self.visit(c) for c in node.comparators])
        operands = [node.left] + node.comparators
        if (len(node.ops) == 1 and type(node.ops[0]) in self._COMPARE
                and all(isinstance(o, ast.Constant) and type(o.value) in (int, float, bool)
                        for o in operands)):
            return ast.Constant(self._COMPARE[type(node.ops[0])](operands[0].value,
                                                                 operands[1].value))
        return node

    def visit_IfExp(self, node):
        test = self.visit(node.test)
        if isinstance(test, ast.Constant) and type(test.value) is bool:
            return self.visit(node.body if test.value else node.orelse)
        return ast.IfExp(test, self.visit(node.body), self.visit(node.orelse))


def _has_grad(tree):
    return any(isinstance(n, ast.Name) and n.id == GRAD for n in ast.walk(tree))


def _is_number(tree, value):
    return isinstance(tree, ast.Constant) and type(tree.value) in (int, float) and tree.value == value


def _local_derivative(tree):
    """tree divided by the gradient, where tree is the gradient times (or over) an expression
    without it; else None."""
    if isinstance(tree, ast.Name) and tree.id == GRAD:
        return ast.Constant(1)
    if isinstance(tree, ast.Constant) and tree.value == 0 and type(tree.value) in (int, float):
        return tree  # (zero: a branch that passes nothing back)
    if (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name)
            and tree.func.id == "zeros_like" and len(tree.args) == 1 and not tree.keywords
            and isinstance(tree.args[0], ast.Name) and tree.args[0].id == GRAD):
        return ast.Constant(0)
    if (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "where"
            and len(tree.args) == 3 and not tree.keywords and not _has_grad(tree.args[0])):
        chosen = [_local_derivative(a) for a in tree.args[1:]]
        if None in chosen:
            return None
        return ast.Call(tree.func, [tree.args[0]] + chosen, [])
    if (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name)
            and tree.func.id in ("_mul_s", "_div_s") and len(tree.args) == 2
            and not tree.keywords and _has_grad(tree.args[0]) and not _has_grad(tree.args[1])):
        # (C++'s Scalar product or quotient, `_mul_s(-grad, alpha)`: as the operator)
        op = ast.Mult() if tree.func.id == "_mul_s" else ast.Div()
        return _local_derivative(ast.BinOp(tree.args[0], op, tree.args[1]))
    if (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id in _LOCAL
            and tree.args and isinstance(tree.args[0], ast.Name) and tree.args[0].id == GRAD
            and not tree.keywords and not any(_has_grad(a) for a in tree.args[1:])):
        return _Shown(_LOCAL[tree.func.id].format(*[render(a) for a in tree.args]))
    if isinstance(tree, ast.IfExp) and not _has_grad(tree.test):
        body, orelse = _local_derivative(tree.body), _local_derivative(tree.orelse)
        if body is None or orelse is None:
            return None
        return ast.IfExp(tree.test, body, orelse)
    if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.USub):
        inner = _local_derivative(tree.operand)
        if inner is None:
            return None
        if isinstance(inner, ast.Constant) and type(inner.value) in (int, float):
            return ast.Constant(-inner.value)
        return ast.UnaryOp(ast.USub(), inner)
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, (ast.Mult, ast.Div)):
        left, right = _has_grad(tree.left), _has_grad(tree.right)
        if left and not right:
            inner = _local_derivative(tree.left)
            if inner is None:
                return None
            if _is_number(inner, 1):
                return tree.right if isinstance(tree.op, ast.Mult) else ast.BinOp(
                    ast.Constant(1), ast.Div(), tree.right)
            if _is_number(inner, -1) and isinstance(tree.op, ast.Mult):
                if isinstance(tree.right, ast.Constant) and type(tree.right.value) in (int, float):
                    return ast.Constant(-tree.right.value)  # (`-grad * -3`: 3)
                return ast.UnaryOp(ast.USub(), tree.right)
            return ast.BinOp(inner, tree.op, tree.right)
        if right and not left and isinstance(tree.op, ast.Mult):
            inner = _local_derivative(tree.right)
            if inner is None:
                return None
            return tree.left if _is_number(inner, 1) else ast.BinOp(tree.left, ast.Mult(), inner)
    return None


class _Shown(ast.expr):
    """A local derivative shown as a text (show_local)."""
    _fields = ("text",)


_BINARY = {ast.Add: ("+", 4), ast.Sub: ("-", 4), ast.Mult: ("*", 5), ast.Div: ("/", 5),
           ast.FloorDiv: ("//", 5), ast.Mod: ("%", 5), ast.MatMult: ("@", 5), ast.Pow: ("^", 7),
           ast.BitAnd: ("&", 3), ast.BitOr: ("|", 1), ast.BitXor: ("xor", 2)}
_UNARY = {ast.USub: ("-", 6), ast.UAdd: ("+", 6), ast.Invert: ("~", 6), ast.Not: ("not ", 0)}
_COMPARE = {ast.Gt: ">", ast.GtE: ">=", ast.Lt: "<", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!=",
            ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_ATOM = 9
# methods shown as functions when called without arguments (`self.cos()` is `cos(self)`),
# but for these, which read as something else then
_METHODS_AS_METHODS = frozenset({"dim", "numel", "size", "detach", "clone", "float", "double",
                                 "item", "tolist", "contiguous"})
_PRODUCTS = frozenset({"mm", "matmul", "bmm", "mv"})  # x.mm(y) is x @ y


def render(tree):
    """A formula's expression as text: Python's with `^` for powers (`x * x` is `x^2`),
    methods as functions (`self.cos()` is `cos(self)`), `x.mT` as `x^T` and `math.` dropped."""
    return _render(tree)[0]


def _number(value):
    if type(value) is float and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def _wrap(part, below):
    text, prec = part
    return f"({text})" if prec < below else text


def _render(tree):
    """(text, precedence) of tree."""
    if isinstance(tree, _Shown):
        return tree.text, 0.1
    if isinstance(tree, ast.Constant):
        if type(tree.value) in (int, float):
            text = _number(tree.value)
            return text, (6 if text.startswith("-") else _ATOM)
        return repr(tree.value), _ATOM
    if isinstance(tree, ast.Name):
        return tree.id.lstrip("_") or tree.id, _ATOM
    if isinstance(tree, ast.BinOp):
        if (isinstance(tree.op, ast.Mult) and ast.dump(tree.left) == ast.dump(tree.right)
                and _render(tree.left)[1] == _ATOM):
            return f"{_render(tree.left)[0]}^2", 7
        symbol, prec = _BINARY[type(tree.op)]
        left, right = _render(tree.left), _render(tree.right)
        if isinstance(tree.op, ast.Pow):  # right-associative
            return f"{_wrap(left, prec + 1)}^{_wrap(right, prec)}", prec
        space = "" if symbol == "/" and left[1] == _ATOM and right[1] == _ATOM else " "
        return f"{_wrap(left, prec)}{space}{symbol}{space}{_wrap(right, prec + 1)}", prec
    if isinstance(tree, ast.UnaryOp):
        symbol, prec = _UNARY[type(tree.op)]
        return f"{symbol}{_wrap(_render(tree.operand), prec)}", prec
    if isinstance(tree, ast.Compare):
        parts = [_wrap(_render(tree.left), 1)]
        for op, right in zip(tree.ops, tree.comparators):
            parts += [_COMPARE[type(op)], _wrap(_render(right), 1)]
        return " ".join(parts), 0.5
    if isinstance(tree, ast.BoolOp):
        word = " and " if isinstance(tree.op, ast.And) else " or "
        return word.join(_wrap(_render(v), 0.5) for v in tree.values), 0.2
    if isinstance(tree, ast.IfExp):
        return (f"{_wrap(_render(tree.body), 0.2)} if {_wrap(_render(tree.test), 0.2)} else "
                f"{_wrap(_render(tree.orelse), 0.1)}"), 0.1
    if isinstance(tree, ast.Attribute):
        if isinstance(tree.value, ast.Name) and tree.value.id == "math":
            return tree.attr, _ATOM
        if tree.attr in ("mT", "T"):
            return f"{_wrap(_render(tree.value), _ATOM)}^T", 7
        return f"{_wrap(_render(tree.value), _ATOM)}.{tree.attr}", _ATOM
    if isinstance(tree, ast.Subscript):
        index = tree.slice
        inner = (", ".join(_slice(e) for e in index.elts) if isinstance(index, ast.Tuple)
                 else _slice(index))
        return f"{_wrap(_render(tree.value), _ATOM)}[{inner}]", _ATOM
    if isinstance(tree, ast.Call):
        args = [render(a) for a in tree.args] + [f"{k.arg}={render(k.value)}" if k.arg
                                                 else f"**{render(k.value)}" for k in tree.keywords]
        func = tree.func
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id == "math":
                name = func.attr
            elif (func.attr == "apply" and len(tree.args) == 2 and not tree.keywords
                  and all(isinstance(a, ast.Tuple) for a in tree.args)):
                # an op of the table applied to (inputs) and (attributes)
                parts = [render(e) for a in tree.args for e in a.elts]
                return f"{_render(func.value)[0].lstrip('_')}({', '.join(parts)})", _ATOM
            elif func.attr in ("t", "mT") and not args:
                return f"{_wrap(_render(func.value), _ATOM)}^T", 7
            elif func.attr in _PRODUCTS and len(tree.args) == 1 and not tree.keywords:
                left, right = _render(func.value), _render(tree.args[0])
                return f"{_wrap(left, 5)} @ {_wrap(right, 6)}", 5
            elif args or func.attr in _METHODS_AS_METHODS:
                return f"{_wrap(_render(func.value), _ATOM)}.{func.attr}({', '.join(args)})", _ATOM
            else:  # a method without arguments: as a function of its object
                name = func.attr
                args = [render(func.value)]
        elif isinstance(func, ast.Name):
            name = func.id
            if name in _SHOWS:
                shown = _SHOWS[name]
                if callable(shown):  # the expression tree to show, of the argument trees
                    return _render(shown(*tree.args))
                return shown.format(*args), 0
            name = name.lstrip("_")
        else:
            return ast.unparse(tree), _ATOM
        return f"{name}({', '.join(args)})", _ATOM
    if isinstance(tree, (ast.Tuple, ast.List)):
        inner = ", ".join(render(e) for e in tree.elts)
        if isinstance(tree, ast.List):
            return f"[{inner}]", _ATOM
        return f"({inner},)" if len(tree.elts) == 1 else f"({inner})", _ATOM
    return ast.unparse(tree), _ATOM


def _slice(tree):
    return ast.unparse(tree) if isinstance(tree, ast.Slice) else render(tree)
