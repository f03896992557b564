"""Syntax highlighting of the input: Python via pygments, meta-command lines in their own style."""

from prompt_toolkit.lexers import Lexer, PygmentsLexer


class ReplLexer(Lexer):
    """Highlights code with pygments' Python lexer; a line starting with `:` as a meta-command."""

    def __init__(self):
        try:
            from pygments.lexers.python import PythonLexer
            self.python = PygmentsLexer(PythonLexer)
        except ImportError:  # pygments comes with rich; without it, no colour is all we lose
            self.python = None

    def lex_document(self, document):
        if document.text.lstrip().startswith(":"):
            lines = document.lines

            def meta_line(lineno):
                line = lines[lineno] if lineno < len(lines) else ""
                command, space, rest = line.partition(" ")
                return [("class:meta.command", command), ("class:meta.argument", space + rest)]
            return meta_line
        if self.python is None:
            lines = document.lines
            return lambda lineno: [("", lines[lineno] if lineno < len(lines) else "")]
        return self.python.lex_document(document)
