"""The one place output is written: plain text when piped or NO_COLOR, rich on a terminal,
one JSON document with --json.  Commands hand results here; they never print themselves."""

import os
import sys

from ..engine.records import Record


class ErrorInfo(Record):
    """An error as the user sees it: `Type: message`, plus position for syntax errors."""
    _fields = ("type", "message", "line", "column", "source_line", "hint", "located",
               "filename")

    def __init__(self, type, message, line=None, column=None, source_line=None, hint=None,
                 located=False, filename=None):
        self.type = type
        self.message = message
        self.line = line
        self.column = column
        self.source_line = source_line
        self.hint = hint
        self.located = located    # show the position of a runtime error too (error_lines)
        self.filename = filename  # the program's file: `file.grad:5:12: Type: message`

    def text_lines(self):
        if self.type == "EvaluatorCrash":  # (not the program's error: the evaluator is gone)
            return [f"gradcli: {self.message}"]
        from ..lang.errors import error_lines
        return error_lines(self.type, self.message, self.line, self.column, self.source_line,
                           self.located, self.filename)

    def to_json(self):
        return {"error": {"type": self.type, "message": self.message, "line": self.line,
                          "column": self.column}}


from ..engine.text import json_ready  # noqa: E402,F401  (the CLI's too)


def choose_mode(json_output=False, no_color=False, stream=None):
    if json_output:
        return "json"
    stream = stream or sys.stdout
    if no_color or os.environ.get("NO_COLOR") or not getattr(stream, "isatty", lambda: False)():
        return "plain"
    return "rich"


def _is_terminal(stream):
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


from ..engine.text import derivative_label  # noqa: E402,F401  (the CLI's)


class Renderer:
    """Writes results in one of three modes: "plain", "rich" or "json"."""

    def __init__(self, mode="plain", out=None, err=None, quiet=False):
        self.mode = mode
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.quiet = quiet
        self._console = None

    # ------------------------------------------------------------------ primitives
    @property
    def console(self):
        if self._console is None:
            from rich.console import Console
            self._console = Console(file=self.out, highlight=False)
        return self._console

    def line(self, text=""):
        self.out.write(text + "\n")

    def json(self, document):
        """One JSON document; non-finite numbers anywhere in it are the strings "inf", "-inf",
        "nan" (SPEC §3), never JSON's invalid NaN/Infinity."""
        import json
        self.out.write(json.dumps(json_ready(document), indent=2, allow_nan=False) + "\n")

    def text(self, text, style=None, highlights=(), ansi=False):
        """Free text (graphs, explanations, plots); on a terminal in `style`, with the matches
        of each (regular expression, style) of highlights in theirs; ansi: text carries its
        own ANSI colours (a plotille plot)."""
        if self.mode == "rich":
            from rich.text import Text
            if ansi:
                self.console.print(Text.from_ansi(text), soft_wrap=True)
                return
            rich_text = Text(text, style=style or "")
            for pattern, highlight in highlights:
                rich_text.highlight_regex(pattern, highlight)
            self.console.print(rich_text)
        else:
            self.line(text)

    def error(self, info):
        if self.mode == "json":
            self.json(info.to_json())
            return
        lines = info.text_lines()
        if self.mode == "rich":
            from rich.console import Console
            from rich.text import Text
            console = Console(file=self.err, highlight=False)
            # (soft_wrap: a long message wraps as the terminal wraps it, not mid-position)
            console.print(Text(lines[0], style="bold red"), soft_wrap=True)
            for extra in lines[1:]:
                console.print(Text(extra, style="red"), soft_wrap=True)
            if info.hint:
                console.print(Text("hint: " + info.hint, style="yellow"))
        else:
            for text in lines + ([f"hint: {info.hint}"] if info.hint else []):
                self.err.write(text + "\n")
        self.err.flush()

    def wants_hints(self):
        """Whether errors get a `hint:` line: when a person reads them on a terminal, with or
        without colour (SPEC §5); never in JSON, never when the errors are piped."""
        return self.mode != "json" and _is_terminal(self.err)

    def table(self, title, headers, rows):
        if self.mode == "rich":
            from rich.table import Table
            from rich.text import Text
            table = Table(title=title, show_lines=False)
            for h in headers:
                table.add_column(h, overflow="fold")
            for row in rows:  # (as Text: `[min, max]` is text, not rich markup)
                table.add_row(*(Text(c) if isinstance(c, str) else c for c in row))
            self.console.print(table)
            return
        widths = [max(len(h), *(len(r[i].split("\n")[0]) for r in rows)) if rows else len(h)
                  for i, h in enumerate(headers)]
        if title:
            self.line(title)
        if sum(widths) + 2 * (len(widths) - 1) > self._plain_width():
            # aligned columns would run past the terminal's width: one unpadded line a row,
            # its cells separated by tabs (for cut -f and awk -F'\t')
            for row in [headers] + [list(r) for r in rows]:
                self.line("\t".join(" ".join(c.split()) for c in row))
            return
        self.line("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip())
        for row in rows:
            self.line("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())

    def _plain_width(self):
        """The columns plain output may use: COLUMNS, the terminal's width, else 80."""
        import shutil
        return shutil.get_terminal_size((80, 24)).columns

    # ------------------------------------------------------------------ results
    def evaluation(self, ev):
        from .values import to_json, value_text
        if self.mode == "json":
            self.json({
                "dtype": ev.dtype.name, "outputs": ev.outputs, "order": ev.order,
                "values": {k: to_json(v) for k, v in ev.values.items()},
                "gradients": {o: {leaf: to_json(g) for leaf, g in gs.items()}
                              for o, gs in ev.gradients.items()}})
            return
        # --quiet: the gradients alone, for scripts that read them
        rows = [] if self.quiet else [(name, value_text(v, indent=len(name) + 3))
                                      for name, v in ev.values.items()]
        grads = []
        for o, gs in ev.gradients.items():
            for leaf, g in gs.items():
                label = derivative_label(o, leaf, ev.order)
                why = ev.reasons.get((o, leaf))
                text = value_text(g, indent=len(label) + 3)
                if getattr(g, "grad_fn", None) is not None:  # --create-graph: as repr shows it
                    text += f", grad_fn=<{type(g.grad_fn).__name__}>"
                grads.append((label, text, why))
        if self.mode == "rich":
            self._rich_evaluation(rows, grads)
            return
        for name, text in rows:
            self.line(f"{name} = {text}")
        for label, text, why in grads:
            self.line(f"{label} = {text}")
            if why and not self.quiet:
                self.line(f"  why: {why}")

    def _rich_evaluation(self, rows, grads):
        from rich.table import Table
        from rich.text import Text
        if rows:
            values = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
            values.add_column("name", style="cyan")
            values.add_column("value")
            for name, text in rows:
                values.add_row(name, text)
            self.console.print(values)
        if grads:
            table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
            table.add_column("gradient", style="magenta")
            table.add_column("value")
            for label, text, why in grads:
                table.add_row(label, text)
                if why and not self.quiet:
                    table.add_row("", Text("why: " + why, style="yellow"))
            if rows:
                self.console.print()
            self.console.print(table)

    def program_result(self, dtype, values, gradients, output):
        """`run --json`'s document: the program's names with their values, the gradients of
        named tensors, and the printed text."""
        from .values import to_json
        self.json({"dtype": dtype.name,
                   "values": {k: to_json(v) for k, v in values.items()},
                   "gradients": {k: to_json(g) for k, g in gradients.items()},
                   "output": output})

    def matrix_result(self, kind, outputs, blocks, dtype=None):
        """Jacobian/Hessian blocks: blocks is a list of (label path, tensor)."""
        from .values import to_json, value_text
        if self.mode == "json":
            doc = {"dtype": dtype.name if dtype is not None else None, "outputs": outputs,
                   kind: {}}
            for path, value in blocks:
                node = doc[kind]
                for key in path[:-1]:
                    node = node.setdefault(key, {})
                node[path[-1]] = to_json(value)
            self.json(doc)
            return
        for path, value in blocks:
            label = _block_label(kind, path)
            text = value_text(value, indent=len(label) + 3)
            if self.mode == "rich":
                from rich.text import Text
                self.console.print(Text(label, style="magenta") + Text(" = " + text))
            else:
                self.line(f"{label} = {text}")

    def checks(self, passed, checks):
        if self.mode == "json":
            self.json({"passed": passed, "checks": checks})
            return
        for c in checks:
            if self.quiet and c["ok"]:  # --quiet: the failures alone
                continue
            mark = "ok  " if c["ok"] else "FAIL"
            detail = c.get("detail")
            text = f"{mark} {c['name']}: expected {c['expected']}, got {c['actual']}" \
                if "expected" in c and c["expected"] is not None else f"{mark} {c['name']}"
            if detail:
                text += f" ({detail})"
            if self.mode == "rich":
                from rich.text import Text
                self.console.print(Text(text, style="green" if c["ok"] else "bold red"))
            else:
                self.line(text)
        if not self.quiet:
            summary = f"{sum(c['ok'] for c in checks)}/{len(checks)} checks passed"
            self.text(summary, "bold green" if passed else "bold red")


def _block_label(kind, path):
    if kind == "jacobian":
        out, leaf = path
        return f"J[{out}/{leaf}]"
    out, a, b = path
    return f"H[{out}; {a},{b}]"
