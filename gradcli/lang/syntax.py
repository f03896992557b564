"""The parse tree as Python's `ast`: `TreeToAst` turns the lark tree of gradcli.lang.parser into
the nodes of Python's own `ast` module (one method per rule or alias of the grammar), checking
the syntax rules that the grammar leaves open (assignment targets, parameter and argument
order, f-string fields).  gradcli.lang.compiler then guards that same tree and compiles it.

Positions: every node carries `lineno`, `col_offset`, `end_lineno` and `end_col_offset`, where
gradcli locates it (columns count characters, not UTF-8 bytes as Python's own parser counts
them: gradcli's errors and carets count characters).  A node starts where Python's starts,
but for three places that gradcli's errors point at: an attribute starts at its name (`x.fo`
fails at `fo`), a binary operation where its left operand starts (`(a + b) * c` at `a`, inside
the parenthesis), and a node parsed out of an f-string field lies where its string lies."""

import ast

from . import limits, parser
from .errors import ProgramError, too_deep
from .fstrings import FString, string_value
from .lalr import Token, Tree
from .limits import compile_recursion

LOAD, STORE, DELETE = ast.Load(), ast.Store(), ast.Del()
BINARY = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv,
          "%": ast.Mod, "**": ast.Pow, "^": ast.Pow, "@": ast.MatMult, "&": ast.BitAnd,
          "|": ast.BitOr}
UNARY = {"+": ast.UAdd, "-": ast.USub, "~": ast.Invert}
COMPARE = {"<": ast.Lt, ">": ast.Gt, "==": ast.Eq, ">=": ast.GtE, "<=": ast.LtE,
           "!=": ast.NotEq, "in": ast.In, "not in": ast.NotIn, "is": ast.Is,
           "is not": ast.IsNot}
# the symbol of each operator class (the compiler's guard tables are keyed by symbol)
SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|"}


def parse_module(source):
    """Parse a program into an ast.Module; raises ProgramError (IncompleteInput at a premature
    end)."""
    return _build(parser.parse(source, "module"), source)


def parse_expression(source):
    """Parse one expression (or a bare tuple of them) into an expression node."""
    return _build(parser.parse(source, "expression"), source)


def _build(tree, source):
    try:
        with compile_recursion():
            return TreeToAst().transform(tree)
    except RecursionError:
        raise too_deep() from None


# ---------------------------------------------------------------------- positions

def place(node, line, column, end_line=None, end_column=None):
    """Set node's position from 1-based (line, column) and where it ends (the end defaults to
    the start; an end before the start is moved to it).  Returns node."""
    node.lineno = line = max(line or 0, 1)
    node.col_offset = col = max((column or 0) - 1, 0)
    if not end_line or end_line < line:
        end_line, end_column = line, column
    end_col = max((end_column or 0) - 1, 0)
    node.end_lineno = end_line
    node.end_col_offset = col if end_line == line and end_col < col else end_col
    return node


def at_meta(node, meta):
    """node placed where a parse-tree node lies (nowhere: line 1, column 1)."""
    try:
        node.lineno, node.col_offset = meta.line, meta.column - 1
        node.end_lineno, node.end_col_offset = meta.end_line, meta.end_column - 1
    except AttributeError:  # (a tree that holds no token: lark leaves its meta empty)
        place(node, 0, 0)
    return node


def at_token(node, token):
    node.lineno, node.col_offset = token.line, token.column - 1
    node.end_lineno, node.end_col_offset = token.end_line, token.end_column - 1
    return node


def from_to(node, first, last):
    """node placed from where `first` starts to where `last` ends (both placed nodes)."""
    node.lineno, node.col_offset = first.lineno, first.col_offset
    node.end_lineno, node.end_col_offset = last.end_lineno, last.end_col_offset
    if node.end_lineno < node.lineno or (node.end_lineno == node.lineno and
                                         node.end_col_offset < node.col_offset):
        node.end_lineno, node.end_col_offset = node.lineno, node.col_offset
    return node


def line_of(node):
    """node's 1-based line for an error (None where it has none)."""
    return getattr(node, "lineno", None) or None


def column_of(node):
    """node's 1-based column for an error (None where it has none)."""
    offset = getattr(node, "col_offset", None)
    return None if offset is None else offset + 1


def syntax_error(message, node):
    return ProgramError("SyntaxError", message, line_of(node), column_of(node))


def relocate(node, line, column, end_line, end_column):
    """Give a node parsed out of an f-string field (and everything in it) the string's place."""
    for inner in ast.walk(node):
        if "lineno" in inner._attributes:
            place(inner, line, column, end_line, end_column)
    return node


# ---------------------------------------------------------------------- targets

TARGET_KINDS = {ast.Call: "function call", ast.Constant: "literal",
                ast.JoinedStr: "f-string expression", ast.BinOp: "expression",
                ast.UnaryOp: "expression", ast.BoolOp: "expression", ast.Compare: "comparison",
                ast.IfExp: "conditional expression", ast.Lambda: "lambda",
                ast.ListComp: "comprehension", ast.SetComp: "comprehension",
                ast.GeneratorExp: "comprehension", ast.DictComp: "comprehension",
                ast.Dict: "dict literal", ast.Set: "set display",
                ast.Yield: "yield expression", ast.YieldFrom: "yield expression"}


def check_target(node, verb="assign to", inside=False):
    """Raise SyntaxError unless node can be assigned to (or deleted, with verb="delete"), and
    give it (and its elements) the Store or Del context; inside: node is an element of a tuple
    or list target (where one starred name may be)."""
    ctx = STORE if verb == "assign to" else DELETE
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        node.ctx = ctx
        return node
    if isinstance(node, (ast.Tuple, ast.List)):
        starred = [elt for elt in node.elts if isinstance(elt, ast.Starred)]
        if len(starred) > 1 and verb == "assign to":
            raise syntax_error("multiple starred expressions in assignment", starred[1])
        for elt in node.elts:
            check_target(elt, verb, inside=True)
        node.ctx = ctx
        return node
    if isinstance(node, ast.Starred) and verb == "assign to":
        if not inside:
            raise syntax_error("starred assignment target must be in a list or tuple", node)
        check_target(node.value, verb)
        node.ctx = ctx
        return node
    if isinstance(node, ast.Constant) and node.value in (None, True, False, ...):
        raise syntax_error(f"cannot {verb} {node.value!r}", node)
    raise syntax_error(f"cannot {verb} {TARGET_KINDS.get(type(node), 'expression')}", node)


class Parameter:
    """One parameter while its list is checked: its `ast.arg`, kind ("positional",
    "keyword_only", "star", "double_star") and default."""

    __slots__ = ("arg", "kind", "default")

    def __init__(self, arg, kind, default=None):
        self.arg, self.kind, self.default = arg, kind, default


def arguments(params, kind):
    """Python's `ast.arguments` from a parameter list, checked by Python's rules."""
    seen, star, default_seen = set(), False, False
    for i, p in enumerate(params):
        name = p.arg.arg
        if name in seen:
            raise syntax_error(f"duplicate argument '{name}' in {kind} definition", p.arg)
        if name:
            seen.add(name)
        if p.kind == "double_star":
            if i != len(params) - 1:
                raise syntax_error("arguments cannot follow var-keyword argument",
                                   params[i + 1].arg)
        elif p.kind == "star":
            if star:
                raise syntax_error("* argument may appear only once", p.arg)
            star = True
            if not name and (i == len(params) - 1 or params[i + 1].kind == "double_star"):
                raise syntax_error("named arguments must follow bare *", p.arg)
        elif star:
            p.kind = "keyword_only"
        elif p.default is not None:
            default_seen = True
        elif default_seen:
            raise syntax_error("non-default argument follows default argument", p.arg)
    args, kwonly, kw_defaults, defaults, vararg, kwarg = [], [], [], [], None, None
    for p in params:
        if p.kind == "positional":
            args.append(p.arg)
            if p.default is not None:
                defaults.append(p.default)
        elif p.kind == "keyword_only":
            kwonly.append(p.arg)
            kw_defaults.append(p.default)
        elif p.kind == "star":
            vararg = p.arg if p.arg.arg else None
        else:
            kwarg = p.arg
    return ast.arguments(posonlyargs=[], args=args, vararg=vararg, kwonlyargs=kwonly,
                         kw_defaults=kw_defaults, kwarg=kwarg, defaults=defaults)


class _DoubleStarred:
    """`**value` in a call or a dict display, before it becomes a keyword or a dict entry."""

    __slots__ = ("value", "meta")

    def __init__(self, value, meta):
        self.value, self.meta = value, meta


class _BareGenerator:
    """An unparenthesized generator expression argument, `f(x for x in y)`."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node


def _flatten(statements):
    body = []
    for s in statements:
        if isinstance(s, list):
            body.extend(s)
        elif s is not None:
            body.append(s)
    return body


def _merge_constants(parts):
    """Adjacent string constants of an f-string joined, empty ones left out."""
    merged = []
    for p in parts:
        if isinstance(p, ast.Constant) and merged and isinstance(merged[-1], ast.Constant):
            merged[-1] = ast.copy_location(ast.Constant(value=merged[-1].value + p.value),
                                           merged[-1])
        elif not (isinstance(p, ast.Constant) and p.value == ""):
            merged.append(p)
    return merged


# ---------------------------------------------------------------------- the transformer

class TreeToAst:
    """Lark tree -> Python `ast` nodes, bottom-up; each method is named after a rule or alias
    of the grammar and takes the tree's meta (its position) and its transformed children.
    (lark's Transformer with v_args would do the same at twice the cost.)"""

    def transform(self, tree):
        children = [self.transform(c) if type(c) is Tree else c for c in tree.children]
        method = getattr(self, tree.data, None)
        if method is None:
            return Tree(tree.data, children, tree.meta)
        return method(tree.meta, children)

    # ------------------------------------------------------------------ tokens and atoms
    def name(self, meta, children):
        token = children[0]
        return at_token(ast.Name(id=str(token), ctx=LOAD), token)

    def number(self, meta, children):
        token = children[0]
        try:
            value = ast.literal_eval(str(token))
        except (ValueError, SyntaxError) as e:
            raise ProgramError("SyntaxError", str(e), token.line, token.column) from None
        if type(value) is int and value.bit_length() > limits.MAX_INT_BITS:  # (0xfff...f)
            raise ProgramError("OverflowError", str(limits.int_too_large()), token.line,
                               token.column)
        return at_token(ast.Constant(value=value), token)

    def strings(self, meta, tokens):
        parts, formatted = [], False
        for token in tokens:
            text = str(token)
            prefix = text[:len(text) - len(text.lstrip("rRuUfFbB"))].lower()
            if "b" in prefix:
                raise ProgramError("SyntaxError", "bytes literals are not supported",
                                   token.line, token.column)
            if "f" in prefix:
                formatted = True
                parts.extend(FString(token, prefix, parse_expression).parts())
            else:
                parts.append(at_token(ast.Constant(value=string_value(text)), token))
        if not formatted:
            return at_meta(ast.Constant(value="".join(p.value for p in parts)), meta)
        return at_meta(ast.JoinedStr(values=_merge_constants(parts)), meta)

    def none(self, meta, _):
        return at_meta(ast.Constant(value=None), meta)

    def true(self, meta, _):
        return at_meta(ast.Constant(value=True), meta)

    def false(self, meta, _):
        return at_meta(ast.Constant(value=False), meta)

    def ellipsis(self, meta, _):
        return at_meta(ast.Constant(value=...), meta)

    def tuple(self, meta, children):
        if len(children) == 1 and (children[0] is None or type(children[0]) is list):
            children = children[0] or []
        return at_meta(ast.Tuple(elts=list(children), ctx=LOAD), meta)

    def tuple_items(self, meta, children):
        return [c for c in children if c is not None]

    items = dict_items = import_as_names = tuple_items

    def list(self, meta, children):
        return at_meta(ast.List(elts=children[0] or [], ctx=LOAD), meta)

    def set(self, meta, children):
        return at_meta(ast.Set(elts=children[0]), meta)

    def dict(self, meta, children):
        keys, values = [], []
        for item in children[0] or []:
            if isinstance(item, _DoubleStarred):
                keys.append(None)
                values.append(item.value)
            else:
                keys.append(item[0])
                values.append(item[1])
        return at_meta(ast.Dict(keys=keys, values=values), meta)

    def key_value(self, meta, children):
        return tuple(children)

    def double_starred(self, meta, children):
        return _DoubleStarred(children[0], meta)

    def starred(self, meta, children):
        return at_meta(ast.Starred(value=children[0], ctx=LOAD), meta)

    def comp_for(self, meta, children):
        target, iterable, *ifs = children
        return ast.comprehension(target=check_target(target), iter=iterable, ifs=ifs,
                                 is_async=0)

    def listcomp(self, meta, children):
        return at_meta(ast.ListComp(elt=children[0], generators=children[1:]), meta)

    def setcomp(self, meta, children):
        return at_meta(ast.SetComp(elt=children[0], generators=children[1:]), meta)

    def genexp(self, meta, children):
        return at_meta(ast.GeneratorExp(elt=children[0], generators=children[1:]), meta)

    def genexp_argument(self, meta, children):
        return _BareGenerator(self.genexp(meta, children))

    def dictcomp(self, meta, children):
        return at_meta(ast.DictComp(key=children[0], value=children[1],
                                    generators=children[2:]), meta)

    # ------------------------------------------------------------------ operators
    def _op(self, meta, children):
        return " ".join(str(c) for c in children)

    add_op = mul_op = unary_op = pow_op = comp_op = augop = _op

    def binops(self, meta, children):
        left = children[0]
        for i in range(1, len(children), 2):
            right = children[i + 1]
            left = from_to(ast.BinOp(left=left, op=BINARY[children[i]](), right=right),
                           left, right)
        return left

    def binop(self, meta, children):
        left, op, right = children
        return at_meta(ast.BinOp(left=left, op=ast.Pow(), right=right), meta)

    def _fold(symbol):
        def fold(self, meta, children):
            left = children[0]
            for right in children[1:]:
                left = from_to(ast.BinOp(left=left, op=BINARY[symbol](), right=right),
                               left, right)
            return left
        return fold

    bitor = _fold("|")
    bitand = _fold("&")
    del _fold

    def unary(self, meta, children):
        return at_meta(ast.UnaryOp(op=UNARY[children[0]](), operand=children[1]), meta)

    def not_(self, meta, children):
        return at_meta(ast.UnaryOp(op=ast.Not(), operand=children[0]), meta)

    def and_(self, meta, children):
        return at_meta(ast.BoolOp(op=ast.And(), values=children), meta)

    def or_(self, meta, children):
        return at_meta(ast.BoolOp(op=ast.Or(), values=children), meta)

    def compare(self, meta, children):
        return at_meta(ast.Compare(left=children[0], ops=[COMPARE[o]() for o in children[1::2]],
                                   comparators=children[2::2]), meta)

    def ifexp(self, meta, children):
        body, test, orelse = children
        return at_meta(ast.IfExp(test=test, body=body, orelse=orelse), meta)

    def lambda_(self, meta, children):
        params, body = children
        return at_meta(ast.Lambda(args=arguments(params or [], "lambda"), body=body), meta)

    def lambda_parameters(self, meta, children):
        return [c for c in children if c is not None]

    parameters = lambda_parameters

    def param(self, meta, children):
        name, *rest = children
        annotation, default = rest if len(rest) == 2 else (None, rest[0])
        arg = at_meta(ast.arg(arg=name.id, annotation=annotation), meta)
        return Parameter(arg, "positional", default)

    def star_param(self, meta, children):
        name, annotation = (children + [None, None])[:2]
        arg = at_meta(ast.arg(arg=name.id if name else "", annotation=annotation), meta)
        return Parameter(arg, "star")

    def double_star_param(self, meta, children):
        name, annotation = (children + [None])[:2]
        return Parameter(at_meta(ast.arg(arg=name.id, annotation=annotation), meta),
                         "double_star")

    # ------------------------------------------------------------------ trailers
    def attribute(self, meta, children):
        value, name = children
        node = ast.Attribute(value=value, attr=name.id, ctx=LOAD)
        return from_to(node, name, name)

    def subscript(self, meta, children):
        return at_meta(ast.Subscript(value=children[0], slice=children[1], ctx=LOAD), meta)

    def slice(self, meta, children):
        lower, upper, step = (children + [None, None, None])[:3]
        return at_meta(ast.Slice(lower=lower, upper=upper, step=step), meta)

    def call(self, meta, children):
        func, given = children
        args, keywords = [], []
        given = given or []
        for a in given:
            if isinstance(a, _BareGenerator):
                if len(given) > 1:
                    raise syntax_error("Generator expression must be parenthesized", a.node)
                a = a.node
            if isinstance(a, ast.keyword):
                if a.arg is not None and any(k.arg == a.arg for k in keywords):
                    raise syntax_error(f"keyword argument repeated: {a.arg}", a)
                keywords.append(a)
            elif keywords and isinstance(a, ast.Starred) and keywords[-1].arg is None:
                raise syntax_error("iterable argument unpacking follows keyword argument "
                                   "unpacking", a)
            elif keywords and not isinstance(a, ast.Starred):
                which = "keyword argument unpacking" if any(k.arg is None for k in keywords) \
                    else "keyword argument"
                raise syntax_error(f"positional argument follows {which}", a)
            else:
                args.append(a)
        return at_meta(ast.Call(func=func, args=args, keywords=keywords), meta)

    def arguments(self, meta, children):
        return [at_meta(ast.keyword(arg=None, value=c.value), c.meta)
                if isinstance(c, _DoubleStarred) else c for c in children if c is not None]

    def keyword(self, meta, children):
        target, value = children
        if not isinstance(target, ast.Name):
            raise syntax_error('expression cannot contain assignment, perhaps you meant "=="?',
                               target)
        return from_to(ast.keyword(arg=target.id, value=value), target, value)

    # ------------------------------------------------------------------ statements
    def module(self, meta, children):
        return ast.Module(body=_flatten(children), type_ignores=[])

    def expression(self, meta, children):
        return children[0]

    def simple_stmt(self, meta, children):
        return [c for c in children if c is not None]

    def suite(self, meta, children):
        return _flatten(children)

    def expr_stmt(self, meta, children):
        return at_meta(ast.Expr(value=children[0]), meta)

    def assign(self, meta, children):
        *targets, value = children
        return at_meta(ast.Assign(targets=[check_target(t) for t in targets], value=value),
                       meta)

    def augassign(self, meta, children):
        target, op, value = children
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            kind = TARGET_KINDS.get(type(target), type(target).__name__.lower())
            raise syntax_error(f"'{kind}' is an illegal expression for augmented assignment",
                               target)
        target.ctx = STORE
        return at_meta(ast.AugAssign(target=target, op=BINARY[op[:-1]](), value=value), meta)

    def delete(self, meta, children):
        target = children[0]
        targets = target.elts if isinstance(target, ast.Tuple) else [target]
        return at_meta(ast.Delete(targets=[check_target(t, "delete") for t in targets]), meta)

    def pass_(self, meta, _):
        return at_meta(ast.Pass(), meta)

    def break_(self, meta, _):
        return at_meta(ast.Break(), meta)

    def continue_(self, meta, _):
        return at_meta(ast.Continue(), meta)

    def return_(self, meta, children):
        return at_meta(ast.Return(value=children[0]), meta)

    def yield_(self, meta, children):
        return at_meta(ast.Yield(value=children[0]), meta)

    def yield_from(self, meta, children):
        return at_meta(ast.YieldFrom(value=children[0]), meta)

    def assert_(self, meta, children):
        return at_meta(ast.Assert(test=children[0], msg=children[1]), meta)

    def raise_(self, meta, children):
        exc, cause = children if children else (None, None)
        return at_meta(ast.Raise(exc=exc, cause=cause), meta)

    def global_(self, meta, children):
        return at_meta(ast.Global(names=[c.id for c in children]), meta)

    def nonlocal_(self, meta, children):
        return at_meta(ast.Nonlocal(names=[c.id for c in children]), meta)

    def try_(self, meta, children):
        body, *handlers, orelse, finalbody = children
        for handler in handlers[:-1]:
            if handler.type is None:
                raise syntax_error("default 'except:' must be last", handler)
        return at_meta(ast.Try(body=body, handlers=handlers, orelse=orelse or [],
                               finalbody=finalbody or []), meta)

    def try_finally(self, meta, children):
        body, finalbody = children
        return at_meta(ast.Try(body=body, handlers=[], orelse=[], finalbody=finalbody), meta)

    def except_clause(self, meta, children):
        kind, name, body = children
        return at_meta(ast.ExceptHandler(type=kind, name=name and name.id, body=body), meta)

    def dotted_name(self, meta, children):
        return ".".join(c.id for c in children)

    def alias(self, meta, children):
        name, asname = children
        return at_meta(ast.alias(name=name.id if isinstance(name, ast.Name) else name,
                                 asname=asname.id if asname else None), meta)

    def import_(self, meta, children):
        return at_meta(ast.Import(names=children), meta)

    def import_from(self, meta, children):
        module, names = children
        names = [] if isinstance(names, Token) else names  # `from m import *`: no names
        return at_meta(ast.ImportFrom(module=module, names=names, level=0), meta)

    def if_(self, meta, children):
        test, body, *elifs, orelse = children
        orelse = orelse or []
        for elif_test, elif_body, elif_meta in reversed(elifs):
            orelse = [at_meta(ast.If(test=elif_test, body=elif_body, orelse=orelse), elif_meta)]
        return at_meta(ast.If(test=test, body=body, orelse=orelse), meta)

    def elif_clause(self, meta, children):
        return (children[0], children[1], meta)

    def while_(self, meta, children):
        test, body, orelse = children
        return at_meta(ast.While(test=test, body=body, orelse=orelse or []), meta)

    def for_(self, meta, children):
        target, iterable, body, orelse = children
        return at_meta(ast.For(target=check_target(target), iter=iterable, body=body,
                               orelse=orelse or [], type_comment=None), meta)

    def with_(self, meta, children):
        *items, body = children
        return at_meta(ast.With(items=items, body=body, type_comment=None), meta)

    def with_item(self, meta, children):
        context, target = children
        return ast.withitem(context_expr=context,
                            optional_vars=target and check_target(target))

    def funcdef(self, meta, children):
        name, params, returns, body = children
        return at_meta(ast.FunctionDef(name=name.id, args=arguments(params or [], "function"),
                                       body=body, decorator_list=[], returns=returns,
                                       type_comment=None), meta)

    def classdef(self, meta, children):
        name, given, body = children
        call = self.call(meta, [name, given])
        return at_meta(ast.ClassDef(name=name.id, bases=call.args, keywords=call.keywords,
                                    body=body, decorator_list=[]), meta)

    def decorator(self, meta, children):
        return children[0]

    def decorated(self, meta, children):
        *decorators, definition = children
        definition.decorator_list = decorators
        return definition


# Grammar aliases that are Python keywords map to the methods spelled with a trailing "_".
for _keyword in ("if", "while", "for", "with", "import", "pass", "break", "continue", "return",
                 "assert", "lambda", "raise", "global", "nonlocal", "try"):
    setattr(TreeToAst, _keyword, getattr(TreeToAst, _keyword + "_"))
del _keyword
