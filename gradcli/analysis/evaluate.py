"""The one evaluation API behind `gradcli eval`, `check`, `graph`, `explain`, `jacobian`,
`hessian` and `plot`: run a program with `--at` leaves bound, pick its outputs, differentiate."""

import contextlib
from .errors import UsageError  # noqa: F401  (raised here and by the frontends)

import numpy as np

from .. import engine  # noqa: F401
from ..engine.records import Record
from ..engine import autograd, dtypes
from ..engine.autograd import grad as autograd_grad
from ..engine.tensor import Tensor
from .trace import PassTracer, traced_grad


class Discard:
    """A text stream that drops what is written (program output of reruns)."""

    def write(self, text):
        return len(text)

    def flush(self):
        pass


class Binding(Record):
    _fields = ("name", "text", "number")

    def __init__(self, name, text, number=None):
        self.name = name
        self.text = text
        self.number = number  # a sweep point's value: a Python float, used without parsing text


def parse_binding(spec):
    """`NAME=VALUE` from --at (VALUE is an expression of the language).  NAME is any name a
    program may bind (`α`, NFKC-normalised as Python normalises identifiers)."""
    from ..lang.sandbox import GUARD_NAMES
    from ..lang.source import python_name
    name, sep, value = spec.partition("=")
    name = python_name(name.strip())
    if not sep or not name.isidentifier() or name.startswith("__") or not value.strip():
        raise UsageError(f"--at expects NAME=VALUE, got {spec!r}")
    if name in GUARD_NAMES:  # (the program's own guards: `_getattr` bound would replace them)
        raise UsageError(f"--at {spec}: '{name}' is a name gradcli reserves for itself")
    return Binding(name, value.strip())


# the modules a --at or --expect value may name without an import: `--at x=torch.tensor(3.)`
VALUE_MODULES = {"torch": "torch", "np": "numpy", "numpy": "numpy", "math": "math"}


def eval_value(session, text):
    """A --at/--grad/--expect value: an expression of the language, in which torch, np and math
    are imported (for this expression alone: the program imports what it uses)."""
    from ..lang.namespace import modules
    added = [n for n in VALUE_MODULES if n not in session.namespace and n in text]
    for n in added:
        session.namespace[n] = modules()[VALUE_MODULES[n]]
    try:
        return session.eval(text)
    finally:
        for n in added:
            session.namespace.pop(n, None)


class Evaluation(Record):
    """A program run with its leaves, outputs, values and gradients."""
    _fields = ("session", "dtype", "leaves", "outputs", "values", "gradients", "steps", "order",
               "ran_backward", "roots", "recording", "reasons", "tracer", "create_graph")

    def __init__(self, session, dtype, leaves, outputs, values, gradients=None, steps=None,
                 order=1, ran_backward=False, roots=None, recording=None, reasons=None,
                 tracer=None, create_graph=False):
        self.session = session
        self.dtype = dtype
        self.leaves = leaves    # name -> leaf tensor (bound by --at or made by the program)
        self.outputs = outputs  # output names
        self.values = values    # name -> Tensor or number
        self.gradients = {} if gradients is None else gradients  # output -> leaf -> Tensor|None
        self.steps = {} if steps is None else steps  # output -> [Step] of its backward pass
        self.order = order
        self.ran_backward = ran_backward
        self.roots = [] if roots is None else roots  # tensors the program backpropagated itself
        self.recording = recording  # a Recording (gradcli.analysis.record, imported on use)
        self.reasons = {} if reasons is None else reasons  # (output, leaf) -> why None/zero
        self.tracer = tracer  # a PassTracer: the program's own backward passes (record=True)
        self.create_graph = create_graph  # differentiable gradients (eval --create-graph)


def new_session(dtype=None, out=None, warnings_to=None):
    from ..lang.session import Session
    if dtype is not None:
        dtypes.set_default_dtype(dtype)
    return Session(out=out, warnings_to=warnings_to)


def leaf_value(session, binding):
    """Evaluate a binding's expression to a floating leaf tensor that requires grad."""
    value = binding.number if binding.number is not None else eval_value(session, binding.text)
    if isinstance(value, Tensor):
        data = value.detach()._data
        t = Tensor._make(np.array(data, dtype=data.dtype if data.dtype.kind in "fc"
                                  else dtypes.get_default_dtype().np), None, 0, False)
    else:
        from ..ops import creation
        try:
            t = creation.tensor(value, dtype=dtypes.get_default_dtype())
        except (TypeError, ValueError) as e:
            raise UsageError(f"--at {binding.name}: {e}") from None
    return t.requires_grad_(True)


def run_program(source, bindings=(), dtype=None, out=None, record=False, timeout=None,
                overrides=None):
    """Run source with the bindings as leaves; returns (session, leaves, recording).
    overrides maps a binding's name to a function that changes its value (perturbation)."""
    session = new_session(dtype, out)
    leaves = {}
    for b in bindings:
        leaves[b.name] = leaf_value(session, b)
        if overrides and b.name in overrides:
            leaves[b.name] = overrides[b.name](leaves[b.name]).requires_grad_(True)
        session.namespace[b.name] = leaves[b.name]
    recording = None
    if record:
        from .record import Recording
        recording = Recording()
    if recording is not None:
        recording.location = getattr(session, "current_line", None)
    try:
        with recording if recording is not None else contextlib.nullcontext():
            session.run(source, timeout=timeout)
    except BaseException as e:
        note_hint_context(e, namespace=session.namespace)
        raise
    return session, leaves, recording


def note_hint_context(exc, namespace=None, output=None):
    """Attach what a `hint:` line needs to an error leaving an evaluation: the program's names
    (hint_namespace) and, for an error of gradcli's own backward pass, the output it was
    differentiating (hint_output; the gradient is then --grad)."""
    try:
        if namespace is not None and getattr(exc, "hint_namespace", None) is None:
            exc.hint_namespace = namespace
        if output is not None:
            exc.hint_output = output
    except AttributeError:  # an exception type without a __dict__
        pass


def _data_value(value, depth=0):
    """Whether a value is data a JSON document can hold (tensors, numbers, strings and lists
    of them), not a function, module or class."""
    if isinstance(value, (Tensor, bool, int, float, str)) or value is None:
        return True
    if isinstance(value, (list, tuple)) and depth < 8:
        return all(_data_value(v, depth + 1) for v in value)
    return False


def program_values(session):
    """The program's names bound to data, in the order they were bound (for run --json)."""
    return {name: value for name, value in session.namespace.items()
            if not name.startswith("_") and _data_value(value)}


def program_gradients(session):
    """The .grad of each named tensor that has one (leaves, and non-leaves that retain it)."""
    return {name: value._grad for name, value in session.namespace.items()
            if not name.startswith("_") and isinstance(value, Tensor) and value._grad is not None}


def program_leaves(session, bound):
    """Leaves that require grad: the --at bindings, then named leaves the program made."""
    leaves = dict(bound)
    for name, value in session.namespace.items():
        if (isinstance(value, Tensor) and value.grad_fn is None and value.requires_grad
                and name not in leaves and not any(value is v for v in leaves.values())):
            leaves[name] = value
    return leaves


def _name_of(session, tensor):
    """The name the program bound tensor to (the last such), or None."""
    names = [n for n, v in session.namespace.items() if v is tensor]
    return names[-1] if names else None


def choose_outputs(session, of, leaves, roots=()):
    """The outputs: --of, else the last tensor the program ran backward from if it has a name,
    else the last name assigned (or the last expression)."""
    if of:
        missing = [n for n in of if n not in session.namespace]
        if missing:
            raise UsageError(f"--of {missing[0]}: the program defines no name {missing[0]!r}")
        return list(of)
    for root in reversed(roots):
        name = _name_of(session, root)
        if name is not None:
            return [name]
    name = session.last_name
    if name is None:
        raise UsageError("the program assigns nothing and has no final expression: "
                         "nothing to differentiate")
    return [name]


def evaluate(source, bindings=(), of=(), grad=None, order=1, dtype=None, out=None, record=False,
             timeout=None, explain_zero=True, gradients=True, retain_graph=False,
             create_graph=False):
    """Run, then (unless gradients=False) differentiate each output with respect to each leaf
    (order-th derivative).  retain_graph, create_graph: every backward pass, the program's own
    too, keeps its graph / builds a graph of itself (the gradients have a grad_fn)."""
    if order < 1:
        raise UsageError("--order must be at least 1")
    roots = []
    tracer = PassTracer() if record else None
    forced = (retain_graph, create_graph) if retain_graph or create_graph else None
    with autograd.observing(observed_roots=roots, pass_observer=tracer,
                            forced_graph_options=forced):
        session, bound, recording = run_program(source, bindings, dtype, out, record, timeout)
    leaves = program_leaves(session, bound)
    outputs = choose_outputs(session, of, leaves, roots)
    values = {name: session.value_of(name) for name in list(leaves) + outputs}
    ev = Evaluation(session, dtypes.get_default_dtype(), leaves, outputs, values, order=order,
                    recording=recording, roots=roots, tracer=tracer, create_graph=create_graph)
    ev.ran_backward = any(t._grad is not None for t in leaves.values())
    grad_tensor = None
    if grad is not None:
        grad_tensor = leaf_value(session, Binding("--grad", grad)).detach()
    if not gradients:
        return ev
    for name in outputs:
        try:
            ev.gradients[name] = differentiate(ev, name, grad_tensor)
        except Exception as e:
            note_hint_context(e, session.namespace, name)
            raise
    if explain_zero:
        for name in outputs:
            for leaf, g in ev.gradients[name].items():
                if order > 1 and (g is not None or "," in leaf):
                    continue  # (a zero higher derivative is mathematics, not a missing path)
                if g is None or not np.any(g._data):
                    from .why import explain_missing  # (only when there is something to say)
                    ev.reasons[(name, leaf)] = explain_missing(ev, source, bindings, name, leaf)
    return ev


def _from_program_backward(ev, out):
    """Whether the leaves' .grad are out's gradients: the program ran backward from out (or
    only from tensors it gave no name, as in `y.sum().backward()`)."""
    if not ev.ran_backward:
        return False
    if any(out is r for r in ev.roots):
        return True
    return not any(_name_of(ev.session, r) for r in ev.roots)


def differentiate(ev, name, grad_tensor):
    """Gradients of output `name` wrt every leaf (the leaves' .grad when the program ran
    backward from it itself; computed without touching .grad otherwise)."""
    out = ev.values[name]
    leaves = ev.leaves
    if _from_program_backward(ev, out):
        if ev.tracer is not None:
            ev.steps[name] = ev.tracer.steps_from(
                out if any(out is r for r in ev.roots) else None)
        return {leaf: t._grad for leaf, t in leaves.items()}
    if not isinstance(out, Tensor) or not out.requires_grad or not leaves:
        return {leaf: None for leaf in leaves}
    if grad_tensor is not None and grad_tensor._data.shape != out._data.shape:
        grad_tensor = grad_tensor.to(out.dtype).expand(out._data.shape) \
            if grad_tensor._data.size == 1 else grad_tensor.to(out.dtype)
    elif grad_tensor is not None:
        grad_tensor = grad_tensor.to(out.dtype)
    names = list(leaves)
    tensors = [leaves[n] for n in names]
    if ev.order == 1:
        grads, steps = traced_grad(out, tensors, grad_tensor, create_graph=ev.create_graph)
        ev.steps[name] = steps
        return dict(zip(names, grads))
    return higher_partials(ev, out, grad_tensor, names, tensors)


MAX_HESSIAN_ROWS = 4096  # elements of a leaf whose second partials eval computes row by row


def higher_partials(ev, out, grad_tensor, names, tensors):
    """The ev.order-th partial derivatives of out (SPEC §3): order 2 gives every block of the
    Hessian, the mixed ones included (key "x" for d2y/dx2, "x,w" for d2y/dx dw); order N > 2
    the pure and mixed partials of that order of scalar leaves (keys "x", "x,x,w", ...).

    An output that does not depend on a leaf has None for each partial that involves it; a
    derivative that is constant in a leaf has zeros past it."""
    from itertools import combinations_with_replacement
    order = ev.order
    if order > 2:
        for leaf_name, leaf in zip(names, tensors):
            if leaf._data.size != 1:
                shape = list(leaf._data.shape)
                raise UsageError(f"--order {order} takes scalar inputs; {leaf_name} has shape "
                                 f"{shape}: use gradcli hessian (second partials) or gradcli "
                                 f"jacobian for a vector input")
    leaves = dict(zip(names, tensors))
    first = dict(zip(names, autograd_grad(out, tensors, grad_outputs=grad_tensor,
                                          retain_graph=True, create_graph=True,
                                          allow_unused=True)))
    cache = {(n,): first[n] for n in names}
    result = {}
    for combo in combinations_with_replacement(names, order):
        key = combo[0] if len(set(combo)) == 1 else ",".join(combo)
        if any(first[n] is None for n in combo):
            result[key] = None
            continue
        if order == 2:
            result[key] = _hessian_block(ev, first[combo[0]], leaves[combo[0]],
                                         leaves[combo[1]], combo[0])
            continue
        for k in range(2, order + 1):
            prefix, leaf = combo[:k], leaves[combo[k - 1]]
            if prefix in cache:
                continue
            g = cache[combo[:k - 1]]
            if g is None or not g.requires_grad:
                d = None
            else:
                (d,) = autograd_grad(g, leaf, retain_graph=True,
                                     create_graph=k < order or ev.create_graph,
                                     allow_unused=True)
            cache[prefix] = d if d is not None else \
                Tensor._make(np.zeros_like(leaf._data), None, 0, False)
        result[key] = cache[combo]
    return result


def _hessian_block(ev, g, a, b, a_name):
    """d/db of g = dy/da: the Hessian block of leaves a and b, of shape a.shape + b.shape."""
    zeros = np.zeros(a._data.shape + b._data.shape, dtype=np.result_type(a._data, b._data))
    if not g.requires_grad:
        return Tensor._make(zeros, None, 0, False)
    if a._data.size == 1 and b._data.size == 1:
        (d,) = autograd_grad(g, b, retain_graph=True, create_graph=ev.create_graph,
                             allow_unused=True)
        if d is None:
            return Tensor._make(zeros.reshape(b._data.shape), None, 0, False)
        return d.reshape(a._data.shape + b._data.shape) if a._data.shape else d
    if a._data.size > MAX_HESSIAN_ROWS:
        raise UsageError(f"--order 2: {a_name} has {a._data.size} elements; use gradcli "
                         f"hessian for a large input")
    flat = g.reshape(-1)
    for i in range(a._data.size):
        (d,) = autograd_grad(flat[i], b, retain_graph=True, allow_unused=True)
        if d is not None:
            zeros.reshape(a._data.size, -1)[i] = d._data.reshape(-1)
    return Tensor._make(zeros, None, 0, False)


def program_function(source, bindings, of=(), dtype=None, timeout=None, out=None):
    """The program as a function of its --at inputs, for Jacobians, Hessians and gradcheck.

    Returns (fn, inputs, output names): fn(*tensors) reruns the program with the bindings set to
    the given tensors and returns its outputs (a tensor, or a tuple for several)."""
    if not bindings:
        raise UsageError("give the inputs with --at NAME=VALUE")
    from ..ops.creation import GENERATOR
    rng = GENERATOR._get_state()  # each evaluation draws the same random numbers as the first
    session, leaves, _ = run_program(source, bindings, dtype, out, timeout=timeout)
    outputs = choose_outputs(session, of, leaves)
    inputs = tuple(leaves[b.name].detach() for b in bindings)
    names = [b.name for b in bindings]
    sink = out

    def fn(*tensors):
        GENERATOR._set_state(rng)
        s = new_session(None, sink)
        for name, t in zip(names, tensors):
            s.namespace[name] = t
        s.run(source, timeout=timeout)
        values = tuple(s.value_of(o) for o in outputs)
        for o, v in zip(outputs, values):
            if not isinstance(v, Tensor):
                raise UsageError(f"output {o} is not a tensor ({type(v).__name__})")
        return values[0] if len(values) == 1 else values
    return fn, inputs, outputs
