"""What a program's text says, read from its Python `ast` tree (gradcli.lang.syntax) rather than
from the characters: the statement at a place, the calls in it (receiver, method and arguments
as written), the assignments that change something in place, and the names it uses.  For the
`hint:` lines of gradcli.render.hints, which name the program's own variables and code.

A text that does not parse (a line of a statement of several lines) says nothing."""

import ast
from dataclasses import dataclass, field

from .syntax import SYMBOLS, parse_module

COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef)


def parse(text):
    """The ast.Module of text, or None when it does not parse."""
    try:
        return parse_module(text)
    except Exception:  # a hint is a courtesy: any failure means no tree
        return None


class Source:
    """A text and the positions of its tree's nodes (1-based lines, 0-based character
    columns)."""

    def __init__(self, text):
        self.lines = text.split("\n")

    def between(self, start, end):
        """The text from start to end, each a (line, column) pair."""
        (line, column), (end_line, end_column) = start, end
        if not 1 <= line <= end_line <= len(self.lines):
            return ""
        if line == end_line:
            return self.lines[line - 1][column:end_column]
        return "\n".join([self.lines[line - 1][column:], *self.lines[line:end_line - 1],
                          self.lines[end_line - 1][:end_column]])

    def of(self, node):
        """node's text, whole (an attribute's node starts at its name: its text at its
        receiver)."""
        start, end = extent(node)
        return self.between(start, end).strip()


def extent(node):
    """(start, end) of everything node holds, each (line, column)."""
    placed = [n for n in ast.walk(node) if hasattr(n, "lineno")]
    return (min((n.lineno, n.col_offset) for n in placed),
            max((n.end_lineno, n.end_col_offset) for n in placed))


def start_of(node):
    return (node.lineno, node.col_offset)


def root(node):
    """The first name of an expression, in the order written (`x` of `x[0].T`), or None."""
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name)] if node is not None else []
    return min(names, key=start_of).id if names else None


@dataclass
class Argument:
    """An argument of a call, as written; elements: the texts of the elements of a list or
    tuple display, else [text]."""
    text: str
    node: object
    elements: list


@dataclass
class Call:
    """A call `receiver.method(args)`, or a bare `method(args)` (receiver "")."""
    receiver: str
    method: str
    args: str                      # the argument text, without the parentheses
    receiver_root: str = None      # the receiver's first name
    positional: list = field(default_factory=list)   # Argument each
    keywords: dict = field(default_factory=dict)     # name -> Argument

    @property
    def text(self):
        return f"{self.receiver}.{self.method}({self.args})" if self.receiver \
            else f"{self.method}({self.args})"


@dataclass
class Change:
    """An in-place change in the program text."""
    root: str           # the variable changed (`x` of `x[0].add_(1)`)
    target: str         # what is changed (`x[0]`)
    text: str           # the change as written
    replacement: str = None  # an out-of-place statement that does the same, when there is one


def _chain_root(target):
    """The name at the bottom of `x`, `x.a`, `x[0].a` (None for anything else)."""
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _statements(module):
    """Every statement of module, nested ones too (a compound statement, then its bodies')."""
    pending = list(reversed(module.body))
    while pending:
        stmt = pending.pop()
        yield stmt
        if isinstance(stmt, COMPOUND):
            inner = [s for name in ("body", "orelse", "finalbody")
                     for s in getattr(stmt, name, ())]
            inner += [s for handler in getattr(stmt, "handlers", ()) for s in handler.body]
            pending.extend(reversed(inner))


def _units(module, line):
    """The parts of module on `line` that a failure there may lie in: each simple statement
    that spans the line, and the header (test, iterable, context managers) of each compound
    statement that starts on it."""
    found = []
    for stmt in _statements(module):
        if isinstance(stmt, COMPOUND):
            if stmt.lineno == line:
                header = [getattr(stmt, name) for name in ("test", "iter", "target")
                          if getattr(stmt, name, None) is not None]
                header += [item.context_expr for item in getattr(stmt, "items", ())]
                if header:
                    found.append(header)
        elif stmt.lineno <= line <= stmt.end_lineno:
            found.append([stmt])
    found.sort(key=lambda unit: start_of(unit[0]))
    return found


def simple_statements(module):
    """Every simple statement of module, nested ones too, in the order written."""
    return sorted((stmt for stmt in _statements(module) if not isinstance(stmt, COMPOUND)),
                  key=start_of)


class Fragment:
    """Some statements (or header expressions) of a text: what the hints read.  after: only
    what starts there or later counts ((line, column); the failing expression's place)."""

    def __init__(self, source=None, nodes=(), after=None):
        self.source, self.nodes, self.after = source, list(nodes), after

    def _counts(self, position):
        return self.after is None or position >= self.after

    def calls(self, methods=None):
        """The calls `receiver.method(args)` (and bare `method(args)`) in the fragment, in
        the order their names are written."""
        found = []
        for top in self.nodes:
            for node in ast.walk(top):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                if isinstance(func, ast.Attribute):
                    method = func.attr
                elif isinstance(func, ast.Name):
                    method = func.id
                else:
                    continue
                if (methods is not None and method not in methods) or \
                        not self._counts(start_of(func)):
                    continue
                found.append((start_of(func), self._call(node, method)))
        found.sort(key=lambda pair: pair[0])
        return [call for _, call in found]

    def _call(self, node, method):
        source, func = self.source, node.func
        receiver, receiver_root = "", None
        if isinstance(func, ast.Attribute):  # (the call starts at its receiver's parenthesis)
            before = source.between(min(start_of(node), extent(func.value)[0]), start_of(func))
            receiver = before.rstrip().rstrip(".").strip()
            receiver_root = root(func.value)
        args = source.between((func.end_lineno, func.end_col_offset),
                              (node.end_lineno, node.end_col_offset)).strip()
        args = args[1:] if args.startswith("(") else args
        args = args[:-1] if args.endswith(")") else args
        positional = [self._argument(a) for a in node.args]
        keywords = {k.arg: self._argument(k.value) for k in node.keywords if k.arg is not None}
        return Call(receiver, method, args.strip(), receiver_root, positional, keywords)

    def _argument(self, node):
        text = self.source.of(node)
        elements = [self.source.of(e) for e in node.elts] \
            if isinstance(node, (ast.List, ast.Tuple)) else [text] if text else []
        return Argument(text, node, elements)

    def statements(self):
        return [n for n in self.nodes if isinstance(n, ast.stmt) and
                self._counts(extent(n)[0])]

    def assignments_in_place(self):
        """The in-place changes the fragment's statements make by assignment, in the order
        written: `t op= v` (t a name, or an attribute or item of one) and `x[i] = v`."""
        found = []
        for stmt in self.statements():
            text = self.source.of(stmt)
            if isinstance(stmt, ast.AugAssign):
                name = _chain_root(stmt.target)
                if name is not None:
                    target = self.source.of(stmt.target)
                    symbol, value = _operator_and_value(self.source.between(
                        extent(stmt.target)[1], (stmt.end_lineno, stmt.end_col_offset)),
                        SYMBOLS[type(stmt.op)])
                    replacement = f"{target} = {target} {symbol} {value}" \
                        if isinstance(stmt.target, ast.Name) else None
                    found.append(Change(name, target, text, replacement))
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Subscript) \
                    and isinstance(stmt.targets[0].value, ast.Name):
                target = stmt.targets[0]
                found.append(Change(target.value.id, self.source.of(target), text))
        return found

    def names(self):
        """The names the fragment uses, in the order written."""
        found = [n for top in self.nodes for n in ast.walk(top) if isinstance(n, ast.Name)
                 and self._counts(start_of(n))]
        return [n.id for n in sorted(found, key=start_of)]

    def attribute_assigned(self, attr):
        """(the receiver's text, its first name) of the first `receiver.attr = value` ((None,
        None) if none)."""
        for stmt in self.statements():
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Attribute) and target.attr == attr:
                        return self.source.of(target.value), root(target.value)
        return None, None


def _operator_and_value(text, symbol):
    """The operator as written (`^` or `**`) and the value of `t op= value`, from the text
    after the target: `*= 3` -> ("*", "3")."""
    text = text.strip()
    if "=" not in text:
        return symbol, text
    written, value = text.split("=", 1)
    return written.strip() or symbol, value.strip()


def failing(source_line, column=None, program=None, line=None):
    """(statement, expression): the Fragment of the statement at `column` of source_line (all
    of the line's when column is None or lies in none), and of what starts at `column` in it.
    The line is read in the program's tree when program and line give it, else alone."""
    source_line = source_line or ""
    module, source, at_line = None, None, 1
    if program and line and 0 < line <= len(program.split("\n")) and \
            program.split("\n")[line - 1] == source_line:
        module = parse(program)
        source, at_line = Source(program), line
    shift = 0
    if module is None:
        stripped = source_line.lstrip()
        shift = len(source_line) - len(stripped)
        module = parse(stripped)
        source, at_line = Source(stripped), 1
    if module is None:
        return Fragment(), Fragment()
    units = _units(module, at_line)
    everything = [node for unit in units for node in unit]
    if column is not None:
        place = (at_line, column - 1 - shift)
        for unit in units:
            start = min(extent(n)[0] for n in unit)
            end = max((n.end_lineno, n.end_col_offset) for n in unit)
            if start <= place <= end:
                return Fragment(source, unit), Fragment(source, unit, after=place)
    return Fragment(source, everything), Fragment(source, everything)


def program_fragments(program, up_to_line=None):
    """A Fragment of each simple statement of program that starts on a line up to
    `up_to_line` (all when None), in the order written.  A program that does not parse is read
    line by line (a line that does not parse alone says nothing)."""
    module = parse(program or "")
    if module is not None:
        source = Source(program)
        return [Fragment(source, [stmt]) for stmt in simple_statements(module)
                if up_to_line is None or stmt.lineno <= up_to_line]
    lines = (program or "").split("\n")
    found = []
    for text in lines[:up_to_line] if up_to_line else lines:
        module = parse(text.strip())
        if module is not None:
            source = Source(text.strip())
            found += [Fragment(source, [stmt]) for stmt in simple_statements(module)]
    return found
