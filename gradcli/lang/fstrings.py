"""f-strings: one f-string token split into literal text and `{expression!conversion:spec}`
fields, as Python's `ast.Constant` and `ast.FormattedValue` nodes placed where the token lies
(a field's expression is parsed by gradcli's own parser, so it is gradcli's language)."""

import ast
import warnings

from .errors import ProgramError


def string_value(literal):
    """The value of a string literal's source text.  An invalid escape (`"a\\c"`) is a
    SyntaxWarning from Python 3.12 and a hidden DeprecationWarning before: warned as 3.12
    warns it on every version, so that a program's output does not depend on the
    interpreter."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = ast.literal_eval(literal)
    for warning in caught:
        if issubclass(warning.category, (SyntaxWarning, DeprecationWarning)):
            warnings.warn(str(warning.message), SyntaxWarning, stacklevel=2)
    return value


class FString:
    """Splits one f-string token; `parse_expression` parses a field's expression text."""

    def __init__(self, token, prefix, parse_expression):
        text = str(token)[len(prefix):]
        quote = text[:3] if text[:3] in ('"""', "'''") else text[0]
        self.token = token
        self.body = text[len(quote):-len(quote)]
        self.raw = "r" in prefix
        self.quote = quote
        self.parse_expression = parse_expression

    def error(self, message):
        return ProgramError("SyntaxError", f"f-string: {message}", self.token.line,
                            self.token.column)

    def placed(self, node):
        """node (and all in it) placed where the token lies."""
        from .syntax import relocate
        token = self.token
        return relocate(node, token.line, token.column, token.end_line, token.end_column)

    def parts(self):
        return self._parse(0, nested=False)[0]

    def _literal(self, text):
        if self.raw or "\\" not in text:
            return self.placed(ast.Constant(value=text))
        trailing = len(text) - len(text.rstrip("\\"))
        if trailing % 2:  # (`\{`: an invalid escape before a field keeps its backslash)
            return self.placed(ast.Constant(value=string_value(
                self.quote + text + "{" + self.quote)[:-1]))
        return self.placed(ast.Constant(value=string_value(self.quote + text + self.quote)))

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
            elif c == "\\" and not self.raw and body[i + 1:i + 2] == "\\":
                literal.append("\\\\")  # (an escaped backslash: what follows is read anew)
                i += 2
            elif c == "\\" and not self.raw and body[i + 1:i + 3] == "N{":
                end = body.find("}", i)  # (`\N{DIGIT ONE}`: a character's name, no field)
                literal.append(body[i:len(body) if end < 0 else end + 1])
                i = len(body) if end < 0 else end + 1
            else:
                literal.append(c)
                i += 1
        parts.append(self._literal("".join(literal)))
        return parts, i

    def _field(self, i):
        """Parse the field starting after `{`; returns its parts and the position after `}`."""
        from .syntax import _merge_constants
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
            spec = self.placed(ast.JoinedStr(values=_merge_constants(spec_parts)))
        elif self_documenting and conversion is None:
            conversion = "r"
        if i >= len(body) or body[i] != "}":
            raise self.error("expecting '}'")
        try:
            value = self.parse_expression("(" + expression_text + ")")
        except ProgramError as e:
            raise self.error(e.message) from None
        parts.append(self.placed(ast.FormattedValue(
            value=value, conversion=ord(conversion) if conversion else -1, format_spec=spec)))
        return parts, i + 1
