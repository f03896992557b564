"""The typer app: one typed function per command.  Each parses its options and reads the program
here, in the frontend, then hands the evaluator process one task (gradcli.cli.tasks), which runs
the program behind the wall and renders its results.  The frontend imports neither NumPy nor
the engine.  Exit codes: 0 success, 1 a check or test failed, 2 bad usage or error."""

import contextlib
import os
import sys
import time
from typing import List, Optional

import typer
from typer.core import TyperGroup
from typing import Annotated

from ..analysis.errors import UsageError
from ..render.console import ErrorInfo, Renderer, choose_mode
from .reporting import Exit, Reporting, error_info  # noqa: F401  (error_info: the REPLs')


# click's UsageError (typer's BadParameter is one), from whichever click typer uses: newer
# typer releases carry their own copy
ClickUsageError = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def _wants_json(args):
    """Whether the command line asks for --json or --jsonl (before a `--` that ends the
    options)."""
    args = list(args or ())
    options = args[:args.index("--")] if "--" in args else args
    return "--json" in options or "--jsonl" in options


class JsonUsageError(ClickUsageError):
    """A usage error of a command line that asked for --json: shown as the JSON error document
    on stdout (SPEC §3: --json always gives one document), still exit code 2."""

    exit_code = Exit.ERROR

    def __init__(self, error):
        super().__init__(error.format_message(), getattr(error, "ctx", None))

    def show(self, file=None):
        import json
        typer.echo(json.dumps(ErrorInfo("UsageError", self.format_message()).to_json(),
                              indent=2))


class JsonUsageGroup(TyperGroup):
    """The root group: click's usage errors (a bad option value, an unknown option) become a
    JSON error document when the command line has --json."""

    def make_context(self, info_name, args, parent=None, **extra):
        wants = _wants_json(args)
        with _json_usage_errors(wants):
            ctx = super().make_context(info_name, args, parent, **extra)
        ctx.meta["gradcli.json"] = wants
        return ctx

    def invoke(self, ctx):
        with _json_usage_errors(ctx.meta.get("gradcli.json")):
            return super().invoke(ctx)

    def format_commands(self, ctx, formatter):
        """`gradcli --help` lists each command with its whole first sentence, wrapped (click
        cuts it at 45 characters with `...`)."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@contextlib.contextmanager
def _json_usage_errors(wants_json):
    """Turn click's usage errors raised in the block into JsonUsageError when --json was asked."""
    try:
        yield
    except ClickUsageError as e:
        if wants_json and not isinstance(e, JsonUsageError):
            raise JsonUsageError(e) from None
        raise


app = typer.Typer(cls=JsonUsageGroup, add_completion=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="A gradient calculator with PyTorch's autograd semantics.")

def _starting(incomplete, *choices):
    """Shell completion of an option's value: the choices that start with what is typed."""
    return [c for c in choices if c.startswith(incomplete or "")]


Program = Annotated[str, typer.Argument(
    metavar="PROGRAM", help="The program text, - for standard input, or @FILE.")]
At = Annotated[Optional[List[str]], typer.Option(
    "--at", metavar="NAME=VALUE", help="Bind NAME=VALUE as a leaf with requires_grad (VALUE is an expression: 3, [1,2], "
    "randn(3), torch.tensor(3.); or a sweep START:STOP:POINTS in eval, check and jacobian). "
    "Repeatable.")]
Of = Annotated[Optional[List[str]], typer.Option(
    "--of", metavar="NAME", help="Output name to differentiate (repeatable; default: the last assigned name or "
    "expression).")]
Grad = Annotated[Optional[str], typer.Option("--grad", metavar="VALUE", help="Gradient for a non-scalar output.")]
Dtype = Annotated[Optional[str], typer.Option(
    "--dtype", metavar="DTYPE", help="Default floating dtype: float32 (PyTorch's default) or float64.",
    autocompletion=lambda incomplete: _starting(incomplete, "float32", "float64"))]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print less.")]
Zip = Annotated[bool, typer.Option(
    "--zip", help="Pair the sweeps (--at x=a:b:n ...) point by point instead of a grid.")]
Csv = Annotated[bool, typer.Option("--csv", help="A sweep as CSV: a header, then a line a point.")]
Jsonl = Annotated[bool, typer.Option(
    "--jsonl", help="A sweep as JSON lines: one object a point, written as it is computed.")]
NoColor = Annotated[bool, typer.Option("--no-color", help="Plain output even on a terminal.")]


def _check_timeout(value):
    """--timeout SECONDS: a positive, finite number (a usage error, exit 2, otherwise)."""
    import math
    if value is not None and not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"{value:g} is not a positive number of seconds")
    return value


Timeout = Annotated[Optional[float], typer.Option(
    "--timeout", metavar="SECONDS", callback=_check_timeout,
    help="Stop a program that runs longer than SECONDS.")]


def _version(value: bool):
    if value:
        from .. import __version__
        from ..kernel.wall import describe
        typer.echo(f"gradcli {__version__}")
        typer.echo(describe())
        raise typer.Exit(Exit.OK)


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False):
    """gradcli: values, gradients, Jacobians, Hessians and backward graphs, as PyTorch computes
    them, from the command line."""


# ---------------------------------------------------------------------- shared plumbing

def read_program(program):
    """PROGRAM as given, `-` for standard input, `@file` for a (regular) file; read no further
    than the source limit."""
    from ..lang.source import read_source
    if program != "-" and not program.startswith("@"):
        return program
    path = "-" if program == "-" else program[1:]
    try:
        return read_source(path)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None


class Command(Reporting):
    """Context for one command run in the frontend: the options every command shares, the
    program, and error handling that turns any failure into `Type: message` with exit code 2
    (never a traceback).

    The frontend (this process) parses the options and reads the program; `evaluate(task,
    params)` has the evaluator (gradcli.kernel) carry out the named task of gradcli.cli.tasks
    behind the operating system's wall."""

    def __init__(self, json_output=False, no_color=False, quiet=False, timeout=None):
        self.renderer = Renderer(choose_mode(json_output, no_color), quiet=quiet)
        self.source = ""
        self.filename = None   # the program's file (run FILE, PROGRAM as @FILE)
        self.located = False   # errors show their position even when piped (run)
        self.at = None         # the --at bindings of a command that takes them
        self.namespace = {}
        self.timeout = timeout
        self.started = time.monotonic()  # (--timeout bounds the whole command from here)

    def read(self, program, located=False, at=None):
        """Read PROGRAM (text, - or @FILE) into self.source; remember the file it came from
        and the --at bindings (a command that takes them: at is a list)."""
        self.at = list(at or [])
        self.source = read_program(program)
        if program.startswith("@"):
            self.filename = program[1:]
        elif program == "-" and located:
            self.filename = "<stdin>"
        self.located = located

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or isinstance(exc, (typer.Exit, SystemExit)):
            return False
        if not self.report(exc):
            return False
        raise typer.Exit(Exit.ERROR)

    def evaluate(self, task, out=None, **params):
        """Have an evaluator carry out `task` (a name of gradcli.cli.tasks.TASKS) with this
        command's program and params; its output comes back here; its errors are reported
        there, with their hints.  An evaluator that crashes, overruns --timeout or ignores
        Ctrl-C is one error line here.  Exit codes pass through (raises typer.Exit)."""
        from ..kernel.process import EvaluatorGone, run_document
        from .tasks import run_task
        document = {"task": task, "params": params,
                    "state": {"mode": self.renderer.mode, "quiet": self.renderer.quiet,
                              "source": self.source, "filename": self.filename,
                              "located": self.located, "at": self.at,
                              "timeout": self.timeout}}
        try:
            code = run_document(document, run_task, timeout=self.timeout, out=out)
        except EvaluatorGone as e:
            self.renderer.error(error_info(e))
            raise typer.Exit(Exit.ERROR) from None
        if code != Exit.OK:
            raise typer.Exit(code)


# ---------------------------------------------------------------------- commands

@app.command("eval")
def eval_command(program: Program, at: At = None, of: Of = None, grad: Grad = None,
                 retain_graph: Annotated[bool, typer.Option(
                     "--retain-graph", help="Keep the graph after every backward pass (the "
                     "program's own too, as with retain_graph=True).")] = False,
                 create_graph: Annotated[bool, typer.Option(
                     "--create-graph", help="Build a graph of every backward pass (the "
                     "program's own too): the gradients are differentiable and show their "
                     "grad_fn.")] = False,
                 order: Annotated[int, typer.Option(
                     "--order", metavar="N", help="The N-th derivative: 2 gives every second "
                     "partial (the Hessian, mixed ones too), N > 2 the pure and mixed partials "
                     "of scalar inputs.", min=1)] = 1,
                 dtype: Dtype = None, json_output: Json = False, quiet: Quiet = False,
                 no_color: NoColor = False, timeout: Timeout = None, zipped: Zip = False,
                 csv_output: Csv = False, jsonl_output: Jsonl = False):
    """Evaluate PROGRAM and print values and gradients of each output with respect to each leaf.

    Example: gradcli eval "z = (2*x)**3" --at x=3

    Sweep: --at x=-1:1:5 evaluates at 5 points from -1 to 1 (several sweeps: a grid, or with
    --zip point by point), printed as a table, --csv, --json or --jsonl.
    """
    with Command(json_output or jsonl_output, no_color, quiet, timeout) as cmd:
        cmd.read(program, at=at)
        cmd.evaluate("eval", of=of, grad=grad, order=order, dtype=dtype,
                     retain_graph=retain_graph, create_graph=create_graph, zipped=zipped,
                     csv_output=csv_output, json_output=json_output, jsonl_output=jsonl_output)


@app.command("run")
def run_command(file: Annotated[str, typer.Argument(
                    metavar="FILE", help="Program file (or @FILE), - for standard input.")],
                dtype: Dtype = None, json_output: Json = False, no_color: NoColor = False,
                timeout: Timeout = None):
    """Run a program file like a script (no echo); stop at the first error with exit code 2.

    With --json, what the program prints goes to standard error as it runs, and the document
    holds the program's names and their values, the gradients of named tensors, and the
    printed text."""
    with Command(json_output, no_color, timeout=timeout) as cmd:
        if file.startswith("@") and not os.path.exists(file):
            file = file[1:]  # `run @FILE`, as every other command reads a program file
        cmd.read(file if file == "-" else "@" + file, located=True)
        cmd.evaluate("run", dtype=dtype, display_name="<stdin>" if file == "-" else file)


@app.command("repl")
def repl_command(dtype: Dtype = None, no_color: NoColor = False, timeout: Timeout = None):
    """The interactive REPL (piped standard input: PyTorch's interactive-interpreter protocol)."""
    from ..engine import dtypes
    from .tasks import _dtype
    if dtype:
        with Command():
            dtypes.set_default_dtype(_dtype(dtype))
    if not sys.stdin.isatty():
        from .replcore import run_piped_in_evaluator
        raise typer.Exit(run_piped_in_evaluator(sys.stdin, sys.stdout, timeout))
    from .repl import run_interactive
    raise typer.Exit(run_interactive(no_color=no_color, timeout=timeout))


@app.command("test")
def test_command(files: Annotated[List[str], typer.Argument(metavar="FILE...", help="Transcript files.")],
                 timeout: Timeout = None):
    """Replay transcript files through the piped REPL; exit 1 on any mismatch (with a diff)."""
    from ..lang.source import read_files
    with Command(timeout=timeout) as cmd:
        for f in files:
            if not os.path.exists(f):
                raise UsageError(f"no such file: {f}")
        texts = read_files(files)  # (here: the evaluator reads no file)
        cmd.evaluate("test", files=files, texts=texts)


@app.command("jacobian")
def jacobian_command(program: Program, at: At = None, of: Of = None,
                     mode: Annotated[str, typer.Option(
                         "--mode", metavar="MODE", help="reverse (row by row) or forward (column by column).",
                         autocompletion=lambda incomplete: _starting(incomplete, "reverse", "forward"))]
                     = "reverse",
                     dtype: Dtype = None, json_output: Json = False, no_color: NoColor = False,
                     timeout: Timeout = None, zipped: Zip = False, csv_output: Csv = False,
                     jsonl_output: Jsonl = False):
    """The Jacobian of each output with respect to each --at input (over a sweep: at each
    point)."""
    with Command(json_output or jsonl_output, no_color, timeout=timeout) as cmd:
        if mode not in ("reverse", "forward"):
            raise UsageError(f"--mode must be reverse or forward, not {mode!r}")
        cmd.read(program, at=at)
        cmd.evaluate("jacobian", of=of, mode=mode, dtype=dtype, zipped=zipped,
                     csv_output=csv_output, json_output=json_output, jsonl_output=jsonl_output)


@app.command("hessian")
def hessian_command(program: Program, at: At = None, of: Of = None, dtype: Dtype = None,
                    json_output: Json = False, no_color: NoColor = False,
                    timeout: Timeout = None):
    """The Hessian of a scalar output with respect to the --at inputs."""
    with Command(json_output, no_color, timeout=timeout) as cmd:
        cmd.read(program, at=at)
        cmd.evaluate("hessian", of=of, dtype=dtype)


@app.command("graph")
def graph_command(program: Program, at: At = None, of: Of = None, grad: Grad = None,
                  fmt: Annotated[str, typer.Option(
                      "--format", metavar="FORMAT",
                      help="ascii, dot, mermaid, or svg/png (through Graphviz's dot).",
                      autocompletion=lambda incomplete: _starting(
                          incomplete, "ascii", "dot", "mermaid", "svg", "png"))] = "ascii",
                  output: Annotated[Optional[str], typer.Option(
                      "--output", "-o", metavar="FILE",
                      help="Write the drawing to FILE (svg and png; svg goes to standard "
                      "output without it).")] = None,
                  values: Annotated[bool, typer.Option(
                      "--values", help="Show value and gradient on every node.")] = False,
                  ascii_only: Annotated[bool, typer.Option(
                      "--ascii", help="Pure ASCII tree lines.")] = False,
                  dtype: Dtype = None, json_output: Json = False, no_color: NoColor = False,
                  timeout: Timeout = None):
    """Draw the backward graph of the outputs (--json: nodes, edges, values and gradients)."""
    from ..render.pictures import DRAWN_FORMATS, IMAGE_FORMATS
    with Command(json_output, no_color, timeout=timeout) as cmd:
        if fmt not in DRAWN_FORMATS and fmt not in IMAGE_FORMATS:
            raise UsageError(f"--format must be ascii, dot, mermaid, svg or png, not {fmt!r}")
        picture = fmt in IMAGE_FORMATS and not json_output
        if picture:
            _check_graphviz(fmt, output)
        cmd.read(program, at=at)
        params = dict(of=of, grad=grad, fmt=fmt, values=values, ascii_only=ascii_only,
                      dtype=dtype, as_json=cmd.renderer.mode == "json" or picture)
        if not picture and output is None:
            cmd.evaluate("graph", **params)
            return
        captured = _captured(cmd, "graph", params)
        if picture:
            _write_graph_picture(cmd, captured, fmt, output)
        else:
            _write_file(output, captured.encode("utf-8"))


@app.command("explain")
def explain_command(program: Program, at: At = None, of: Of = None, grad: Grad = None,
                    dtype: Dtype = None, json_output: Json = False, no_color: NoColor = False,
                    timeout: Timeout = None):
    """The backward pass step by step: each node, its local derivative, the chain rule."""
    with Command(json_output, no_color, timeout=timeout) as cmd:
        cmd.read(program, at=at)
        cmd.evaluate("explain", of=of, grad=grad, dtype=dtype)


@app.command("check")
def check_command(program: Program, at: At = None, of: Of = None, grad: Grad = None,
                  expect: Annotated[Optional[List[str]], typer.Option(
                      "--expect", metavar="EXPECTATION", help="NAME.grad=VALUE, dOUT/dLEAF=VALUE (as eval labels it) or NAME=VALUE (repeatable).")] = None,
                  rtol: Annotated[float, typer.Option("--rtol", metavar="RTOL")] = 1e-5,
                  atol: Annotated[float, typer.Option("--atol", metavar="ATOL")] = 1e-8,
                  gradcheck: Annotated[bool, typer.Option(
                      "--gradcheck", help="Compare gradients with central differences (float64).")]
                  = False,
                  dtype: Dtype = None, json_output: Json = False, quiet: Quiet = False,
                  no_color: NoColor = False, timeout: Timeout = None, zipped: Zip = False,
                  csv_output: Csv = False, jsonl_output: Jsonl = False):
    """Check derivatives for scripts: exit 0 when every expectation holds, 1 otherwise.

    Over a sweep (--at x=a:b:n) every point is checked and each failing one reported."""
    with Command(json_output or jsonl_output, no_color, quiet, timeout) as cmd:
        cmd.read(program, at=at)
        cmd.evaluate("check", of=of, grad=grad, expect=expect, rtol=rtol, atol=atol,
                     gradcheck=gradcheck, dtype=dtype, zipped=zipped, csv_output=csv_output,
                     json_output=json_output, jsonl_output=jsonl_output)


@app.command("plot")
def plot_command(program: Program, at: At = None, of: Of = None,
                 points: Annotated[int, typer.Option("--points", metavar="N", min=3, max=2000)] = 61,
                 width: Annotated[int, typer.Option("--width", metavar="COLUMNS", min=20, max=400)] = 72,
                 height: Annotated[int, typer.Option("--height", metavar="ROWS", min=5, max=200)] = 20,
                 ascii_only: Annotated[bool, typer.Option(
                     "--ascii", help="A character grid in pure ASCII instead of braille.")]
                 = False,
                 output: Annotated[Optional[str], typer.Option(
                     "--output", "-o", metavar="FILE",
                     help="Write the plot as FILE.png or FILE.svg (needs matplotlib: "
                     "pip install 'gradcli[plot]').")] = None,
                 dtype: Dtype = None, json_output: Json = False, no_color: NoColor = False,
                 timeout: Timeout = None):
    """Plot the output and its derivative over a range: --at x=-3:3 (or -3:3:N points).

    Two panels, each with its own axes: the output above, its derivative below."""
    with Command(json_output, no_color, timeout=timeout) as cmd:
        _check_plot_range(at or [])
        fmt = _image_format(output) if output is not None else None
        cmd.read(program, at=at)
        params = dict(of=of, points=points, width=width, height=height, ascii_only=ascii_only,
                      image=fmt is not None, dtype=dtype)
        if fmt is None:
            cmd.evaluate("plot", **params)
            return
        _write_plot_image(cmd, _captured(cmd, "plot", params), output, fmt)


def _check_plot_range(at):
    """A range's ends must be finite and less than the largest float apart: its points are
    spaced (STOP - START) / (POINTS - 1), and -1e308:1e308 made them inf and nan, which
    plotille refused with an AssertionError.  (The rest of the range, the evaluator checks.)"""
    import math
    for spec in at:
        parts = spec.partition("=")[2].split(":")
        if len(parts) not in (2, 3):
            continue
        try:
            start, stop = float(parts[0]), float(parts[1])
        except ValueError:
            continue
        if not (math.isfinite(start) and math.isfinite(stop) and math.isfinite(stop - start)):
            raise UsageError(f"--at {spec!r}: START and STOP must be finite and less than "
                             f"{sys.float_info.max:.3g} apart")


def _check_graphviz(fmt, output):
    """graph --format svg|png needs Graphviz's dot (and a file for png on a terminal)."""
    import shutil
    if shutil.which("dot") is None:
        raise UsageError(f"--format {fmt} needs Graphviz's dot on PATH (install graphviz); "
                         f"--format dot writes the DOT text, --format mermaid a Mermaid chart")
    if fmt == "png" and output is None and sys.stdout.isatty():
        raise UsageError("--format png writes binary data: give --output FILE.png")


def _write_file(path, data):
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None


def _captured(cmd, command, params):
    """What the evaluator printed for `command` (a document for -o), at most MAX_CAPTURE
    characters: more ends the command with one EvaluatorCrash line."""
    from ..kernel.bounds import MAX_CAPTURE, CapturedOutput
    captured = CapturedOutput()
    cmd.evaluate(command, out=captured, **params)
    if captured.overflowed:
        cmd.renderer.error(ErrorInfo("EvaluatorCrash", f"the evaluator printed more than "
                                     f"{MAX_CAPTURE >> 20} MiB for --output"))
        raise typer.Exit(Exit.ERROR)
    return captured.getvalue()


def _from_evaluator(cmd, document, check, what):
    """check(the JSON document the evaluator printed): untrusted data, so anything else (or a
    document that would swell the frontend's memory) ends the command with one EvaluatorCrash
    line."""
    from ..kernel.bounds import loads_bounded
    try:
        return check(loads_bounded(document))
    except (ValueError, RecursionError):
        cmd.renderer.error(ErrorInfo("EvaluatorCrash", f"the evaluator sent no valid {what}"))
        raise typer.Exit(Exit.ERROR) from None


def _write_graph_picture(cmd, document, fmt, output):
    """The evaluator's graph document (checked: untrusted data) drawn by Graphviz in fmt."""
    from ..render.pictures import (PictureTimeout, PictureTooLarge, dot_from_json,
                                   rank_crossings, render_with_graphviz)
    dot_text, nodes, crossings = _from_evaluator(
        cmd, document, lambda graph: (dot_from_json(graph), len(graph["nodes"]), rank_crossings(
            (e["to"], e["from"]) for e in graph["edges"])), "graph")
    left = None if cmd.timeout is None else cmd.timeout - (time.monotonic() - cmd.started)
    try:
        data = render_with_graphviz(dot_text, fmt, timeout=left, nodes=nodes,
                                    crossings=crossings)
    except PictureTooLarge as e:
        raise UsageError(f"--format {fmt}: {e}") from None
    except PictureTimeout as e:
        if cmd.timeout is None:
            raise UsageError(f"Graphviz's dot failed: {e}") from None
        cmd.renderer.error(ErrorInfo("TimeoutError", f"Graphviz's dot ran past --timeout "
                                     f"{cmd.timeout:g} s (raise the limit with --timeout; "
                                     f"--format dot writes the DOT text)"))
        raise typer.Exit(Exit.ERROR) from None
    except FileNotFoundError:
        raise UsageError(f"--format {fmt} needs Graphviz's dot on PATH (install graphviz)") \
            from None
    except (RuntimeError, OSError) as e:
        raise UsageError(f"Graphviz's dot failed: {e}") from None
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    _write_file(output, data)


def _image_format(path):
    """png or svg, from --output FILE's extension (a usage error otherwise, or when matplotlib,
    the `plot` extra, is not installed)."""
    import importlib.util
    from ..render.plot import IMAGE_FORMATS
    fmt = os.path.splitext(path)[1].lower().lstrip(".")
    if fmt not in IMAGE_FORMATS:
        raise UsageError(f"--output {path}: the file must end in .png or .svg")
    try:
        found = importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UsageError("--output needs matplotlib: pip install 'gradcli[plot]'")
    return fmt


def _write_plot_image(cmd, document, path, fmt):
    """Draw the evaluator's sampled curve (checked: it is untrusted data) into path."""
    from ..render.plot import IMAGE_DPI, IMAGE_SIZE, curve_from_json, write_image
    curve = _from_evaluator(cmd, document, curve_from_json, "plot data")
    try:
        write_image(curve, path, fmt)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
    if cmd.renderer.mode != "json":
        w, h = IMAGE_SIZE
        size = f"{w * IMAGE_DPI}x{h * IMAGE_DPI} px" if fmt == "png" else f"{w * 72}x{h * 72} pt"
        cmd.renderer.line(f"wrote {path} ({fmt.upper()}, {size})")


@app.command("ops")
def ops_command(name: Annotated[Optional[str], typer.Argument(metavar="[NAME]", help="Show one op.")] = None,
                json_output: Json = False, no_color: NoColor = False):
    """The operation table: names, signatures, grad_fn names and derivative formulas."""
    from ..analysis.optable import op_rows
    with Command(json_output, no_color) as cmd:
        rows = op_rows(name)
        if cmd.renderer.mode == "json":
            cmd.renderer.json({"ops": rows})
        else:
            cmd.renderer.table(None, ["op", "signature", "grad_fn", "derivative", "doc"],
                               [[r["name"], r["signature"], r["grad_fn"] or "-",
                                 r["formula"] or "-", r["doc"]] for r in rows])


def app_for(argv):
    """The app, with only the command that argv names if it names one: typer makes each
    command's click object from its signature at every start, and making the ten others would
    cost a one-shot `gradcli eval` several milliseconds."""
    if argv and not argv[0].startswith("-"):
        chosen = [c for c in app.registered_commands if c.name == argv[0]]
        if chosen:
            single = typer.Typer.__new__(typer.Typer)
            single.__dict__.update(vars(app), registered_commands=chosen)
            return single
    return app


def run_app(argv):
    """Run the typer app on argv; returns the exit code (usage errors exit 2, as click does)."""
    try:
        app_for(argv)(args=argv, prog_name="gradcli", standalone_mode=True)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else Exit.ERROR)
    return Exit.OK
