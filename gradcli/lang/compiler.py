"""The sandbox's checks over the program's `ast` tree, then Python's compiler.  Python gives the
program Python's exact semantics (scopes, closures, defaults, unpacking, f-strings) at Python's
speed, while the sandbox keeps its reach: `Guarding`, one `ast.NodeTransformer`, refuses names
and attributes starting with `_` (and the jumps out of a finally block), and rewrites every
attribute access and store, call, import, arithmetic operator and f-string field into a call
of a guard (gradcli.lang.sandbox) that the program cannot name, since its name starts with `_`.

The guards are kept cheap, as a loop pays for them on every iteration: attribute names are
checked here once (they are literal); a call `f(x)` is `_callable(f)(x)`, so that Python itself
passes the arguments; an operator with a number literal operand that its guard would let
through unchecked (`w * 3.0`, `n + 1`) is Python's own operator."""

import ast
import sys

from ..engine.records import Record
from .errors import ProgramError, too_deep
from .limits import compile_recursion
from .sandbox import GUARD_NAMES
from .allowed import OPERATORS, PROGRAM_DUNDERS, readable_attribute
from .calls import UNCHECKED_OPERANDS, inplace_guard_name
from .generators import note_program_code
from .syntax import SYMBOLS, column_of, line_of

BINARY_GUARDS = {op: guard for op, (guard, *_) in OPERATORS.items()}
INPLACE_GUARDS = {op: inplace_guard_name(guard) for op, guard in BINARY_GUARDS.items()}
LOAD = ast.Load()
COMPARISONS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
               ast.GtE: ">=", ast.In: "in", ast.NotIn: "not in"}
# CPython 3.10 runs no signal handler at a jump to a `try` or `with` block's setup, so a loop
# of nothing but one (`while True: try: ...`) would never see the timeout's alarm nor Ctrl-C:
# there each such block starts after a call of `_tick`, where handlers run.
TICK_BEFORE_BLOCKS = sys.version_info < (3, 11)


class Program(Record):
    """A compiled program: its code, and what `gradcli eval` needs to pick a default output.

    outputs lists, in source order, ("name", NAME) for each name assigned outside functions
    and classes, and ("expr", TEXT) for each top-level expression statement (whose value the
    guard `_expr` records under the statement's index in this list)."""
    _fields = ("code", "outputs")

    def __init__(self, code, outputs=None):
        self.code = code
        self.outputs = [] if outputs is None else outputs


def compile_program(module, echo=False, filename="<program>", source=""):
    """Guard and compile an ast.Module (from gradcli.lang.syntax.parse_module; it is changed
    in place); echo=True makes expression statements print their value (as Python's
    interactive mode does: also inside loops and ifs, never inside functions)."""
    lines = source.split("\n")
    guarding = Guarding(echo, lines, _yielding(module))
    try:
        with compile_recursion():
            tree = guarding.visit(module)
            ast.fix_missing_locations(tree)
            code = compile(tree, filename, "exec", dont_inherit=True)
        note_program_code(code)
    except ProgramError as e:
        if e.is_syntax_error and e.line and e.line <= len(lines) and e.source_line is None:
            e.source_line = lines[e.line - 1]
        raise
    except SyntaxError as e:
        line = e.lineno if e.lineno and e.lineno <= len(lines) else None
        raise ProgramError("SyntaxError", e.msg, line, e.offset,
                           lines[line - 1] if line else None) from None
    except RecursionError:
        raise too_deep() from None
    return Program(code, guarding.outputs)


def compile_expression(node, filename="<expression>"):
    """Guard and compile one expression node (gradcli.lang.syntax.parse_expression) for
    eval()."""
    try:
        with compile_recursion():
            tree = ast.Expression(body=Guarding(False, (), _yielding(node)).visit(node))
            ast.fix_missing_locations(tree)
            code = compile(tree, filename, "eval", dont_inherit=True)
        note_program_code(code)
        return code
    except RecursionError:
        raise too_deep() from None


def source_text(lines, node):
    """The source text from node's start to its end (columns count characters)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    if not 0 <= first <= last < len(lines):
        return ""
    if first == last:
        return lines[first][node.col_offset:node.end_col_offset]
    return "\n".join([lines[first][node.col_offset:], *lines[first + 1:last],
                      lines[last][:node.end_col_offset]])


def _unchecked(symbol, left, right):
    """Would the operator's guard skip its size check, whatever the other operand?  (It does when
    an operand is a number literal of a type in UNCHECKED_OPERANDS: `x * 2.0`, `n + 1`.)"""
    unchecked = UNCHECKED_OPERANDS[symbol]
    return any(isinstance(node, ast.Constant) and type(node.value) in unchecked
               for node in ((left,) if symbol == "%" else (left, right)))


def _yielding(tree):
    """The ids of the functions and lambdas with a yield anywhere in their tree (parameters'
    annotations and defaults, nested functions: over-approximated on purpose, as a function
    whose finally blocks ask `_closing()` without being a generator pays one call there,
    while one missed would run the program's code from the garbage collector), in one pass."""
    parents, found = {}, set()
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            found.add(id(node))
    marked = set()
    for start in found:
        node = parents.get(start)
        while node is not None and id(node) not in marked:
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                marked.add(id(node))
            node = parents.get(id(node))
    return marked


def _guard(name, *args, keywords=()):
    return ast.Call(func=ast.Name(id=name, ctx=LOAD), args=list(args), keywords=list(keywords))


def _at(new, node):
    """new placed where node lies."""
    return ast.copy_location(new, node)


class Guarding(ast.NodeTransformer):
    """The sandbox's checks and rewrites over a program's tree.  Children are visited in the
    order the checks were always made (a value before its targets, a call's keywords before its
    arguments), so that of two faults a program has, the same one is reported."""

    methods = {}                      # node class -> its visit method

    def __init__(self, echo, lines=(), yielding=frozenset()):
        self.echo = echo
        self.lines = lines
        self.scope_depth = 0          # > 0 inside def, lambda and class bodies
        self.outputs = []
        # the enclosing scopes, innermost last: ("class", None) or ("function", first parameter)
        self.scopes = []
        # the loops and finally blocks around the statement, innermost last, in its function
        self.blocks = []
        self.generator = False        # in a function that yields (gradcli.lang.generators)
        self.yielding = yielding      # the ids of those functions (_yielding)

    # ------------------------------------------------------------------ helpers
    def name(self, name, node, load=False):
        """A program's name: one `_` may start it (`_grad_out`, `_`), two may not (but the
        module's `__name__` may be read), nor may it be the name of a guard (`_getattr`)."""
        if name.startswith("__") and not (load and name == "__name__"):
            raise ProgramError("NameError", f"names starting with '__' are not allowed: "
                               f"'{name}'", line_of(node), column_of(node))
        if name in GUARD_NAMES:
            raise ProgramError("NameError", f"'{name}' is a name gradcli reserves for itself",
                               line_of(node), column_of(node))
        return name

    def attribute_name(self, node, readable=None):
        """node's attribute name; one starting with `_` only where readable(name) is true
        (grad_fn._saved_self: the sandbox checks the receiver when it runs)."""
        if node.attr.startswith("_") and not (readable and readable(node.attr)):
            raise ProgramError("AttributeError", f"attributes starting with '_' are not "
                               f"allowed: '{node.attr}'", line_of(node), column_of(node))
        return node.attr

    def each(self, nodes):
        return [self.visit(n) for n in nodes]

    def optional(self, node):
        return None if node is None else self.visit(node)

    def body(self, statements):
        out = []
        for s in statements:
            lowered = self.visit(s)
            out.extend(lowered if isinstance(lowered, list) else [lowered])
        return out

    def nested(self, statements):
        return self.body(statements) or [ast.Pass()]

    # ------------------------------------------------------------------ expressions
    def visit(self, node):
        """NodeTransformer.visit, its method looked up once per node class."""
        method = self.methods.get(type(node))
        if method is None:
            method = self.methods[type(node)] = getattr(
                type(self), "visit_" + type(node).__name__, type(self).generic_visit)
        return method(self, node)

    def visit_Constant(self, node):
        return node

    def visit_Name(self, node):
        self.name(node.id, node, load=isinstance(node.ctx, ast.Load))
        return node

    def visit_JoinedStr(self, node):
        values = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                spec = self.visit(part.format_spec) if part.format_spec else \
                    ast.Constant(value="")
                conversion = chr(part.conversion) if part.conversion != -1 else None
                call = _at(_guard("_format_field", self.visit(part.value),
                                  ast.Constant(value=conversion), spec), part)
                part = _at(ast.FormattedValue(value=call, conversion=-1, format_spec=None), part)
            values.append(part)
        node.values = values
        return node

    def visit_Starred(self, node):
        """`*x` in a display or a call is `*_each(x)`: an array or a tensor of more items than
        a list may hold is refused before Python unpacks it."""
        node.value = self.visit(node.value)
        if isinstance(node.ctx, ast.Load):
            node.value = _at(_guard("_each", node.value), node)
        return node

    def visit_comprehension(self, node):
        """A comprehension's iterable is `_each(x)`, as a `for` loop's."""
        node.target = self.visit(node.target)
        node.iter = _at(_guard("_each", self.visit(node.iter)), node.iter)
        node.ifs = self.each(node.ifs)
        return node

    def visit_ListComp(self, node):
        node.generators = self.each(node.generators)
        node.elt = self.visit(node.elt)
        return node

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        node.generators = self.each(node.generators)
        node.key = self.visit(node.key)
        node.value = self.visit(node.value)
        return node

    def visit_Attribute(self, node):
        value = self.visit(node.value)
        if isinstance(node.ctx, ast.Load):
            attr = self.attribute_name(node, readable_attribute)
            return _at(_guard("_getattr", value, ast.Constant(value=attr)), node)
        attr = self.attribute_name(node)
        node.value = _at(_guard("_store_target", value, ast.Constant(value=attr)), node)
        return node

    def visit_Subscript(self, node):
        """`x[a:b] = v` stores through `_slice_target(x)`, which meters a list that grows.
        `a[index]` with an index that is not a literal may be NumPy's advanced indexing, whose
        result is as large as its index arrays broadcast (`a[np.zeros((n, 1), int),
        np.zeros(n, int)]`): it is `_item(a, _key[index])` (`_key[...]` is the index as
        Python makes it, slices included), whose size is checked before NumPy makes it (the
        engine checks a tensor's)."""
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Store) and isinstance(node.slice, ast.Slice):
            node.value = _at(_guard("_slice_target", node.value), node)
        elif isinstance(node.ctx, ast.Load) and \
                not isinstance(node.slice, (ast.Constant, ast.Slice)):
            key = node.slice
            if isinstance(key, ast.Tuple) and any(isinstance(k, ast.Slice) for k in key.elts):
                key = _at(ast.Subscript(value=ast.Name(id="_key", ctx=LOAD), slice=key,
                                        ctx=LOAD), node)  # (a slice is no expression)
            return _at(_guard("_item", node.value, key), node)
        return node

    def visit_Call(self, node):
        """`f(x)` is `_callable(f)(x)`: one check of f, and Python passes the arguments.
        `super()` in a method is `super(__class__, self)` (the sandbox's super checks both)."""
        node.func = _at(_guard("_callable", self.visit(node.func)), node)
        if self.zero_argument_super(node):
            node.args = [ast.Name(id="__class__", ctx=LOAD),
                         ast.Name(id=self.scopes[-1][1], ctx=LOAD)]
            return node
        node.keywords = self.each(node.keywords)
        node.args = self.each(node.args)
        return node

    def zero_argument_super(self, node):
        func = node.func.args[0]
        return (isinstance(func, ast.Name) and func.id == "super" and not node.args and
                not node.keywords and len(self.scopes) >= 2 and self.scopes[-1][0] == "function"
                and self.scopes[-1][1] is not None and self.scopes[-2][0] == "class")

    def visit_keyword(self, node):
        if node.arg is not None:
            self.name(node.arg, node)
        node.value = self.visit(node.value)
        return node

    def visit_BinOp(self, node):
        symbol = SYMBOLS[type(node.op)]
        unchecked = _unchecked(symbol, node.left, node.right)
        node.left, node.right = self.visit(node.left), self.visit(node.right)
        if unchecked:
            return node
        return _at(_guard(BINARY_GUARDS[symbol], node.left, node.right), node)

    def visit_Compare(self, node):
        """Two arrays may broadcast to a result past the element limit: a comparison of two
        operands that are not literals is `_compare["<"](a, b)`, which checks its size before
        NumPy makes it (an operand that is a literal cannot broadcast, so `x < 0` in a loop
        pays nothing); in a chain, each operand is `_compared(x)`, whose comparisons are those
        guards (Python's chain keeps its order and its short circuit).  No stand-in keeps an
        identity: in a chain that also compares values (`a is b < c`), `is` and `is not` are
        `==` and `!=` of operands made `_compared(x, True)`, which compare identities; a chain
        of identities alone (or of one comparison) is Python's own."""
        checked = sum(not isinstance(n, ast.Constant) for n in (node.left, *node.comparators))
        node.left = self.visit(node.left)
        node.comparators = self.each(node.comparators)
        identities = [isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops]
        if checked < 2 or all(identities) or len(node.ops) == 1 and any(identities):
            return node
        if len(node.ops) == 1:
            guard = ast.Subscript(value=ast.Name(id="_compare", ctx=LOAD),
                                  slice=ast.Constant(value=COMPARISONS[type(node.ops[0])]),
                                  ctx=LOAD)
            return _at(ast.Call(func=guard, args=[node.left, node.comparators[0]], keywords=[]),
                       node)
        operands = [node.left, *node.comparators]
        node.left, *node.comparators = [
            _at(_guard("_compared", x, *([ast.Constant(value=True)] if identity else [])), x)
            for x, identity in zip(operands, identities + [False])]
        node.ops = [ast.Eq() if isinstance(op, ast.Is) else ast.NotEq()
                    if isinstance(op, ast.IsNot) else op for op in node.ops]
        return node

    def visit_Lambda(self, node):
        node.args = self.visit(node.args)
        node.body = self.in_scope(lambda: self.visit(node.body), ("function", None),
                                  id(node) in self.yielding)
        return node

    def visit_YieldFrom(self, node):
        """`yield from x` delegates to `_delegated(x)` (gradcli.lang.generators.delegated)."""
        node.value = _at(_guard("_delegated", self.visit(node.value)), node.value)
        return node

    def visit_arguments(self, node):
        """Each parameter in the order written: its name, annotation, then default."""
        defaults = [None] * (len(node.args) - len(node.defaults)) + node.defaults
        node.defaults = []
        for arg, default in zip(node.args, defaults):
            self.visit(arg)
            if default is not None:
                node.defaults.append(self.visit(default))
        if node.vararg is not None:
            self.visit(node.vararg)
        kw_defaults = []
        for arg, default in zip(node.kwonlyargs, node.kw_defaults):
            self.visit(arg)
            kw_defaults.append(self.optional(default))
        node.kw_defaults = kw_defaults
        if node.kwarg is not None:
            self.visit(node.kwarg)
        return node

    def visit_arg(self, node):
        if node.arg:
            self.name(node.arg, node)
        node.annotation = self.optional(node.annotation)
        return node

    # ------------------------------------------------------------------ statements
    def visit_Module(self, node):
        node.body = self.top_level(node.body)
        return node

    def top_level(self, statements):
        out = []
        for s in statements:
            if isinstance(s, ast.Expr):
                out.append(self.visit_Expr(s, top=True))
            else:
                lowered = self.visit(s)
                out.extend(lowered if isinstance(lowered, list) else [lowered])
        return out

    def visit_Expr(self, node, top=False):
        value = node.value
        starred = isinstance(value, ast.Starred)
        node.value = value = self.visit(value)
        if starred:
            # `*x` alone: left unwrapped (as an argument of `_expr` it would be unpacked), so
            # that Python's compiler reports its SyntaxError, "can't use starred expression here"
            return node
        if top and self.scope_depth == 0:
            self.outputs.append(("expr", source_text(self.lines, node)))
            node.value = _guard("_expr", ast.Constant(value=len(self.outputs) - 1), value)
        elif self.echo and self.scope_depth == 0:
            node.value = _guard("_expr", ast.Constant(value=None), value)
        return node

    def note_assigned(self, target):
        if self.scope_depth:
            return
        if isinstance(target, ast.Name):
            self.outputs.append(("name", target.id))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.note_assigned(elt)
        elif isinstance(target, ast.Starred):
            self.note_assigned(target.value)

    def visit_Assign(self, node):
        node.value = self.visit(node.value)
        if any(isinstance(t, (ast.Tuple, ast.List)) and
               any(isinstance(e, ast.Starred) for e in t.elts) for t in node.targets):
            node.value = _at(_guard("_each", node.value), node.value)  # (`a, *b = x`)
        for t in node.targets:
            self.note_assigned(t)
        node.targets = self.each(node.targets)
        return node

    def visit_AugAssign(self, node):
        """`t op= v` calls the in-place guard: `t = _iop_add(t, v)` for a name,
        `_inplace_attr(obj, name, _iop_add, v)` and `_inplace_item(obj, key, _iop_add, v)` for
        attributes and items (object and key evaluated once).  Where the guard would skip its
        check (`n += 1`, `v[i] *= 0.5`), names and items get Python's own augmented assignment."""
        target, symbol = node.target, SYMBOLS[type(node.op)]
        unchecked = _unchecked(symbol, None, node.value)
        value = node.value = self.visit(node.value)
        if isinstance(target, ast.Name):
            self.note_assigned(target)
        if not isinstance(target, ast.Attribute) and unchecked:
            node.target = self.visit(target)
            return node
        guard = ast.Name(id=INPLACE_GUARDS[symbol], ctx=LOAD)
        if isinstance(target, ast.Name):
            stored = self.visit(target)
            loaded = _at(ast.Name(id=self.name(target.id, target), ctx=LOAD), target)
            return _at(ast.Assign(targets=[stored], value=_guard(INPLACE_GUARDS[symbol], loaded,
                                                                 value)), node)
        if isinstance(target, ast.Attribute):
            receiver = self.visit(target.value)
            call = _guard("_inplace_attr", receiver,
                          ast.Constant(value=self.attribute_name(target)), guard, value)
        else:
            receiver = self.visit(target.value)
            call = _guard("_inplace_item", receiver, self.visit(target.slice), guard, value)
        return _at(ast.Expr(value=call), node)

    def leaving_finally(self, what, node, loop_ends_it):
        """Refuse a jump out of a finally block: it would drop the exception the block runs for
        (the timeout's too), as PEP 765 has Python 3.14 warn."""
        for block in reversed(self.blocks):
            if block == "loop" and loop_ends_it:
                return
            if block == "finally":
                raise ProgramError("SyntaxError", f"`{what}` in a `finally` block is not "
                                   f"supported in gradcli programs (it would drop the "
                                   f"exception that the block runs for)", line_of(node),
                                   column_of(node))

    def visit_Break(self, node):
        self.leaving_finally("break", node, True)
        return node

    def visit_Continue(self, node):
        self.leaving_finally("continue", node, True)
        return node

    def visit_Return(self, node):
        self.leaving_finally("return", node, False)
        node.value = self.optional(node.value)
        return node

    def visit_Raise(self, node):
        """`raise E from C`: E and C pass `_raisable` (Exception's kin only)."""
        if node.exc is not None:
            node.exc = _guard("_raisable", self.visit(node.exc))
        if node.cause is not None:
            node.cause = _guard("_raisable", self.visit(node.cause))
        return node

    def visit_Global(self, node):
        for n in node.names:
            self.name(n, node)
        return node

    visit_Nonlocal = visit_Global

    def visit_Try(self, node):
        """An `except T` clause catches `_catchable(T)` (the Exception kin of T: never the
        timeout or Ctrl-C), and its body starts with `_caught()`, which lets through an
        exception raised while one of those was on its way (from a finally block)."""
        for h in node.handlers:
            kind = self.visit(h.type) if h.type is not None else ast.Constant(value=None)
            if h.name:
                self.name(h.name, h)
            check = _at(ast.Expr(value=_guard("_caught")), h)
            h.type = _at(_guard("_catchable", kind), h)
            if self.generator:  # (no program code while the collector closes a generator)
                nothing = ast.Tuple(elts=[], ctx=LOAD)
                h.type = _at(ast.IfExp(test=_guard("_closing"), body=nothing, orelse=h.type), h)
            h.body = [check] + self.body(h.body)
        node.body = self.nested(node.body)
        node.orelse = self.body(node.orelse)
        self.blocks.append("finally")
        try:
            node.finalbody = self.body(node.finalbody)
        finally:
            self.blocks.pop()
        if self.generator and node.finalbody:
            node.finalbody = [_at(ast.If(test=ast.UnaryOp(op=ast.Not(),
                                                          operand=_guard("_closing")),
                                         body=node.finalbody, orelse=[]), node.finalbody[0])]
        return self.ticked(node)

    def ticked(self, block):
        if not TICK_BEFORE_BLOCKS:
            return block
        return [_at(ast.Expr(value=_guard("_tick")), block), block]

    def visit_Import(self, node):
        out = []
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            call = _guard("_import", ast.Constant(value=alias.name),
                          ast.Constant(value=alias.asname is not None))
            target = ast.Name(id=self.name(bound, alias), ctx=ast.Store())
            out.append(_at(ast.Assign(targets=[target], value=call), alias))
        return out

    def visit_ImportFrom(self, node):
        module = ast.Constant(value=node.module)
        if not node.names:
            if self.scope_depth:
                raise ProgramError("SyntaxError", "import * only allowed at module level",
                                   line_of(node), column_of(node))
            return _at(ast.Expr(value=_guard("_import_star", module)), node)
        out = []
        for alias in node.names:
            bound = self.name(alias.asname or alias.name, alias)
            call = _guard("_import_from", module, ast.Constant(value=alias.name))
            out.append(_at(ast.Assign(targets=[ast.Name(id=bound, ctx=ast.Store())],
                                      value=call), alias))
        return out

    def visit_If(self, node):
        node.test = self.visit(node.test)
        node.body = self.nested(node.body)
        node.orelse = self.body(node.orelse)
        return node

    def loop_body(self, statements):
        self.blocks.append("loop")
        try:
            return self.nested(statements)
        finally:
            self.blocks.pop()

    def visit_While(self, node):
        node.test = self.visit(node.test)
        node.body = self.loop_body(node.body)
        node.orelse = self.body(node.orelse)
        return node

    def visit_For(self, node):
        """`for x in it` iterates `_each(it)`: a tensor makes its rows all at once."""
        node.target = self.visit(node.target)
        node.iter = _at(_guard("_each", self.visit(node.iter)), node.iter)
        node.body = self.loop_body(node.body)
        node.orelse = self.body(node.orelse)
        return node

    def visit_With(self, node):
        for item in node.items:
            item.context_expr = self.visit(item.context_expr)
            item.optional_vars = self.optional(item.optional_vars)
        node.body = self.nested(node.body)
        return self.ticked(node)

    def in_scope(self, lower, scope, generator=False):
        self.scope_depth += 1
        self.scopes.append(scope)
        blocks, self.blocks = self.blocks, []
        outer, self.generator = self.generator, generator
        try:
            return lower()
        finally:
            self.scope_depth -= 1
            self.scopes.pop()
            self.blocks = blocks
            self.generator = outer

    def decorators(self, nodes):
        """`@d` calls d(function) as `f(x)` calls f: through `_callable(d)`."""
        return [_at(_guard("_callable", self.visit(d)), d) for d in nodes]

    def visit_FunctionDef(self, node):
        node.decorator_list = self.decorators(node.decorator_list)
        node.args = self.visit(node.args)
        node.returns = self.optional(node.returns)
        first = node.args.args[0].arg if node.args.args else None
        node.body = self.in_scope(lambda: self.nested(node.body), ("function", first),
                                  id(node) in self.yielding)
        in_class = bool(self.scopes) and self.scopes[-1][0] == "class"
        # (a class of the program may have its own __init__, as nn.Module's subclasses do, and
        # the special methods of allowed.PROGRAM_DUNDERS, as a Dataset's __getitem__)
        if in_class and node.name.startswith("__") and node.name.endswith("__") and \
                node.name != "__init__" and node.name not in PROGRAM_DUNDERS:
            raise ProgramError("NameError", f"names starting with '__' are not allowed: "
                               f"'{node.name}' (a class may define __init__, "
                               f"{', '.join(sorted(PROGRAM_DUNDERS))})",
                               line_of(node), column_of(node))
        if not (in_class and (node.name == "__init__" or node.name in PROGRAM_DUNDERS)):
            self.name(node.name, node)
        return node

    def visit_ClassDef(self, node):
        node.decorator_list = self.decorators(node.decorator_list)
        node.bases = self.each(node.bases)
        node.keywords = self.each(node.keywords)
        node.body = self.in_scope(lambda: self.nested(node.body), ("class", None), False)
        self.name(node.name, node)
        return node
