"""REPL meta-commands (`:help`, `:vars`, `:graph`, …), registered once by `@command`: the one
registry feeds dispatch, `:help` and completion.  Also the session transcript behind `:save`
and `:load` (the format of shared/transcripts, which `gradcli test` replays)."""

from dataclasses import dataclass

import numpy as np

from ..engine import dtypes
from ..engine.graph import AccumulateGrad
from ..engine.tensor import Tensor


@dataclass
class Command:
    name: str
    run: object              # fn(repl, argument) -> False to leave the REPL, else None
    usage: str
    summary: str
    argument: object = None  # completion of the argument: "tensor", "file", a list, or None
    frontend: bool = False   # run by the REPL's frontend (the user's files), not the evaluator


COMMANDS = {}
NARROW = 60  # columns below which tables are shown as lists


def command(name, usage="", argument=None, frontend=False):
    """Register a meta-command; the first docstring line is its `:help` summary."""
    def register(fn):
        summary = (fn.__doc__ or "").strip().split("\n")[0]
        COMMANDS[name] = Command(name, fn, usage, summary, argument, frontend)
        return fn
    return register


class MetaError(Exception):
    """A meta-command failed: shown as `Type: message` like any other error."""

    def __init__(self, type_name, message, hint_source=None):
        super().__init__(message)
        self.type_name = type_name
        self.message = message
        self.hint_source = hint_source  # the program line the hint should speak about


def dispatch(repl, line):
    """Run one meta-command line; returns False when the REPL should exit."""
    name, _, argument = line.strip().partition(" ")
    cmd = COMMANDS.get(name)
    if cmd is None:
        close = [n for n in COMMANDS if n.startswith(name[:2])] if len(name) > 1 else []
        raise MetaError("UsageError", f"unknown command {name}" +
                        (f" (did you mean {', '.join(sorted(close))}?)" if close else
                         " (:help lists the commands)"))
    return cmd.run(repl, argument.strip()) is not False


# ---------------------------------------------------------------------- helpers

def _tensor(repl, name, usage):
    if not name:
        raise MetaError("UsageError", f"usage: {usage}")
    if name not in repl.namespace:
        raise MetaError("NameError", f"name '{name}' is not defined")
    value = repl.namespace[name]
    if not isinstance(value, Tensor):
        raise MetaError("TypeError", f"{name} is a {type(value).__name__}, not a tensor")
    return value


def _tensor_or_expression(repl, text, usage):
    """The tensor a name or an expression of the program's names gives (an expression is
    evaluated in the session, as if typed; its value is not kept)."""
    if not text or text.isidentifier():
        return _tensor(repl, text, usage)
    from ..lang.errors import ProgramError
    try:
        with repl.recording:
            value = repl.session.eval(text, repl.timeout)
    except ProgramError as e:
        raise MetaError(e.type_name, e.message) from None
    if not isinstance(value, Tensor):
        raise MetaError("TypeError", f"{text} is a {type(value).__name__}, not a tensor")
    return value


def _named_leaves(namespace):
    return {id(v): n for n, v in namespace.items() if isinstance(v, Tensor) and v.grad_fn is None}


def trace_backward(repl, tensor):
    """A backward pass of `tensor` observed node by node, without touching any `.grad`.

    Returns (leaves {name: tensor}, gradients {name: tensor|None}, steps) or raises the
    engine's error (e.g. a graph already freed by backward())."""
    from ..analysis.trace import reachable_nodes, traced_grad
    variables = [n.variable for n in reachable_nodes([tensor.grad_fn])
                 if type(n) is AccumulateGrad]
    if not variables:
        return {}, {}, []
    seed = None
    if tensor._data.size != 1:
        seed = Tensor._make(np.ones_like(tensor._data), None, 0, False)
    from ..lang.errors import ProgramError
    with repl.quiet_program_output():
        try:  # (the pass runs the program's hooks: held to its --timeout, as statements are)
            grads, steps = repl.session.call(lambda: traced_grad(tensor, variables, seed),
                                             repl.timeout)
        except ProgramError as e:
            if e.type_name == "RuntimeError":  # (the engine's: a graph freed by backward())
                raise RuntimeError(e.message) from None
            raise MetaError(e.type_name, e.message) from None
    names = _named_leaves(repl.namespace)
    leaves, gradients = {}, {}
    for v, g in zip(variables, grads):
        name = names.get(id(v))
        if name is not None:
            leaves[name] = v
            gradients[name] = g
    return leaves, gradients, steps


def backward_of(repl, tensor):
    """The backward pass of `tensor` as trace_backward gives it: the last one the program ran
    from it (its graph may be freed since), else one traced now."""
    for roots, steps in reversed(repl.tracer.passes):
        if any(r is tensor for r in roots):
            break
    else:
        return trace_backward(repl, tensor)
    names = _named_leaves(repl.namespace)
    leaves, gradients = {}, {}
    for step in steps:
        for (child, _), g in zip(step.node.next_functions, step.grad_inputs):
            name = names.get(id(child.variable)) if type(child) is AccumulateGrad else None
            if name is not None and g is not None:
                leaves[name] = child.variable
                gradients[name] = g if name not in gradients else gradients[name] + g
    return leaves, gradients, steps


def _short(value):
    from ..render.values import short_value
    return short_value(value, limit=4) if value is not None else "None"


# ---------------------------------------------------------------------- commands

@command(":help", ":help [COMMAND|OP]", argument="command")
def help_command(repl, argument):
    """Show the meta-commands, or help on one command or op."""
    if argument:
        key = argument if argument.startswith(":") else ":" + argument
        if key in COMMANDS:
            cmd = COMMANDS[key]
            repl.renderer.text(f"{cmd.usage or cmd.name}\n  {cmd.summary}")
            return
        from ..analysis.evaluate import UsageError
        from ..analysis.optable import op_rows
        try:
            rows = op_rows(argument)
        except UsageError as e:
            raise MetaError("UsageError", str(e)) from None
        for r in rows:
            lines = [r["signature"], f"  {r['doc']}"]
            if r["formula"]:
                lines.append(f"  derivative: {r['formula']}")
            if r["grad_fn"]:
                lines.append(f"  grad_fn: {r['grad_fn']}")
            repl.renderer.text("\n".join(lines))
        return
    rows = [[cmd.usage or cmd.name, cmd.summary] for cmd in COMMANDS.values()]
    repl.renderer.table(None, ["command", "what it does"], rows)
    repl.renderer.text(
        "Type Python (a PyTorch autograd snippet) to run it. Enter runs a complete statement; "
        "a compound statement (for, def, with, …) ends at an empty line.\n"
        "Tab completes, Ctrl-R searches history, → accepts a suggestion, Ctrl-C cancels the "
        "input or stops a running program, Ctrl-D exits.")


@command(":vars", ":vars [NAME...]", argument="tensor")
def vars_command(repl, argument):
    """Every tensor in scope (or the NAMEs given): shape, value, requires_grad, grad_fn, grad,
    backward passes."""
    rows = []
    wanted = argument.replace(",", " ").split()
    for name in wanted:
        if name not in repl.namespace:
            raise MetaError("NameError", f"name '{name}' is not defined")
        if not isinstance(repl.namespace[name], Tensor):
            raise MetaError("TypeError", f"{name} is a {type(repl.namespace[name]).__name__}, "
                                         f"not a tensor")
    for name, t in sorted(repl.namespace.items()):
        if not isinstance(t, Tensor) or name.startswith("_") or (wanted and name not in wanted):
            continue
        rows.append([name, str(list(t._data.shape)), _short(t), str(t.requires_grad),
                     t.grad_fn.name() if t.grad_fn is not None else "-",
                     _short(t._grad), str(t._grad_count)])
    if not rows:
        repl.renderer.text("no tensors in scope")
        return
    headers = ["name", "shape", "value", "requires_grad", "grad_fn", "grad", "backward passes"]
    if repl.width() < NARROW:  # a table would fold into one letter per line: list instead
        repl.renderer.text("\n".join(
            "\n".join([row[0]] + [f"  {h}: {v}" for h, v in zip(headers[1:], row[1:])])
            for row in rows))
        return
    repl.renderer.table(None, headers, rows)


@command(":graph", ":graph NAME|EXPR", argument="tensor")
def graph_command(repl, argument):
    """The backward graph of NAME (or of an expression), with the value and gradient of every
    node."""
    from ..analysis.explain import Namer
    from ..render.graph import GraphView, draw_ascii
    t = _tensor_or_expression(repl, argument, ":graph NAME|EXPR")
    steps, note = [], None
    if t.grad_fn is not None:
        try:
            steps = backward_of(repl, t)[2]
        except RuntimeError as e:
            note = f"(gradients not shown: {str(e).split('.')[0]})"
    names = Namer(repl.namespace, repl.recording).names()
    view = GraphView([(argument, t)], names, repl.recording, steps, with_values=True)
    repl.renderer.text(draw_ascii(view, ascii_only=not repl.unicode))
    if note:
        repl.renderer.text(note, "yellow")


@command(":explain", ":explain NAME", argument="tensor")
def explain_command(repl, argument):
    """The backward pass of NAME step by step: local derivatives and the chain rule."""
    from ..analysis.evaluate import Evaluation
    from ..analysis.explain import explain_steps
    from ..analysis.why import why_tensor
    from ..render.explain import render_explanation
    t = _tensor(repl, argument, ":explain NAME")
    ev = Evaluation(repl.session, dtypes.get_default_dtype(), {}, [argument], {argument: t},
                    recording=repl.recording)
    if t.grad_fn is None:
        ev.reasons[(argument, "")] = (f"{argument} is a leaf" if t.requires_grad
                                      else why_tensor(argument, t))
    else:
        try:
            leaves, gradients, steps = backward_of(repl, t)
        except RuntimeError as e:
            raise MetaError("RuntimeError", str(e).split("\n")[0],
                            f"{argument}.backward()") from None
        ev.leaves = leaves
        ev.values.update(leaves)
        ev.gradients[argument] = gradients
        ev.steps[argument] = steps
    repl.renderer.text(render_explanation(ev, argument, explain_steps(ev, argument)))


@command(":why", ":why NAME", argument="tensor")
def why_command(repl, argument):
    """Why NAME.grad is None or zero."""
    from ..analysis.why import why_tensor
    if not argument:
        raise MetaError("UsageError", "usage: :why NAME")
    if argument not in repl.namespace:
        raise MetaError("NameError", f"name '{argument}' is not defined")
    t = repl.namespace[argument]
    answer = why_tensor(argument, t)
    if isinstance(t, Tensor) and t._grad is not None and not np.any(t._grad._data):
        node_level = _why_zero_in_session(repl, argument, t)
        if node_level:  # which node passed zero back: as eval's why-line says it
            answer = f"{argument}.grad is zero: {node_level}"
    repl.renderer.text(answer)


def _why_zero_in_session(repl, name, t):
    """eval's why-line for a zero .grad: the node of the last backward pass that reached t
    which passed zero back (a kink, a flat region), or None."""
    from types import SimpleNamespace

    from ..analysis.why import _why_zero
    acc = t._accumulator()
    for roots, steps in reversed(repl.tracer.passes):
        if any(child is acc for step in steps for child, _ in step.node.next_functions):
            out = next((n for n, v in repl.namespace.items() if any(v is r for r in roots)),
                       "the output")
            shim = SimpleNamespace(steps={out: steps}, recording=repl.recording)
            return _why_zero(shim, out, name)
    return None


@command(":reset", ":reset")
def reset_command(repl, argument):
    """Start a fresh session: no variables, default dtype and grad mode restored."""
    repl.reset()
    repl.renderer.text("session reset")


@command(":load", ":load FILE", argument="file", frontend=True)
def load_command(repl, argument):
    """Run a program file (or a transcript's statements) as if pasted."""
    if not argument:
        raise MetaError("UsageError", "usage: :load FILE")
    from ..lang.limits import read_source
    try:
        text = read_source(_path(argument))
    except OSError as e:
        raise MetaError("OSError", f"cannot read {argument}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise MetaError("OSError", f"{argument} is not UTF-8 text") from None
    except MemoryError as e:
        raise MetaError("MemoryError", str(e)) from None
    if is_transcript(text):
        repl.run_statements(transcript_statements(text))
    else:
        repl.run_source(text)


@command(":save", ":save FILE", argument="file", frontend=True)
def save_command(repl, argument):
    """Save the session as a transcript that `gradcli test FILE` replays."""
    if not argument:
        raise MetaError("UsageError", "usage: :save FILE")
    transcript = repl.transcript
    try:
        with open(_path(argument), "w", encoding="utf-8") as f:
            f.write(transcript.text())
    except OSError as e:
        raise MetaError("OSError", f"cannot write {argument}: {e.strerror or e}") from None
    n = transcript.count()
    repl.renderer.text(f"saved {n} statement{'s' if n != 1 else ''} to {argument}")
    if transcript.interrupted:
        repl.renderer.text(f"note: {transcript.interrupted} statement(s) stopped by Ctrl-C "
                           f"are left out, so the transcript may not replay exactly", "yellow")


@command(":dtype", ":dtype [float32|float64]", argument=["float32", "float64"])
def dtype_command(repl, argument):
    """Show or set the default floating dtype."""
    if not argument:
        repl.renderer.text(dtypes.get_default_dtype().name)
        return
    choices = {"float32": dtypes.float32, "float64": dtypes.float64,
               "float": dtypes.float32, "double": dtypes.float64}
    for prefix in ("torch.", "np.", "numpy."):  # `:dtype torch.float32`, as a program names it
        if argument.startswith(prefix) and argument[len(prefix):] in choices:
            argument = argument[len(prefix):]
    if argument not in choices:
        raise MetaError("UsageError", f":dtype takes float32 or float64, not {argument!r}")
    d = choices[argument]
    dtypes.set_default_dtype(d)
    repl.transcript.add("import torch", "")
    repl.transcript.add(f"torch.set_default_dtype(torch.{d.name})", "")
    repl.renderer.text(f"default dtype: {d.name}")


@command(":quit", ":quit", frontend=True)
def quit_command(repl, argument):
    """Leave the REPL (Ctrl-D does too)."""
    return False


def _path(argument):
    import os
    return os.path.expanduser(argument)


# ---------------------------------------------------------------------- transcripts

TITLE = "session: saved from the gradcli REPL"


class Transcript:
    """What ran in the session and what it printed, as the transcript sessions `gradcli test`
    replays (gradcli.lang.transcript)."""

    def __init__(self):
        from ..lang.transcript import TranscriptSession
        self.sessions = [TranscriptSession(TITLE)]
        self.interrupted = 0     # statements stopped by Ctrl-C (left out: they cannot replay)

    def add(self, source, output):
        from ..lang.console import is_compound
        from ..lang.transcript import Statement
        lines = source.rstrip("\n").split("\n") + ([""] if is_compound(source) else [])
        self.sessions[-1].statements.append(Statement(lines, output.splitlines()))

    def new_session(self):
        from ..lang.transcript import TranscriptSession
        self.sessions.append(TranscriptSession(f"{TITLE} (after :reset)"))

    def count(self):
        return sum(len(s.statements) for s in self.sessions)

    def text(self):
        blocks = ["\n".join(line.rstrip() for line in s.text_lines())
                  for s in self.sessions if s.statements]
        return "\n\n".join(blocks) + "\n" if blocks else ""

    def to_json(self):
        """The transcript as plain data (the evaluator sends it to the frontend for :save)."""
        return {"interrupted": self.interrupted,
                "sessions": [{"title": s.title,
                              "statements": [[st.lines, st.expected] for st in s.statements]}
                             for s in self.sessions]}

    @classmethod
    def from_json(cls, data):
        from ..lang.transcript import Statement, TranscriptSession
        transcript = cls()
        transcript.interrupted = int(data.get("interrupted", 0))
        transcript.sessions = [
            TranscriptSession(str(s["title"]), [Statement([str(x) for x in lines],
                                                          [str(x) for x in output])
                                                for lines, output in s["statements"]])
            for s in data.get("sessions", [])] or transcript.sessions
        return transcript


def is_transcript(text):
    return any(line.startswith(">>>") for line in text.splitlines())


def transcript_statements(text):
    """The statements of a transcript, each as its source (outputs and titles dropped)."""
    from ..lang.transcript import parse_transcript
    return [st.source for session in parse_transcript(text) for st in session.statements]
