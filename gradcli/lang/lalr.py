"""The parser as data: lark's LALR tables, lexer patterns and tree-shaping rules, exported once
from the Lark parser into a marshal file under the user's cache directory, and the small driver
that runs them.

Why: `import lark` and loading its pickled parser cost about 100 ms, twice what a one-line
`gradcli eval` spends on everything else after NumPy.  Lark stays the grammar compiler, and the
reference: what it exports here is what its own runtime would do (ParsingFrontend with a basic
lexer, lalr_parser_state.ParserState.feed_token, parse_tree_builder's child filters,
ExpandSingleChild and PropagatePositions), and a test compares the trees of the two on a corpus.
A source the driver cannot parse is handed to lark, whose errors gradcli.lang.parser words."""

import marshal
import os
import re
import sys

FORMAT = 2


class Meta:
    """A tree's position (lark's Meta): set by Positions; `empty` until then."""

    empty = True

    def __repr__(self):
        return f"Meta({vars(self)})"


class Tree:
    """A parse-tree node: `data` (the rule or alias), `children`, `meta` (lark's Tree)."""

    __slots__ = ("data", "children", "meta")

    def __init__(self, data, children, meta=None):
        self.data, self.children = data, children
        self.meta = Meta() if meta is None else meta

    def __repr__(self):
        return f"Tree({self.data!r}, {self.children!r})"

    def __eq__(self, other):
        return (isinstance(other, Tree) and self.data == other.data
                and self.children == other.children)

    __hash__ = None


class Token(str):
    """A lexed token (lark's Token): the text, its terminal `type` and where it lies."""

    def __new__(cls, type, value, start_pos=None, line=None, column=None, end_line=None,
                end_column=None, end_pos=None):
        self = str.__new__(cls, value)
        self.type, self.value = type, value
        self.start_pos, self.line, self.column = start_pos, line, column
        self.end_line, self.end_column, self.end_pos = end_line, end_column, end_pos
        return self

    @classmethod
    def new_borrow_pos(cls, type, value, token):
        return cls(type, value, token.start_pos, token.line, token.column, token.end_line,
                   token.end_column, token.end_pos)

    def __repr__(self):
        return f"Token({self.type!r}, {self.value!r})"

    def __reduce__(self):
        return (Token, (self.type, self.value, self.start_pos, self.line, self.column,
                        self.end_line, self.end_column, self.end_pos))


class ParseFailed(Exception):
    """The driver met a character or token it has no action for: lark words the error.
    token: the token (None for a character no terminal matches); expected: the terminals the
    parser had actions for there (lark's UnexpectedToken.expected)."""

    def __init__(self, token=None, expected=()):
        super().__init__(token)
        self.token, self.expected = token, expected


# ---------------------------------------------------------------------------------- export

def export(lark, grammar_text):
    """The tables of a built Lark (LALR, basic lexer) as marshal-able data."""
    from lark.lexer import PatternStr
    from lark.parse_tree_builder import maybe_create_child_filter
    from lark.parsers.lalr_analysis import Shift

    lexer = lark.parser.lexer
    lexer = getattr(lexer, "lexer", lexer)           # under the post-lexer's connector
    scanner = lexer.scanner
    keywords = {}
    for kind, callback in lexer.callback.items():    # lark's UnlessCallback: NAME -> keyword
        strings = callback.scanner.terminals
        if any(not isinstance(t.pattern, PatternStr) or t.pattern.flags for t in strings):
            raise ValueError(f"terminal {kind}: only plain keywords are exported")
        keywords[kind] = {t.pattern.value: callback.scanner.fullmatch(t.pattern.value)
                          for t in strings}
    table = lark.parser.parser.parser.parse_table
    rules, index = [], {}

    def rule_code(rule):
        if id(rule) not in index:
            index[id(rule)] = len(rules)
            rules.append(rule)
        return ~index[id(rule)]

    states = {}
    for state, actions in table.states.items():
        states[state] = {str(kind): (arg if action is Shift else rule_code(arg))
                         for kind, (action, arg) in actions.items()}
    shaped = []
    for rule in rules:
        options = rule.options
        name = rule.alias or options.template_source or rule.origin.name
        child_filter = maybe_create_child_filter(rule.expansion, options.keep_all_tokens, False,
                                                 options.empty_indices)
        if child_filter is None:
            keep = None
        else:
            to_include, *rest = child_filter.args
            keep = (tuple((i, bool(expand), add_none) for i, expand, add_none in to_include)
                    if rest else tuple((i, bool(expand), 0) for i, expand in to_include),
                    rest[0] if rest else 0)
        shaped.append((str(rule.origin.name), len(rule.expansion), str(name),
                       bool(options.expand1 and not rule.alias), keep,
                       not _passes_its_child_up(rule)))
    return {
        "format": FORMAT, "grammar": grammar_text,
        "patterns": [(m.pattern, m.flags, compiled_form(m.pattern, m.flags))
                     for m in scanner._mres],
        "keywords": keywords,
        "ignore": sorted(lexer.ignore_types), "newline": sorted(lexer.newline_types),
        "states": states, "start": dict(table.start_states), "end": dict(table.end_states),
        "rules": shaped,
    }


def compiled_form(pattern, flags):
    """What re.compile(pattern, flags) hands the regular expression engine (the arguments of
    CPython's _sre.compile, with the engine's version), or None where that cannot be had.
    Compiling the lexer's pattern (1.6 kB of alternatives) takes re 1.7 ms of every one-shot
    `gradcli eval`; its compiled form, saved with the tables, is loaded instead."""
    try:
        import _sre
        from ..engine.pyversion import re_internals
        _parser, _compiler = re_internals()
        parsed = _parser.parse(pattern, flags)
        code = [int(c) for c in _compiler._code(parsed, flags)]  # (opcodes: int subclasses)
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        form = (int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex,
                tuple(indexgroup), _sre.MAGIC, _sre.CODESIZE)
        if _from_form(pattern, form) != re.compile(pattern, flags):
            return None
        return form
    except Exception:  # noqa: BLE001 - another interpreter's internals: compile at load
        return None


def _from_form(pattern, form):
    """The compiled pattern from compiled_form's result (ValueError if it is for another
    engine; _sre checks the code itself and raises on code it cannot run)."""
    import _sre
    flags, code, groups, groupindex, indexgroup, magic, codesize = form
    if magic != _sre.MAGIC or codesize != _sre.CODESIZE:
        raise ValueError("compiled for another regular expression engine")
    return _sre.compile(pattern, flags, code, groups, groupindex, indexgroup)


def _pattern(pattern, flags, form):
    """The compiled lexer pattern: from its saved form when there is one that this
    interpreter's engine takes, else compiled."""
    if form is not None:
        try:
            return _from_form(pattern, form)
        except Exception:  # noqa: BLE001 - a stale or foreign form: compile instead
            pass
    return re.compile(pattern, flags)


def _passes_its_child_up(rule):
    """`?test: or_test`: a rule that always returns its one child, positions and all (lark
    recomputes the positions the child holds already: a quarter of a parse)."""
    return (len(rule.expansion) == 1 and not rule.expansion[0].is_term and rule.options.expand1
            and not rule.alias and not any(rule.options.empty_indices or ()))


def save(path, data):
    """Write the tables atomically (a reader never sees half a file); False if it cannot."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as f:
            f.write(marshal.dumps(_interned(data)))
        os.replace(temporary, path)
        return True
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return False


def _interned(data):
    """data with its strings interned: marshal then writes each terminal's name once."""
    if isinstance(data, str):
        return sys.intern(data)
    if isinstance(data, dict):
        return {_interned(k): _interned(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return type(data)(_interned(x) for x in data)
    return data


def load(path, grammar_text):
    """The tables saved at path for this grammar, or None (missing, stale or corrupt)."""
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())  # marshal.load(f) reads item by item: 10x slower
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if (not isinstance(data, dict) or data.get("format") != FORMAT
            or data.get("grammar") != grammar_text):
        return None
    return data


def file_name():
    return f"parser-{FORMAT}-py{sys.version_info[0]}{sys.version_info[1]}.marshal"


# ---------------------------------------------------------------------------------- runtime

class Parser:
    """Runs exported tables: lex, post-lex (the Indenter), LALR actions and tree shaping."""

    def __init__(self, data, postlex):
        self.mres = [_pattern(*entry) for entry in data["patterns"]]
        self.keywords = data["keywords"]
        self.ignore = frozenset(data["ignore"])
        self.newline = frozenset(data["newline"])
        self.states = data["states"]
        self.start, self.end = data["start"], data["end"]
        self.postlex = postlex
        self.rules = [(origin, size, _builder(name, expand1, keep, positions))
                      for origin, size, name, expand1, keep, positions in data["rules"]]

    def lex(self, text):
        """lark's BasicLexer.next_token, all tokens of text."""
        mres, keywords, ignore, newline = self.mres, self.keywords, self.ignore, self.newline
        pos, line, line_start, end = 0, 1, 0, len(text)
        while pos < end:
            for mre in mres:
                m = mre.match(text, pos)
                if m:
                    break
            else:
                raise ParseFailed()
            value, kind = m.group(0), m.lastgroup
            start, start_line, column = pos, line, pos - line_start + 1
            if kind in newline:
                count = value.count("\n")
                if count:
                    line += count
                    line_start = pos + value.rindex("\n") + 1
            pos += len(value)
            if kind in ignore:
                continue
            if kind in keywords:
                kind = keywords[kind].get(value, kind)
            yield Token(kind, value, start, start_line, column, line, pos - line_start + 1, pos)

    def parse(self, text, start):
        """The tree of text from the start symbol (lark's ParserState.feed_token for each
        token, then for the end); ParseFailed where lark would raise."""
        states, rules = self.states, self.rules
        end_state = self.end[start]
        state_stack, value_stack = [self.start[start]], []
        for token in _with_end(self.postlex.process(self.lex(text))):
            kind = token.type
            while True:
                actions = states[state_stack[-1]]
                code = actions.get(kind)
                if code is None or (code >= 0 and kind == "$END"):
                    raise ParseFailed(token, {k for k in actions if k.isupper()})
                if code >= 0:
                    state_stack.append(code)
                    value_stack.append(token)
                    break
                origin, size, build = rules[~code]
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                value_stack.append(build(children))
                state_stack.append(states[state_stack[-1]][origin])
                if kind == "$END" and state_stack[-1] == end_state:
                    return value_stack[-1]


def _with_end(tokens):
    """The tokens, then lark's `$END` token at the last one's place."""
    token = None
    for token in tokens:
        yield token
    yield (Token.new_borrow_pos("$END", "", token) if token is not None
           else Token("$END", "", 0, 1, 1))


def _builder(name, expand1, keep, positions):
    """The reduction callback of one rule: lark's ParseTreeBuilder chain (PropagatePositions
    around a ChildFilterLALR around ExpandSingleChild around Tree)."""
    if keep is None:
        def shape(children):
            return children
    else:
        to_include, append_none = keep

        def shape(children):  # lark's ChildFilterLALR
            filtered = []
            for i, to_expand, add_none in to_include:
                if add_none:
                    filtered += [None] * add_none
                if to_expand:
                    if filtered:
                        filtered += children[i].children
                    else:
                        filtered = children[i].children
                else:
                    filtered.append(children[i])
            if append_none:
                filtered += [None] * append_none
            return filtered

    if expand1:
        def build(children):
            filtered = shape(children)
            return filtered[0] if len(filtered) == 1 else Tree(name, filtered)
    else:
        def build(children):
            return Tree(name, shape(children))
    return Positions(build) if positions else build


class Positions:
    """lark's PropagatePositions (lark/parse_tree_builder.py): a tree starts where the container
    of its first child starts and ends where that of its last child ends (containers include
    the tokens the tree leaves out, such as parentheses), minus the work for a unit production
    whose result is its child."""

    __slots__ = ("node_builder",)

    def __init__(self, node_builder):
        self.node_builder = node_builder

    def __call__(self, children):
        result = self.node_builder(children)
        if (len(children) == 1 and result is children[0]) or type(result) is not Tree:
            return result
        first = _first_meta(children)
        if first is not None:
            _contain(result.meta, first, _START)
        last = _first_meta(reversed(children))
        if last is not None:
            _contain(result.meta, last, _END)
        return result


# (own attribute, container attribute) of where a tree starts and of where it ends
_START = (("line", "container_line"), ("column", "container_column"),
          ("start_pos", "container_start_pos"))
_END = (("end_line", "container_end_line"), ("end_column", "container_end_column"),
        ("end_pos", "container_end_pos"))


def _contain(meta, source, fields):
    """meta's start (or end) is source's container's; its own too, unless already set."""
    values = [getattr(source, container) if hasattr(source, container)
              else getattr(source, own) for own, container in fields]
    if not hasattr(meta, fields[0][0]):
        for (own, _), value in zip(fields, values):
            setattr(meta, own, value)
        meta.empty = False
    for (_, container), value in zip(fields, values):
        setattr(meta, container, value)


def _first_meta(children):
    for child in children:
        if type(child) is Tree:
            if not child.meta.empty:
                return child.meta
        elif type(child) is Token:
            return child
    return None


def from_lark(tree):
    """A lark tree as this module's Tree and Token (for a source only lark could parse)."""
    if isinstance(tree, str) and hasattr(tree, "type"):
        return Token.new_borrow_pos(tree.type, str(tree), tree)
    if tree is None or not hasattr(tree, "children"):
        return tree
    meta = Meta()
    for key, value in vars(tree.meta).items():
        setattr(meta, key, value)
    return Tree(str(tree.data), [from_lark(c) for c in tree.children], meta)
