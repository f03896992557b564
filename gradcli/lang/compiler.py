"""AST -> Python `ast` -> code object.  Python then gives the program Python's exact semantics
(scopes, closures, defaults, unpacking, f-strings) at Python's speed, while the sandbox keeps
its reach: names and attributes starting with `_` are refused here, and every attribute access
and store, call, import, arithmetic operator and f-string field goes through a guard
(gradcli.lang.sandbox) that the program cannot name, since its name starts with `_`.

The guards are kept cheap, as a loop pays for them on every iteration: attribute names are
checked here once (they are literal); a call `f(x)` is `_callable(f)(x)`, so that Python itself
passes the arguments; an operator with a number literal operand that its guard would let
through unchecked (`w * 3.0`, `n + 1`) is Python's own operator."""

import ast as py
import sys
from dataclasses import dataclass, field

from . import ast as A
from .errors import ProgramError, too_deep
from .limits import compile_recursion
from .sandbox import (GUARD_NAMES, OPERATORS, READABLE_ATTRIBUTE, UNCHECKED_OPERANDS,
                      inplace_guard_name)

BINARY_GUARDS = {op: guard for op, (guard, *_) in OPERATORS.items()}
INPLACE_GUARDS = {op: inplace_guard_name(guard) for op, guard in BINARY_GUARDS.items()}
PYTHON_OPERATORS = {"+": py.Add, "-": py.Sub, "*": py.Mult, "/": py.Div, "//": py.FloorDiv,
                    "%": py.Mod, "**": py.Pow, "@": py.MatMult, "&": py.BitAnd, "|": py.BitOr}
UNARY = {"+": py.UAdd, "-": py.USub, "~": py.Invert, "not": py.Not}
BOOL = {"and": py.And, "or": py.Or}
COMPARE = {"<": py.Lt, ">": py.Gt, "==": py.Eq, ">=": py.GtE, "<=": py.LtE, "!=": py.NotEq,
           "in": py.In, "not in": py.NotIn, "is": py.Is, "is not": py.IsNot}
COMPREHENSIONS = {"list": py.ListComp, "set": py.SetComp, "generator": py.GeneratorExp}
# CPython 3.10 runs no signal handler at a jump to a `try` or `with` block's setup, so a loop
# of nothing but one (`while True: try: ...`) would never see the timeout's alarm nor Ctrl-C:
# there each such block starts after a call of `_tick`, where handlers run.
TICK_BEFORE_BLOCKS = sys.version_info < (3, 11)


@dataclass
class Program:
    """A compiled program: its code, and what `gradcli eval` needs to pick a default output.

    outputs lists, in source order, ("name", NAME) for each name assigned outside functions
    and classes, and ("expr", TEXT) for each top-level expression statement (whose value the
    guard `_expr` records under the statement's index in this list)."""
    code: object
    outputs: list = field(default_factory=list)


def compile_program(module, echo=False, filename="<program>", source=""):
    """Compile a Module; echo=True makes expression statements print their value (as Python's
    interactive mode does: also inside loops and ifs, never inside functions)."""
    lowering = Lowering(echo)
    try:
        with compile_recursion():
            tree = py.Module(body=lowering.body(module.body, top=True), type_ignores=[])
            py.fix_missing_locations(tree)
            code = compile(tree, filename, "exec", dont_inherit=True)
    except ProgramError as e:
        lines = source.split("\n")
        if e.is_syntax_error and e.line and e.line <= len(lines) and e.source_line is None:
            e.source_line = lines[e.line - 1]
        raise
    except SyntaxError as e:
        lines = source.split("\n")
        line = e.lineno if e.lineno and e.lineno <= len(lines) else None
        raise ProgramError("SyntaxError", e.msg, line, e.offset,
                           lines[line - 1] if line else None) from None
    except RecursionError:
        raise too_deep() from None
    return Program(code, lowering.outputs)


def compile_expression(node, filename="<expression>"):
    """Compile one expression for eval()."""
    try:
        with compile_recursion():
            tree = py.Expression(body=Lowering(False).expr(node))
            py.fix_missing_locations(tree)
            return compile(tree, filename, "eval", dont_inherit=True)
    except RecursionError:
        raise too_deep() from None


def _unchecked(op, left, right):
    """Would the operator's guard skip its size check, whatever the other operand?  (It does when
    an operand is a number literal of a type in UNCHECKED_OPERANDS: `x * 2.0`, `n + 1`.)"""
    unchecked = UNCHECKED_OPERANDS[op]
    return any(isinstance(node, A.Constant) and type(node.value) in unchecked
               for node in ((left,) if op == "%" else (left, right)))


def _guard(name, *args, keywords=()):
    return py.Call(func=py.Name(id=name, ctx=py.Load()), args=list(args), keywords=list(keywords))


class Lowering:
    """Turns gradcli AST nodes into Python AST nodes, one method per node class."""

    def __init__(self, echo):
        self.echo = echo
        self.scope_depth = 0          # > 0 inside def, lambda and class bodies
        self.outputs = []
        # the enclosing scopes, innermost last: ("class", None) or ("function", first parameter)
        self.scopes = []
        # the loops and finally blocks around the statement, innermost last, in its function
        self.blocks = []

    # ------------------------------------------------------------------ helpers
    def at(self, py_node, node):
        py_node.lineno = py_node.end_lineno = max(node.line, 1)
        py_node.col_offset = py_node.end_col_offset = max(node.col - 1, 0)
        return py_node

    def name(self, name, node, load=False):
        """A program's name: one `_` may start it (`_grad_out`, `_`), two may not (but the
        module's `__name__` may be read), nor may it be the name of a guard (`_getattr`)."""
        if name.startswith("__") and not (load and name == "__name__"):
            raise ProgramError("NameError", f"names starting with '__' are not allowed: "
                               f"'{name}'", node.line or None, node.col or None)
        if name in GUARD_NAMES:
            raise ProgramError("NameError", f"'{name}' is a name gradcli reserves for itself",
                               node.line or None, node.col or None)
        return name

    def expr(self, node, ctx=None):
        if node is None:
            return None
        return self.at(getattr(self, "expr_" + type(node).__name__)(node, ctx or py.Load()), node)

    def exprs(self, nodes, ctx=None):
        return [self.expr(n, ctx) for n in nodes]

    def body(self, statements, top=False):
        out = []
        for s in statements:
            for lowered in getattr(self, "stmt_" + type(s).__name__)(s, top):
                out.append(self.at(lowered, s) if not hasattr(lowered, "lineno") else lowered)
        return out

    def nested(self, statements):
        return self.body(statements) or [py.Pass()]

    # ------------------------------------------------------------------ expressions
    def expr_Name(self, node, ctx):
        return py.Name(id=self.name(node.id, node, load=isinstance(ctx, py.Load)), ctx=ctx)

    def expr_Constant(self, node, ctx):
        return py.Constant(value=node.value)

    def expr_JoinedStr(self, node, ctx):
        values = []
        for part in node.values:
            if isinstance(part, A.Constant):
                values.append(py.Constant(value=part.value))
            else:
                spec = self.expr(part.spec) if part.spec else py.Constant(value="")
                call = self.at(_guard("_format_field", self.expr(part.value),
                                      py.Constant(value=part.conversion), spec), part)
                values.append(py.FormattedValue(value=call, conversion=-1, format_spec=None))
        return py.JoinedStr(values=values)

    def expr_Tuple(self, node, ctx):
        return py.Tuple(elts=self.exprs(node.elts, ctx), ctx=ctx)

    def expr_List(self, node, ctx):
        return py.List(elts=self.exprs(node.elts, ctx), ctx=ctx)

    def expr_Set(self, node, ctx):
        return py.Set(elts=self.exprs(node.elts))

    def expr_Dict(self, node, ctx):
        return py.Dict(keys=[self.expr(k) for k in node.keys], values=self.exprs(node.values))

    def expr_Starred(self, node, ctx):
        return py.Starred(value=self.expr(node.value, ctx), ctx=ctx)

    def expr_Comprehension(self, node, ctx):
        generators = [py.comprehension(target=self.expr(g.target, py.Store()),
                                       iter=self.expr(g.iter), ifs=self.exprs(g.ifs),
                                       is_async=0) for g in node.generators]
        if node.kind == "dict":
            return py.DictComp(key=self.expr(node.elt), value=self.expr(node.value),
                               generators=generators)
        return COMPREHENSIONS[node.kind](elt=self.expr(node.elt), generators=generators)

    def expr_Attribute(self, node, ctx):
        value = self.expr(node.value)
        load = isinstance(ctx, py.Load)
        attr = self.attribute_name(node, readable=READABLE_ATTRIBUTE if load else None)
        if load:
            return _guard("_getattr", value, py.Constant(value=attr))
        target = self.at(_guard("_store_target", value, py.Constant(value=attr)), node)
        return py.Attribute(value=target, attr=attr, ctx=ctx)

    def attribute_name(self, node, readable=None):
        """node's attribute name; one starting with `_` only where readable (a pattern) matches
        it (grad_fn._saved_self: the sandbox checks the receiver when it runs)."""
        if node.attr.startswith("_") and not (readable and readable.fullmatch(node.attr)):
            raise ProgramError("AttributeError", f"attributes starting with '_' are not "
                               f"allowed: '{node.attr}'", node.line or None, node.col or None)
        return node.attr

    def expr_Subscript(self, node, ctx):
        return py.Subscript(value=self.expr(node.value), slice=self.expr(node.index), ctx=ctx)

    def expr_Slice(self, node, ctx):
        return py.Slice(lower=self.expr(node.lower), upper=self.expr(node.upper),
                        step=self.expr(node.step))

    def expr_Call(self, node, ctx):
        """`f(x)` is `_callable(f)(x)`: one check of f, and Python passes the arguments.
        `super()` in a method is `super(__class__, self)` (the sandbox's super checks both)."""
        func = self.at(_guard("_callable", self.expr(node.func)), node)
        if self.zero_argument_super(node):
            return py.Call(func=func, args=[py.Name(id="__class__", ctx=py.Load()),
                                            py.Name(id=self.scopes[-1][1], ctx=py.Load())],
                           keywords=[])
        keywords = [self.at(py.keyword(arg=k.arg and self.name(k.arg, k),
                                       value=self.expr(k.value)), k) for k in node.keywords]
        return py.Call(func=func, args=self.exprs(node.args), keywords=keywords)

    def expr_BinOp(self, node, ctx):
        left, right = self.expr(node.left), self.expr(node.right)
        if _unchecked(node.op, node.left, node.right):
            return py.BinOp(left=left, op=PYTHON_OPERATORS[node.op](), right=right)
        return _guard(BINARY_GUARDS[node.op], left, right)

    def expr_UnaryOp(self, node, ctx):
        return py.UnaryOp(op=UNARY[node.op](), operand=self.expr(node.operand))

    def expr_BoolOp(self, node, ctx):
        return py.BoolOp(op=BOOL[node.op](), values=self.exprs(node.values))

    def expr_Compare(self, node, ctx):
        compare = py.Compare(left=self.expr(node.left), ops=[COMPARE[o]() for o in node.ops],
                             comparators=self.exprs(node.comparators))
        # two arrays may broadcast to a result past the element limit: checked after (an
        # operand that is a literal cannot broadcast, so `x < 0` in a loop pays nothing)
        if sum(not isinstance(n, A.Constant) for n in (node.left, *node.comparators)) < 2:
            return compare
        return _guard("_compared", compare)

    def expr_IfExp(self, node, ctx):
        return py.IfExp(test=self.expr(node.test), body=self.expr(node.body),
                        orelse=self.expr(node.orelse))

    def zero_argument_super(self, node):
        return (isinstance(node.func, A.Name) and node.func.id == "super" and not node.args and
                not node.keywords and len(self.scopes) >= 2 and self.scopes[-1][0] == "function"
                and self.scopes[-1][1] is not None and self.scopes[-2][0] == "class")

    def expr_Lambda(self, node, ctx):
        args = self.arguments(node.params)
        return self.in_scope(lambda: py.Lambda(args=args, body=self.expr(node.body)),
                             ("function", None))

    def arguments(self, params):
        """Python's `arguments` node from a validated parameter list."""
        args, kwonly, kw_defaults, defaults, vararg, kwarg = [], [], [], [], None, None
        for p in params:
            arg = self.at(py.arg(arg=self.name(p.name, p) if p.name else "",
                                 annotation=self.expr(p.annotation)), p)
            if p.kind == "positional":
                args.append(arg)
                if p.default is not None:
                    defaults.append(self.expr(p.default))
            elif p.kind == "keyword_only":
                kwonly.append(arg)
                kw_defaults.append(self.expr(p.default))
            elif p.kind == "star":
                vararg = arg if p.name else None
            else:
                kwarg = arg
        return py.arguments(posonlyargs=[], args=args, vararg=vararg, kwonlyargs=kwonly,
                            kw_defaults=kw_defaults, kwarg=kwarg, defaults=defaults)

    # ------------------------------------------------------------------ statements
    def stmt_Expr(self, node, top):
        value = self.expr(node.value)
        if isinstance(node.value, A.Starred):
            # `*x` alone: left unwrapped (as an argument of `_expr` it would be unpacked), so
            # that Python's compiler reports its SyntaxError, "can't use starred expression here"
            return [py.Expr(value=value)]
        if top and self.scope_depth == 0:
            self.outputs.append(("expr", node.text))
            return [py.Expr(value=_guard("_expr", py.Constant(value=len(self.outputs) - 1),
                                         value))]
        if self.echo and self.scope_depth == 0:
            return [py.Expr(value=_guard("_expr", py.Constant(value=None), value))]
        return [py.Expr(value=value)]

    def note_assigned(self, target):
        if self.scope_depth:
            return
        if isinstance(target, A.Name):
            self.outputs.append(("name", target.id))
        elif isinstance(target, (A.Tuple, A.List)):
            for elt in target.elts:
                self.note_assigned(elt)
        elif isinstance(target, A.Starred):
            self.note_assigned(target.value)

    def stmt_Assign(self, node, top):
        value = self.expr(node.value)
        targets = self.exprs(node.targets, py.Store())
        for t in node.targets:
            self.note_assigned(t)
        return [py.Assign(targets=targets, value=value)]

    def stmt_AugAssign(self, node, top):
        """`t op= v` calls the in-place guard: `t = _iop_add(t, v)` for a name,
        `_inplace_attr(obj, name, _iop_add, v)` and `_inplace_item(obj, key, _iop_add, v)` for
        attributes and items (object and key evaluated once).  Where the guard would skip its
        check (`n += 1`, `v[i] *= 0.5`), names and items get Python's own augmented assignment."""
        target, op = node.target, node.op[:-1]
        value = self.expr(node.value)
        if isinstance(target, A.Name):
            self.note_assigned(target)
        if not isinstance(target, A.Attribute) and _unchecked(op, None, node.value):
            return [py.AugAssign(target=self.expr(target, py.Store()),
                                 op=PYTHON_OPERATORS[op](), value=value)]
        guard = py.Name(id=INPLACE_GUARDS[op], ctx=py.Load())
        if isinstance(target, A.Name):
            return [py.Assign(targets=[self.expr(target, py.Store())],
                              value=_guard(INPLACE_GUARDS[op], self.expr(target), value))]
        if isinstance(target, A.Attribute):
            call = _guard("_inplace_attr", self.expr(target.value),
                          py.Constant(value=self.attribute_name(target)), guard, value)
        else:
            call = _guard("_inplace_item", self.expr(target.value), self.expr(target.index),
                          guard, value)
        return [py.Expr(value=call)]

    def stmt_Delete(self, node, top):
        return [py.Delete(targets=self.exprs(node.targets, py.Del()))]

    def stmt_Pass(self, node, top):
        return [py.Pass()]

    def leaving_finally(self, what, node, loop_ends_it):
        """Refuse a jump out of a finally block: it would drop the exception the block runs for
        (the timeout's too), as PEP 765 has Python 3.14 warn."""
        for block in reversed(self.blocks):
            if block == "loop" and loop_ends_it:
                return
            if block == "finally":
                raise ProgramError("SyntaxError", f"`{what}` in a `finally` block is not "
                                   f"supported in gradcli programs (it would drop the "
                                   f"exception that the block runs for)", node.line, node.col)

    def stmt_Break(self, node, top):
        self.leaving_finally("break", node, True)
        return [py.Break()]

    def stmt_Continue(self, node, top):
        self.leaving_finally("continue", node, True)
        return [py.Continue()]

    def stmt_Return(self, node, top):
        self.leaving_finally("return", node, False)
        return [py.Return(value=self.expr(node.value))]

    def stmt_Raise(self, node, top):
        """`raise E from C`: E and C pass `_raisable` (Exception's kin only)."""
        exc = cause = None
        if node.exc is not None:
            exc = _guard("_raisable", self.expr(node.exc))
        if node.cause is not None:
            cause = _guard("_raisable", self.expr(node.cause))
        return [py.Raise(exc=exc, cause=cause)]

    def stmt_Global(self, node, top):
        return [py.Global(names=[self.name(n, node) for n in node.names])]

    def stmt_Nonlocal(self, node, top):
        return [py.Nonlocal(names=[self.name(n, node) for n in node.names])]

    def stmt_Try(self, node, top):
        """An `except T` clause catches `_catchable(T)` (the Exception kin of T: never the
        timeout or Ctrl-C), and its body starts with `_caught()`, which lets through an
        exception raised while one of those was on its way (from a finally block)."""
        handlers = []
        for h in node.handlers:
            kind = self.expr(h.type) if h.type is not None else py.Constant(value=None)
            check = self.at(py.Expr(value=_guard("_caught")), h)
            handlers.append(self.at(py.ExceptHandler(
                type=self.at(_guard("_catchable", kind), h),
                name=h.name and self.name(h.name, h), body=[check] + self.body(h.body)), h))
        body = self.nested(node.body)
        orelse = self.body(node.orelse)
        self.blocks.append("finally")
        try:
            final = self.body(node.finalbody)
        finally:
            self.blocks.pop()
        return self.ticked(py.Try(body=body, handlers=handlers, orelse=orelse, finalbody=final),
                           node)

    def ticked(self, block, node):
        if not TICK_BEFORE_BLOCKS:
            return [block]
        return [self.at(py.Expr(value=_guard("_tick")), node), block]

    def stmt_Assert(self, node, top):
        return [py.Assert(test=self.expr(node.test), msg=self.expr(node.msg))]

    def stmt_Import(self, node, top):
        out = []
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            call = _guard("_import", py.Constant(value=alias.name),
                          py.Constant(value=alias.asname is not None))
            out.append(self.at(py.Assign(targets=[py.Name(id=self.name(bound, alias),
                                                          ctx=py.Store())], value=call), alias))
        return out

    def stmt_ImportFrom(self, node, top):
        module = py.Constant(value=node.module)
        if not node.names:
            if self.scope_depth:
                raise ProgramError("SyntaxError", "import * only allowed at module level",
                                   node.line, node.col)
            return [py.Expr(value=_guard("_import_star", module))]
        out = []
        for alias in node.names:
            bound = self.name(alias.asname or alias.name, alias)
            call = _guard("_import_from", module, py.Constant(value=alias.name))
            out.append(self.at(py.Assign(targets=[py.Name(id=bound, ctx=py.Store())],
                                         value=call), alias))
        return out

    def stmt_If(self, node, top):
        return [py.If(test=self.expr(node.test), body=self.nested(node.body),
                      orelse=self.body(node.orelse))]

    def loop_body(self, statements):
        self.blocks.append("loop")
        try:
            return self.nested(statements)
        finally:
            self.blocks.pop()

    def stmt_While(self, node, top):
        return [py.While(test=self.expr(node.test), body=self.loop_body(node.body),
                         orelse=self.body(node.orelse))]

    def stmt_For(self, node, top):
        return [py.For(target=self.expr(node.target, py.Store()), iter=self.expr(node.iter),
                       body=self.loop_body(node.body), orelse=self.body(node.orelse))]

    def stmt_With(self, node, top):
        items = [py.withitem(context_expr=self.expr(i.context),
                             optional_vars=self.expr(i.target, py.Store())) for i in node.items]
        return self.ticked(py.With(items=items, body=self.nested(node.body)), node)

    def in_scope(self, lower, scope):
        self.scope_depth += 1
        self.scopes.append(scope)
        blocks, self.blocks = self.blocks, []
        try:
            return lower()
        finally:
            self.scope_depth -= 1
            self.scopes.pop()
            self.blocks = blocks

    def decorators(self, nodes):
        """`@d` calls d(function) as `f(x)` calls f: through `_callable(d)`."""
        return [self.at(_guard("_callable", self.expr(d)), d) for d in nodes]

    def stmt_FunctionDef(self, node, top):
        decorators = self.decorators(node.decorators)
        args = self.arguments(node.params)
        returns = self.expr(node.returns)
        first = node.params[0].name if node.params and node.params[0].kind == "positional" \
            else None
        body = self.in_scope(lambda: self.nested(node.body), ("function", first))
        in_class = bool(self.scopes) and self.scopes[-1][0] == "class"
        # (a class of the program may have its own __init__, as nn.Module's subclasses do)
        name = node.name if in_class and node.name == "__init__" else self.name(node.name, node)
        return [py.FunctionDef(name=name, args=args, body=body,
                               decorator_list=decorators, returns=returns, type_comment=None)]

    def stmt_ClassDef(self, node, top):
        decorators = self.decorators(node.decorators)
        bases = self.exprs(node.bases)
        keywords = [self.at(py.keyword(arg=k.arg and self.name(k.arg, k),
                                       value=self.expr(k.value)), k) for k in node.keywords]
        body = self.in_scope(lambda: self.nested(node.body), ("class", None))
        return [py.ClassDef(name=self.name(node.name, node), bases=bases, keywords=keywords,
                            body=body, decorator_list=decorators)]
