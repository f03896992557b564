"""The AST of gradcli programs: small classes named like Python's `ast` nodes, built from the
lark parse tree by `Builder` (one method per grammar alias).  Syntax rules that the grammar
leaves open (assignment targets, argument order, f-string fields) are checked here."""

import ast as python_ast
from typing import Any, Optional

from .lalr import Token, Tree

from . import limits, parser
from .errors import ProgramError, too_deep
from .limits import compile_recursion


class Node:
    """Base of the AST nodes: each subclass lists its fields as annotations (with defaults as
    class attributes); `line` and `col` are keyword-only.  Plain classes with __slots__, not
    dataclasses: making 45 dataclasses costs tens of milliseconds at every start."""

    __slots__ = ("line", "col")
    _fields = ()
    _defaults = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        own = tuple(cls.__dict__.get("__annotations__", {}))
        cls._fields = tuple(getattr(cls.__mro__[1], "_fields", ())) + own
        cls._defaults = {**getattr(cls.__mro__[1], "_defaults", {}),
                         **{f: cls.__dict__[f] for f in own if f in cls.__dict__}}
        for f in own:  # the defaults live in _defaults; the slots hold the values
            if f in cls.__dict__:
                delattr(cls, f)

    def __init__(self, *args, line=0, col=0, **kwargs):
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} fields")
        for name, value in zip(fields, args):
            setattr(self, name, value)
        for name in fields[len(args):]:
            if name in kwargs:
                setattr(self, name, kwargs.pop(name))
            elif name in self._defaults:
                setattr(self, name, self._defaults[name])
            else:
                raise TypeError(f"{type(self).__name__} missing field {name!r}")
        if kwargs:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(kwargs))!r}")
        self.line, self.col = line, col

    def _values(self):
        return tuple(getattr(self, f) for f in self._fields) + (self.line, self.col)

    def __eq__(self, other):
        return type(other) is type(self) and self._values() == other._values()

    __hash__ = None

    def __repr__(self):
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({inner}, line={self.line}, col={self.col})"


# ---------------------------------------------------------------------- expressions

class Name(Node):
    id: str


class Constant(Node):
    value: Any


class FormattedValue(Node):
    value: Node
    conversion: Optional[str]          # "r", "s", "a" or None
    spec: Optional["JoinedStr"]


class JoinedStr(Node):
    values: list                       # Constant(str) and FormattedValue


class Tuple(Node):
    elts: list


class List(Node):
    elts: list


class Set(Node):
    elts: list


class Dict(Node):
    keys: list                         # None for a `**mapping` entry
    values: list


class Starred(Node):
    value: Node


class CompFor(Node):
    target: Node
    iter: Node
    ifs: list


class Comprehension(Node):
    kind: str                          # "list", "set", "generator" or "dict"
    elt: Node                          # the element (the key of a dict comprehension)
    generators: list
    value: Optional[Node] = None       # the value of a dict comprehension


class Attribute(Node):
    value: Node
    attr: str


class Subscript(Node):
    value: Node
    index: Node


class Slice(Node):
    lower: Optional[Node]
    upper: Optional[Node]
    step: Optional[Node]


class Keyword(Node):
    arg: Optional[str]                 # None for `**mapping`
    value: Node


class Call(Node):
    func: Node
    args: list
    keywords: list


class BinOp(Node):
    left: Node
    op: str                            # Python's symbol; `^` is read as `**`
    right: Node


class UnaryOp(Node):
    op: str                            # "+", "-", "~" or "not"
    operand: Node


class BoolOp(Node):
    op: str                            # "and" or "or"
    values: list


class Compare(Node):
    left: Node
    ops: list
    comparators: list


class IfExp(Node):
    test: Node
    body: Node
    orelse: Node


class Param(Node):
    name: str
    kind: str                          # "positional", "keyword_only", "star" or "double_star"
    default: Optional[Node] = None
    annotation: Optional[Node] = None


class Lambda(Node):
    params: list
    body: Node


# ---------------------------------------------------------------------- statements

class Module(Node):
    body: list


class Expr(Node):
    value: Node
    text: str                          # its source text (names the value for `gradcli eval`)


class Assign(Node):
    targets: list
    value: Node


class AugAssign(Node):
    target: Node
    op: str
    value: Node


class Delete(Node):
    targets: list


class Pass(Node):
    pass


class Break(Node):
    pass


class Continue(Node):
    pass


class Return(Node):
    value: Optional[Node]


class Assert(Node):
    test: Node
    msg: Optional[Node]


class Raise(Node):
    exc: Optional[Node]
    cause: Optional[Node]


class Global(Node):
    names: list


class Nonlocal(Node):
    names: list


class ExceptHandler(Node):
    type: Optional[Node]
    name: Optional[str]
    body: list


class Try(Node):
    body: list
    handlers: list
    orelse: list
    finalbody: list


class Alias(Node):
    name: str                          # dotted module name, or a name imported from a module
    asname: Optional[str]


class Import(Node):
    names: list


class ImportFrom(Node):
    module: str
    names: list                        # Alias list; empty for `from m import *`


class If(Node):
    test: Node
    body: list
    orelse: list


class While(Node):
    test: Node
    body: list
    orelse: list


class For(Node):
    target: Node
    iter: Node
    body: list
    orelse: list


class WithItem(Node):
    context: Node
    target: Optional[Node]


class With(Node):
    items: list
    body: list


class FunctionDef(Node):
    name: str
    params: list
    body: list
    decorators: list
    returns: Optional[Node]


class ClassDef(Node):
    name: str
    bases: list
    keywords: list
    body: list
    decorators: list


# ---------------------------------------------------------------------- building

def parse_module(source):
    """Parse a program into a Module; raises ProgramError (IncompleteInput at a premature end)."""
    return _build(parser.parse(source, "module"), source)


def parse_expression(source):
    """Parse one expression (or a bare tuple of them)."""
    return _build(parser.parse(source, "expression"), source)


def _build(tree, source):
    try:
        with compile_recursion():
            return Builder(source).transform(tree)
    except RecursionError:
        raise too_deep() from None


def syntax_error(message, node):
    return ProgramError("SyntaxError", message, node.line or None, node.col or None)


class _DoubleStarred:
    """`**value` in a call or a dict display, before it becomes a Keyword or a dict entry."""

    def __init__(self, value):
        self.value = value


class _BareGenerator:
    """An unparenthesized generator expression argument, `f(x for x in y)`."""

    def __init__(self, node):
        self.node = node


TARGET_KINDS = {Call: "function call", Constant: "literal", JoinedStr: "f-string expression",
                BinOp: "expression", UnaryOp: "expression", BoolOp: "expression",
                Compare: "comparison", IfExp: "conditional expression", Lambda: "lambda",
                Comprehension: "comprehension", Dict: "dict literal", Set: "set display"}


def check_target(node, verb="assign to", inside=False):
    """Raise SyntaxError unless node can be assigned to (or deleted, with verb="delete");
    inside: node is an element of a tuple or list target (where one starred name may be)."""
    if isinstance(node, (Name, Attribute, Subscript)):
        return node
    if isinstance(node, (Tuple, List)):
        starred = [elt for elt in node.elts if isinstance(elt, Starred)]
        if len(starred) > 1 and verb == "assign to":
            raise syntax_error("multiple starred expressions in assignment", starred[1])
        for elt in node.elts:
            check_target(elt, verb, inside=True)
        return node
    if isinstance(node, Starred) and verb == "assign to":
        if not inside:
            raise syntax_error("starred assignment target must be in a list or tuple", node)
        return check_target(node.value, verb)
    if isinstance(node, Constant) and node.value in (None, True, False, ...):
        raise syntax_error(f"cannot {verb} {node.value!r}", node)
    raise syntax_error(f"cannot {verb} {TARGET_KINDS.get(type(node), 'expression')}", node)


def _params(params, kind):
    """Validate a parameter list (Python's rules) and mark keyword-only parameters."""
    seen, star, default_seen = set(), False, False
    for i, p in enumerate(params):
        if p.name in seen:
            raise syntax_error(f"duplicate argument '{p.name}' in {kind} definition", p)
        if p.name:
            seen.add(p.name)
        if p.kind == "double_star":
            if i != len(params) - 1:
                raise syntax_error("arguments cannot follow var-keyword argument", params[i + 1])
        elif p.kind == "star":
            if star:
                raise syntax_error("* argument may appear only once", p)
            star = True
            if not p.name and (i == len(params) - 1 or params[i + 1].kind == "double_star"):
                raise syntax_error("named arguments must follow bare *", p)
        elif star:
            p.kind = "keyword_only"
        elif p.default is not None:
            default_seen = True
        elif default_seen:
            raise syntax_error("non-default argument follows default argument", p)
    return params


def _flatten(statements):
    body = []
    for s in statements:
        if isinstance(s, list):
            body.extend(s)
        elif s is not None:
            body.append(s)
    return body


class Builder:
    """Lark tree -> AST nodes, bottom-up; each method is named after a rule or alias of the
    grammar and takes the tree's meta (its position) and its built children.  (lark's
    Transformer with v_args would do the same at twice the cost.)"""

    def __init__(self, source):
        self.source = source

    def transform(self, tree):
        children = [self.transform(c) if isinstance(c, Tree) else c for c in tree.children]
        method = getattr(self, tree.data, None)
        if method is None:
            return Tree(tree.data, children, tree.meta)
        return method(tree.meta, children)

    @staticmethod
    def _at(meta):
        return {"line": getattr(meta, "line", 0), "col": getattr(meta, "column", 0)}

    # ------------------------------------------------------------------ tokens and atoms
    def name(self, meta, children):
        token = children[0]
        return Name(str(token), line=token.line, col=token.column)

    def number(self, meta, children):
        token = children[0]
        try:
            value = python_ast.literal_eval(str(token))
        except (ValueError, SyntaxError) as e:
            raise ProgramError("SyntaxError", str(e), token.line, token.column) from None
        if type(value) is int and value.bit_length() > limits.MAX_INT_BITS:  # (0xfff...f)
            raise ProgramError("OverflowError", str(limits.int_too_large()), token.line,
                               token.column)
        return Constant(value, line=token.line, col=token.column)

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
                parts.extend(FString(token, prefix).parts())
            else:
                parts.append(Constant(python_ast.literal_eval(text), line=token.line,
                                      col=token.column))
        at = self._at(meta)
        if not formatted:
            return Constant("".join(p.value for p in parts), **at)
        return JoinedStr(_merge_constants(parts), **at)

    def none(self, meta, _):
        return Constant(None, **self._at(meta))

    def true(self, meta, _):
        return Constant(True, **self._at(meta))

    def false(self, meta, _):
        return Constant(False, **self._at(meta))

    def ellipsis(self, meta, _):
        return Constant(..., **self._at(meta))

    def tuple(self, meta, children):
        if len(children) == 1 and (children[0] is None or isinstance(children[0], list)):
            children = children[0] or []
        return Tuple(list(children), **self._at(meta))

    def tuple_items(self, meta, children):
        return [c for c in children if c is not None]

    def items(self, meta, children):
        return [c for c in children if c is not None]

    def list(self, meta, children):
        return List(children[0] or [], **self._at(meta))

    def set(self, meta, children):
        return Set(children[0], **self._at(meta))

    def dict(self, meta, children):
        keys, values = [], []
        for item in children[0] or []:
            if isinstance(item, _DoubleStarred):
                keys.append(None)
                values.append(item.value)
            else:
                keys.append(item[0])
                values.append(item[1])
        return Dict(keys, values, **self._at(meta))

    def dict_items(self, meta, children):
        return [c for c in children if c is not None]

    def key_value(self, meta, children):
        return tuple(children)

    def double_starred(self, meta, children):
        return _DoubleStarred(children[0])

    def starred(self, meta, children):
        return Starred(children[0], **self._at(meta))

    def comp_for(self, meta, children):
        target, iterable, *ifs = children
        return CompFor(check_target(target), iterable, ifs, **self._at(meta))

    def listcomp(self, meta, children):
        return Comprehension("list", children[0], children[1:], **self._at(meta))

    def setcomp(self, meta, children):
        return Comprehension("set", children[0], children[1:], **self._at(meta))

    def genexp(self, meta, children):
        return Comprehension("generator", children[0], children[1:], **self._at(meta))

    def genexp_argument(self, meta, children):
        return _BareGenerator(self.genexp(meta, children))

    def dictcomp(self, meta, children):
        return Comprehension("dict", children[0], children[2:], children[1], **self._at(meta))

    # ------------------------------------------------------------------ operators
    def _op(self, meta, children):
        return " ".join(str(c) for c in children)

    add_op = mul_op = unary_op = pow_op = comp_op = augop = _op

    def binops(self, meta, children):
        left = children[0]
        for i in range(1, len(children), 2):
            left = BinOp(left, children[i], children[i + 1], line=left.line, col=left.col)
        return left

    def binop(self, meta, children):
        left, op, right = children
        return BinOp(left, "**", right, **self._at(meta))

    def _fold(op):
        def fold(self, meta, children):
            left = children[0]
            for right in children[1:]:
                left = BinOp(left, op, right, line=left.line, col=left.col)
            return left
        return fold

    bitor = _fold("|")
    bitand = _fold("&")
    del _fold

    def unary(self, meta, children):
        return UnaryOp(children[0], children[1], **self._at(meta))

    def not_(self, meta, children):
        return UnaryOp("not", children[0], **self._at(meta))

    def and_(self, meta, children):
        return BoolOp("and", children, **self._at(meta))

    def or_(self, meta, children):
        return BoolOp("or", children, **self._at(meta))

    def compare(self, meta, children):
        return Compare(children[0], children[1::2], children[2::2], **self._at(meta))

    def ifexp(self, meta, children):
        body, test, orelse = children
        return IfExp(test, body, orelse, **self._at(meta))

    def lambda_(self, meta, children):
        params, body = children
        return Lambda(_params(params or [], "lambda"), body, **self._at(meta))

    def lambda_parameters(self, meta, children):
        return [c for c in children if c is not None]

    parameters = lambda_parameters

    def param(self, meta, children):
        name, *rest = children
        annotation, default = rest if len(rest) == 2 else (None, rest[0])
        return Param(name.id, "positional", default, annotation, **self._at(meta))

    def star_param(self, meta, children):
        name, annotation = (children + [None, None])[:2]
        return Param(name.id if name else "", "star", None, annotation, **self._at(meta))

    def double_star_param(self, meta, children):
        name, annotation = (children + [None])[:2]
        return Param(name.id, "double_star", None, annotation, **self._at(meta))

    # ------------------------------------------------------------------ trailers
    def attribute(self, meta, children):
        value, name = children
        return Attribute(value, name.id, line=name.line, col=name.col)

    def subscript(self, meta, children):
        return Subscript(children[0], children[1], **self._at(meta))

    def slice(self, meta, children):
        lower, upper, step = (children + [None, None, None])[:3]
        return Slice(lower, upper, step, **self._at(meta))

    def call(self, meta, children):
        func, arguments = children
        args, keywords = [], []
        arguments = arguments or []
        for a in arguments:
            if isinstance(a, _BareGenerator):
                if len(arguments) > 1:
                    raise syntax_error("Generator expression must be parenthesized", a.node)
                a = a.node
            if isinstance(a, Keyword):
                if a.arg is not None and any(k.arg == a.arg for k in keywords):
                    raise syntax_error(f"keyword argument repeated: {a.arg}", a)
                keywords.append(a)
            elif keywords and isinstance(a, Starred) and keywords[-1].arg is None:
                raise syntax_error("iterable argument unpacking follows keyword argument "
                                   "unpacking", a)
            elif keywords and not isinstance(a, Starred):
                which = "keyword argument unpacking" if any(k.arg is None for k in keywords) \
                    else "keyword argument"
                raise syntax_error(f"positional argument follows {which}", a)
            else:
                args.append(a)
        return Call(func, args, keywords, **self._at(meta))

    def arguments(self, meta, children):
        return [Keyword(None, c.value) if isinstance(c, _DoubleStarred) else c
                for c in children if c is not None]

    def keyword(self, meta, children):
        target, value = children
        if not isinstance(target, Name):
            raise syntax_error('expression cannot contain assignment, perhaps you meant "=="?',
                               target)
        return Keyword(target.id, value, line=target.line, col=target.col)

    # ------------------------------------------------------------------ statements
    def module(self, meta, children):
        return Module(_flatten(children), line=1, col=1)

    def expression(self, meta, children):
        return children[0]

    def simple_stmt(self, meta, children):
        return [c for c in children if c is not None]

    def suite(self, meta, children):
        return _flatten(children)

    def expr_stmt(self, meta, children):
        text = self.source[meta.start_pos:meta.end_pos] if not meta.empty else ""
        return Expr(children[0], text, **self._at(meta))

    def assign(self, meta, children):
        *targets, value = children
        return Assign([check_target(t) for t in targets], value, **self._at(meta))

    def augassign(self, meta, children):
        target, op, value = children
        if not isinstance(target, (Name, Attribute, Subscript)):
            kind = TARGET_KINDS.get(type(target), type(target).__name__.lower())
            raise syntax_error(f"'{kind}' is an illegal expression for augmented assignment",
                               target)
        return AugAssign(target, "**=" if op == "^=" else op, value, **self._at(meta))

    def delete(self, meta, children):
        target = children[0]
        targets = target.elts if isinstance(target, Tuple) else [target]
        return Delete([check_target(t, "delete") for t in targets], **self._at(meta))

    def pass_(self, meta, _):
        return Pass(**self._at(meta))

    def break_(self, meta, _):
        return Break(**self._at(meta))

    def continue_(self, meta, _):
        return Continue(**self._at(meta))

    def return_(self, meta, children):
        return Return(children[0], **self._at(meta))

    def assert_(self, meta, children):
        return Assert(children[0], children[1], **self._at(meta))

    def raise_(self, meta, children):
        exc, cause = children if children else (None, None)
        return Raise(exc, cause, **self._at(meta))

    def global_(self, meta, children):
        return Global([c.id for c in children], **self._at(meta))

    def nonlocal_(self, meta, children):
        return Nonlocal([c.id for c in children], **self._at(meta))

    def try_(self, meta, children):
        body, *handlers, orelse, finalbody = children
        for handler in handlers[:-1]:
            if handler.type is None:
                raise syntax_error("default 'except:' must be last", handler)
        return Try(body, handlers, orelse or [], finalbody or [], **self._at(meta))

    def try_finally(self, meta, children):
        body, finalbody = children
        return Try(body, [], [], finalbody, **self._at(meta))

    def except_clause(self, meta, children):
        kind, name, body = children
        return ExceptHandler(kind, name and name.id, body, **self._at(meta))

    def dotted_name(self, meta, children):
        return ".".join(c.id for c in children)

    def alias(self, meta, children):
        name, asname = children
        return Alias(name.id if isinstance(name, Name) else name,
                     asname.id if asname else None, **self._at(meta))

    def import_as_names(self, meta, children):
        return [c for c in children if c is not None]

    def import_(self, meta, children):
        return Import(children, **self._at(meta))

    def import_from(self, meta, children):
        module, names = children
        names = [] if isinstance(names, Token) else names
        return ImportFrom(module, names, **self._at(meta))

    def if_(self, meta, children):
        test, body, *elifs, orelse = children
        orelse = orelse or []
        for elif_test, elif_body, at in reversed(elifs):
            orelse = [If(elif_test, elif_body, orelse, **at)]
        return If(test, body, orelse, **self._at(meta))

    def elif_clause(self, meta, children):
        return (children[0], children[1], self._at(meta))

    def while_(self, meta, children):
        test, body, orelse = children
        return While(test, body, orelse or [], **self._at(meta))

    def for_(self, meta, children):
        target, iterable, body, orelse = children
        return For(check_target(target), iterable, body, orelse or [], **self._at(meta))

    def with_(self, meta, children):
        *items, body = children
        return With(items, body, **self._at(meta))

    def with_item(self, meta, children):
        context, target = children
        return WithItem(context, target and check_target(target), **self._at(meta))

    def funcdef(self, meta, children):
        name, params, returns, body = children
        return FunctionDef(name.id, _params(params or [], "function"), body, [], returns,
                           **self._at(meta))

    def classdef(self, meta, children):
        name, arguments, body = children
        call = self.call(meta, [name, arguments])
        return ClassDef(name.id, call.args, call.keywords, body, [], **self._at(meta))

    def decorator(self, meta, children):
        return children[0]

    def decorated(self, meta, children):
        *decorators, definition = children
        definition.decorators = decorators
        return definition


# Grammar aliases that are Python keywords map to the methods spelled with a trailing "_".
for _keyword in ("if", "while", "for", "with", "import", "pass", "break", "continue", "return",
                 "assert", "lambda", "raise", "global", "nonlocal", "try"):
    setattr(Builder, _keyword, getattr(Builder, _keyword + "_"))
del _keyword


def _merge_constants(parts):
    merged = []
    for p in parts:
        if isinstance(p, Constant) and merged and isinstance(merged[-1], Constant):
            merged[-1] = Constant(merged[-1].value + p.value, line=merged[-1].line,
                                  col=merged[-1].col)
        elif not (isinstance(p, Constant) and p.value == ""):
            merged.append(p)
    return merged


def _relocate(node, line, col):
    """Give a node parsed out of an f-string field (and its children) the string's position."""
    if isinstance(node, list):
        for n in node:
            _relocate(n, line, col)
    elif isinstance(node, Node):
        node.line, node.col = line, col
        for name in node._fields:
            _relocate(getattr(node, name), line, col)


class FString:
    """Splits one f-string token into literal text and `{expression!conversion:spec}` fields."""

    def __init__(self, token, prefix):
        text = str(token)[len(prefix):]
        quote = text[:3] if text[:3] in ('"""', "'''") else text[0]
        self.token = token
        self.body = text[len(quote):-len(quote)]
        self.raw = "r" in prefix
        self.quote = quote

    def error(self, message):
        return ProgramError("SyntaxError", f"f-string: {message}", self.token.line,
                            self.token.column)

    def parts(self):
        return self._parse(0, nested=False)[0]

    def _literal(self, text):
        if self.raw or "\\" not in text:
            return Constant(text, line=self.token.line, col=self.token.column)
        return Constant(python_ast.literal_eval(self.quote + text + self.quote),
                        line=self.token.line, col=self.token.column)

    def _parse(self, i, nested):
        """Parts from position i up to the end (or the `}` closing a format spec if nested)."""
        body, parts, literal = self.body, [], []
        while i < len(body):
            c = body[i]
            if c == "{" and body[i + 1:i + 2] == "{" and not nested:
                literal.append("{")
                i += 2
            elif c == "}" and body[i + 1:i + 2] == "}" and not nested:
                literal.append("}")
                i += 2
            elif c == "{":
                parts.append(self._literal("".join(literal)))
                literal = []
                field_parts, i = self._field(i + 1)
                parts.extend(field_parts)
            elif c == "}":
                if nested:
                    break
                raise self.error("single '}' is not allowed")
            else:
                literal.append(c)
                i += 1
        parts.append(self._literal("".join(literal)))
        return parts, i

    def _field(self, i):
        """Parse the field starting after `{`; returns its parts and the position after `}`."""
        body, depth, quote, start = self.body, 0, None, i
        while i < len(body):
            c = body[i]
            if quote:
                quote = None if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c in "([{":
                depth += 1
            elif c in ")]}" and depth:
                depth -= 1
            elif depth == 0 and (c in ":}" or (c == "!" and body[i + 1:i + 2] != "=")):
                break
            i += 1
        expression_text = body[start:i]
        if not expression_text.strip():
            raise self.error("empty expression not allowed")
        if i >= len(body):
            raise self.error("expecting '}'")
        parts, conversion, spec = [], None, None
        stripped = expression_text.rstrip()
        self_documenting = stripped.endswith("=") and not stripped.endswith(
            ("==", "!=", "<=", ">="))
        if self_documenting:  # f"{x=}" shows the text, then repr(x) unless given a spec
            parts.append(self._literal(expression_text))
            expression_text = stripped[:-1]
        if body[i] == "!":
            conversion = body[i + 1:i + 2]
            if conversion not in ("r", "s", "a"):
                raise self.error("invalid conversion character: expected 's', 'r', or 'a'")
            i += 2
        if i < len(body) and body[i] == ":":
            spec_parts, i = self._parse(i + 1, nested=True)
            spec = JoinedStr(_merge_constants(spec_parts), line=self.token.line,
                             col=self.token.column)
        elif self_documenting and conversion is None:
            conversion = "r"
        if i >= len(body) or body[i] != "}":
            raise self.error("expecting '}'")
        try:
            value = parse_expression("(" + expression_text + ")")
        except ProgramError as e:
            raise self.error(e.message) from None
        _relocate(value, self.token.line, self.token.column)
        parts.append(FormattedValue(value, conversion, spec, line=self.token.line,
                                    col=self.token.column))
        return parts, i + 1
