"""What each command does in the evaluator process: run the program, render its results.

The frontend (gradcli.cli.app: typer) parses the options and reads the program; it then hands
the evaluator one task, a JSON document (`{"task": "eval", "state": {...}, "params": {...}}`),
which run_task here carries out behind the wall.  A one-shot command's evaluator may be started
before the frontend has imported anything (kernel.process.prestart): then this module, not
the frontend, imports the engine.  No typer here."""

import signal
import sys

from ..render.console import Renderer
from .reporting import Exit, Reporting


class Task(Reporting):
    """The evaluator's side of one command: the renderer, the program and what errors need."""

    def __init__(self, mode="plain", quiet=False, source="", filename=None, located=False,
                 at=None, timeout=None):
        self.renderer = Renderer(mode, quiet=quiet)
        self.source = source
        self.filename = filename   # the program's file (run FILE, PROGRAM as @FILE)
        self.located = located     # errors show their position even when piped (run)
        self.at = at               # the --at bindings of a command that takes them
        self.namespace = {}
        self.timeout = timeout


def run_task(message, begin=None):
    """Carry out one task document (see the module's docstring); its exit code.  The
    program's errors are reported here, with their hints.  begin(): the prestarted
    evaluator's, run first (it raises KeyboardInterrupt for a Ctrl-C while it loaded)."""
    task = Task(**message["state"])
    try:
        try:
            if begin is not None:
                begin()
            code = TASKS[message["task"]](task, **message["params"])
        finally:
            _task_over()
    except SystemExit as e:
        code = e.code
    except BaseException as e:  # (KeyboardInterrupt too)
        _task_over()  # (if it came before the first call took effect)
        if not task.report(e):
            raise
        return Exit.ERROR
    return code if isinstance(code, int) else Exit.OK


def _task_over():
    """The task is over: a Ctrl-C from now on changes nothing.  Its report and its answer to the
    frontend are short and bounded (and the frontend's --timeout still ends the evaluator);
    a KeyboardInterrupt in the middle of them would end the evaluator with its last-resort
    error instead of the task's own outcome.  (run_task runs in an evaluator process only.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# ---------------------------------------------------------------------- shared plumbing

def _dtype(name):
    from ..analysis.errors import UsageError
    from ..engine import dtypes
    if name is None:
        return None
    d = {"float32": dtypes.float32, "float64": dtypes.float64, "float": dtypes.float32,
         "double": dtypes.float64}.get(name)
    if d is None:
        raise UsageError(f"--dtype must be float32 or float64, not {name!r}")
    return d


def _result_dtype(name):
    """The dtype a document reports: --dtype, else the default (float32)."""
    from ..engine import dtypes
    return _dtype(name) or dtypes.get_default_dtype()


def _bindings(at):
    from ..analysis.evaluate import parse_binding
    return [parse_binding(a) for a in at or []]


def _program_output(task):
    """Where the program's own print() goes: stdout, or stderr when stdout carries JSON."""
    return sys.stderr if task.renderer.mode == "json" else sys.stdout


class Tee:
    """A text stream that writes through to another and keeps a copy (run --json: the
    program's printed text, shown as it runs and carried in the document)."""

    def __init__(self, stream):
        self.stream = stream
        self.parts = []

    def write(self, text):
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()

    def text(self):
        return "".join(self.parts)


class Sweep:
    """The points of a sweep (parsed first: its usage errors come before the program's)."""

    def __init__(self, fixed, points, fmt, order):
        self.fixed, self.points, self.fmt = fixed, points, fmt
        self.order = order  # the --at names in the order given (the inputs' order)


def _sweep(at, zipped, csv_output, json_output, jsonl_output):
    """A Sweep when --at has a range (a:b:n) or --csv/--jsonl is asked; None otherwise."""
    from ..analysis.errors import UsageError
    from ..analysis.sweep import split_bindings, sweep_points
    fixed, sweeps = split_bindings(at)
    if sum((csv_output, json_output, jsonl_output)) > 1:
        raise UsageError("choose one of --csv, --json and --jsonl")
    if not sweeps and not csv_output and not jsonl_output:
        if zipped:
            raise UsageError("--zip pairs sweeps: give --at NAME=START:STOP:POINTS")
        return None
    fmt = "csv" if csv_output else "jsonl" if jsonl_output else "json" if json_output \
        else "table"
    from ..lang.source import python_name
    order = [python_name(spec.partition("=")[0].strip()) for spec in at or []]
    return Sweep(fixed, sweep_points(sweeps, zipped), fmt, order)


# ---------------------------------------------------------------------- the tasks

def eval_task(task, of, grad, order, dtype, retain_graph, create_graph, zipped, csv_output,
              json_output, jsonl_output):
    from ..analysis.evaluate import evaluate
    sweep = _sweep(task.at, zipped, csv_output, json_output, jsonl_output)
    if sweep is not None:
        return _eval_sweep(task, sweep, of, grad, order, dtype, retain_graph, create_graph)
    ev = evaluate(task.source, _bindings(task.at), of or (), grad, order, _dtype(dtype),
                  out=_program_output(task), record=True, timeout=task.timeout,
                  retain_graph=retain_graph, create_graph=create_graph)
    task.namespace = ev.session.namespace
    task.renderer.evaluation(ev)


def _eval_sweep(task, sweep, of, grad, order, dtype, retain_graph, create_graph):
    """eval at every point of a sweep, in this one evaluator."""
    from ..analysis.evaluate import evaluate
    from ..analysis.sweep import point_bindings
    from ..render.console import derivative_label
    from ..render.sweep import SweepWriter, at_cells
    from ..render.values import to_json
    writer = None
    chosen = _dtype(dtype)
    for point in sweep.points:
        ev = evaluate(task.source, point_bindings(point, sweep.fixed, sweep.order), of or (),
                      grad, order, chosen, out=sys.stderr, timeout=task.timeout,
                      explain_zero=False, retain_graph=retain_graph, create_graph=create_graph)
        if writer is None:
            writer = SweepWriter(task.renderer, sweep.fmt,
                                 {"dtype": ev.dtype.name, "outputs": ev.outputs,
                                  "order": ev.order})
        cells = at_cells(point) + [(o, ev.values[o]) for o in ev.outputs]
        cells += [(derivative_label(o, leaf, ev.order), g)
                  for o, gs in ev.gradients.items() for leaf, g in gs.items()]
        writer.add({"at": point,
                    "values": {k: to_json(v) for k, v in ev.values.items()},
                    "gradients": {o: {leaf: to_json(g) for leaf, g in gs.items()}
                                  for o, gs in ev.gradients.items()}}, cells)
    writer.close()


def run_file_task(task, dtype, display_name):
    from ..analysis.evaluate import new_session, program_gradients, program_values
    out = _program_output(task)
    if task.renderer.mode == "json":
        out = Tee(out)
    # (a program's warnings go to stderr, where python writes them, not among its output)
    session = new_session(_dtype(dtype), out=out, warnings_to=sys.stderr)
    task.namespace = session.namespace
    session.run(task.source, timeout=task.timeout, filename=display_name)
    if task.renderer.mode == "json":
        from ..engine import dtypes
        task.renderer.program_result(dtypes.get_default_dtype(), program_values(session),
                                     program_gradients(session), out.text())


def test_task(task, files, texts):
    from ..lang.transcript import replay_files
    return replay_files(files, sys.stdout, texts, task.timeout)


def jacobian_task(task, of, mode, dtype, zipped, csv_output, json_output, jsonl_output):
    from ..analysis.matrices import jacobian_blocks
    sweep = _sweep(task.at, zipped, csv_output, json_output, jsonl_output)
    if sweep is not None:
        return _jacobian_sweep(task, sweep, of, mode, dtype)
    outputs, blocks = jacobian_blocks(task.source, _bindings(task.at), of or (), mode,
                                      _dtype(dtype), task.timeout)
    task.renderer.matrix_result("jacobian", outputs, blocks, _result_dtype(dtype))


def _jacobian_sweep(task, sweep, of, mode, dtype):
    """jacobian at every point of a sweep."""
    from ..analysis.matrices import jacobian_blocks
    from ..analysis.sweep import point_bindings
    from ..render.sweep import SweepWriter, at_cells
    from ..render.values import to_json
    writer = None
    for point in sweep.points:
        outputs, blocks = jacobian_blocks(task.source,
                                          point_bindings(point, sweep.fixed, sweep.order),
                                          of or (), mode, _dtype(dtype), task.timeout)
        if writer is None:
            writer = SweepWriter(task.renderer, sweep.fmt,
                                 {"dtype": _result_dtype(dtype).name, "outputs": outputs})
        nested = {}
        for (out, leaf), value in blocks:
            nested.setdefault(out, {})[leaf] = to_json(value)
        writer.add({"at": point, "jacobian": nested},
                   at_cells(point) + [(f"J[{out}/{leaf}]", value)
                                      for (out, leaf), value in blocks])
    writer.close()


def hessian_task(task, of, dtype):
    from ..analysis.matrices import hessian_blocks
    outputs, blocks = hessian_blocks(task.source, _bindings(task.at), of or (), _dtype(dtype),
                                     task.timeout)
    task.renderer.matrix_result("hessian", outputs, blocks, _result_dtype(dtype))


def graph_task(task, of, grad, fmt, values, ascii_only, dtype, as_json):
    from ..analysis.evaluate import evaluate
    from ..analysis.explain import Namer
    from ..render.graph import FORMATS, GraphView, draw_ascii, graph_json
    # (the structure needs no backward pass: a non-scalar output draws without --grad)
    ev = evaluate(task.source, _bindings(task.at), of or (), grad, 1, _dtype(dtype),
                  out=sys.stderr, record=True, timeout=task.timeout, explain_zero=False,
                  gradients=values or as_json)
    task.namespace = ev.session.namespace
    namer = Namer(ev.session.namespace, ev.recording)
    steps = [s for name in ev.outputs for s in ev.steps.get(name, [])]
    view = GraphView([(n, ev.values[n]) for n in ev.outputs if hasattr(ev.values[n], "grad_fn")],
                     namer.names(), ev.recording, steps, with_values=values)
    if as_json:
        task.renderer.json({"dtype": ev.dtype.name, **graph_json(view)})
        return
    text = draw_ascii(view, ascii_only) if fmt == "ascii" else FORMATS[fmt](view)
    task.renderer.text(text)


def explain_task(task, of, grad, dtype):
    from ..analysis.evaluate import evaluate
    from ..analysis.explain import explain_steps
    from ..render.explain import explanation_json, render_explanation
    ev = evaluate(task.source, _bindings(task.at), of or (), grad, 1, _dtype(dtype),
                  out=sys.stderr, record=True, timeout=task.timeout)
    task.namespace = ev.session.namespace
    if task.renderer.mode == "json":
        task.renderer.json({"dtype": ev.dtype.name, "outputs": ev.outputs,
                            "explanations": [explanation_json(ev, name, explain_steps(ev, name))
                                             for name in ev.outputs]})
        return
    for name in ev.outputs:
        task.renderer.text(render_explanation(ev, name, explain_steps(ev, name)))


def check_task(task, of, grad, expect, rtol, atol, gradcheck, dtype, zipped, csv_output,
               json_output, jsonl_output):
    from ..analysis.checks import run_checks
    sweep = _sweep(task.at, zipped, csv_output, json_output, jsonl_output)
    if sweep is not None:
        return _check_sweep(task, sweep, of, grad, expect, rtol, atol, gradcheck, dtype)
    passed, checks = run_checks(task.source, _bindings(task.at), of or (), grad, expect or [],
                                rtol, atol, gradcheck, _dtype(dtype), task.timeout,
                                out=_program_output(task))
    task.renderer.checks(passed, checks)
    return Exit.OK if passed else Exit.FAILED


def _check_sweep(task, sweep, of, grad, expect, rtol, atol, gradcheck, dtype):
    """check at every point of a sweep: each failing point is reported; exit 1 if any."""
    from ..analysis.checks import run_checks
    from ..analysis.sweep import point_bindings
    from ..render.sweep import SweepWriter, at_cells, at_text
    writer = SweepWriter(task.renderer, sweep.fmt) if sweep.fmt != "table" else None
    failed = 0
    for point in sweep.points:
        passed, checks = run_checks(task.source, point_bindings(point, sweep.fixed, sweep.order),
                                    of or (), grad, expect or [], rtol, atol, gradcheck,
                                    _dtype(dtype), task.timeout, out=sys.stderr)
        failed += not passed
        if writer is not None:
            writer.add({"at": point, "passed": passed, "checks": checks},
                       at_cells(point) + [(c["name"], c.get("actual")) for c in checks] +
                       [("passed", passed)])
            continue
        for c in checks:
            if c["ok"]:
                continue
            text = f"FAIL at {at_text(point)}: {c['name']}"
            if c.get("expected") is not None:
                text += f": expected {c['expected']}, got {c['actual']}"
            if c.get("detail"):
                text += f" ({c['detail']})"
            task.renderer.text(text, "bold red")
    total = len(sweep.points)
    if writer is not None:
        writer.head = {"passed": not failed}  # (the JSON document: its verdict first)
        writer.close()
    elif not task.renderer.quiet or failed:
        task.renderer.text(f"{total - failed}/{total} points passed",
                           "bold green" if not failed else "bold red")
    return Exit.OK if not failed else Exit.FAILED


def plot_task(task, of, points, width, height, ascii_only, image, dtype):
    from ..analysis.plot import sample_curve
    from ..render.plot import COLOURS, render_plot
    curve = sample_curve(task.source, task.at or [], of or (), points, _dtype(dtype),
                         task.timeout)
    if image:  # (the data for the frontend, which draws and writes the file)
        import json
        from ..render.console import json_ready
        sys.stdout.write(json.dumps(json_ready(curve.to_json()), allow_nan=False))
    elif task.renderer.mode == "json":
        task.renderer.json(curve.to_json())
    elif ascii_only:
        task.renderer.text(render_plot(curve, width, height, ascii_only=True),
                           highlights=COLOURS)
    else:
        rich = task.renderer.mode == "rich"
        task.renderer.text(render_plot(curve, width, height, color=rich), ansi=rich)


TASKS = {"eval": eval_task, "run": run_file_task, "test": test_task, "jacobian": jacobian_task,
         "hessian": hessian_task, "graph": graph_task, "explain": explain_task,
         "check": check_task, "plot": plot_task}
# the commands whose evaluator the console script may start before its own imports
PROGRAM_COMMANDS = frozenset(TASKS)


# what a task imports beyond load()'s, imported before the wall too (where nothing compiled
# gradcli's modules, an editable install, the wall would keep their bytecode from being cached)
# (an op module of gradcli.ops.lazy, "ops.<name>", loads through it)
TASK_MODULES = {
    "eval": ("analysis.sweep", "render.sweep"), "run": (),
    "test": ("lang.transcript", "autograd.forward_ad"),
    "jacobian": ("analysis.matrices", "analysis.sweep", "render.sweep", "autograd.functional",
                 "autograd.forward_ad", "ops.join_split"),
    "hessian": ("analysis.matrices", "autograd.functional", "autograd.forward_ad",
                "ops.indexing", "ops.join_split", "ops.slicing"),
    "graph": ("analysis.explain", "render.graph"),
    "explain": ("analysis.explain", "render.explain"),
    "check": ("analysis.checks", "analysis.sweep", "render.sweep"), "plot": ("analysis.plot", "render.plot")}


def load(command=None):
    """What every task needs, and what the task `command` needs, imported: the evaluator's
    imports before its wall (a task may import more as it runs: the wall lets it read
    gradcli's package)."""
    import importlib
    import gradcli
    gradcli._load()
    from ..analysis import evaluate, record  # noqa: F401
    from ..lang.parser import prepare
    from ..render import values  # noqa: F401
    prepare()  # (the language: the parser's tables, lang.session and the calculator)
    from ..ops.lazy import load as load_ops
    for name in TASK_MODULES.get(command, ()):
        if name.startswith("ops."):
            load_ops(name[4:])
        else:
            importlib.import_module(f"gradcli.{name}")
