"""Random PyTorch autograd sessions, as a tutorial reader types them, and the transcript PyTorch
itself prints for them.

`random_session(rng)` writes a session: leaves, a random expression over them (elementwise
math, broadcasting, reductions, indexing, shape ops, matmul), echoes of values, grad_fns and
next_functions, backward passes with and without retain_graph, grad vectors, autograd.grad,
accumulation and zeroing, no_grad, detach, second backward passes that PyTorch refuses.
`torch_transcript(statements)` runs it in a fresh namespace on real PyTorch the way the
interactive interpreter does (echo of non-None values, `Type: message` for errors, warnings as
`UserWarning: message`), giving a `TranscriptSession` that gradcli's replay must match."""

import io
import re
import sys
import warnings

from gradcli.lang.transcript import Statement, TranscriptSession

UNARY = ["torch.sin({})", "torch.cos({})", "torch.exp({})", "torch.tanh({})",
         "torch.sigmoid({})", "torch.relu({})", "({}).abs()", "torch.log(({}).abs() + 1)",
         "(({}) ** 2 + 1).sqrt()", "({}).clamp(min=0.5)", "torch.nn.functional.softplus({})",
         "-({})", "({}).exp().log1p()", "torch.atan({})", "({}) ** 3", "({}).square()",
         "torch.nn.functional.gelu({})", "torch.nn.functional.leaky_relu({}, 0.1)",
         "1 / (({}) ** 2 + 1)", "torch.erf({})", "({}).reciprocal()"]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / (({}).abs() + 1)",
          "torch.maximum({}, {})", "torch.minimum({}, {})", "torch.where({0} > 0.5, {0}, {1})",
          "torch.hypot({}, {})", "torch.atan2({}, ({}).abs() + 1)", "({}) ** 2 * ({})",
          "torch.lerp({}, {}, 0.25)"]
SCALARS = ["2", "0.5", "3.0", "-1.5", "1e-3", "10"]
REDUCE = ["{}.sum()", "{}.mean()", "({} ** 2).sum()", "{}.prod()", "{}.max()", "{}.norm()",
          "torch.logsumexp({}.reshape(-1), 0)", "{}.std()", "{}.var()", "{}.amax()",
          "{}.softmax(-1)[..., 0].sum()", "{}.log_softmax(-1).sum()", "{}.cumsum(-1).sum()"]


def _literal(rng, shape):
    if not shape:
        return f"{round(float(rng.uniform(-2, 2)), 4)}"
    return "[" + ", ".join(_literal(rng, shape[1:]) for _ in range(shape[0])) + "]"


def _expression(rng, names, depth):
    if depth == 0 or rng.random() < 0.25:
        return names[int(rng.integers(len(names)))]
    if rng.random() < 0.45:
        return UNARY[int(rng.integers(len(UNARY)))].format(_expression(rng, names, depth - 1))
    left = _expression(rng, names, depth - 1)
    if rng.random() < 0.3:  # a Python number on one side of an operator
        scalar = SCALARS[int(rng.integers(len(SCALARS)))]
        op = ["+", "-", "*", "/", "**"][int(rng.integers(5))]
        if op == "**":
            return f"({left}) ** {scalar.lstrip('-')}" if "." not in scalar else f"{left} ** 2"
        return f"{scalar} {op} ({left})" if rng.random() < 0.5 else f"({left}) {op} {scalar}"
    right = _expression(rng, names, depth - 1)
    return BINARY[int(rng.integers(len(BINARY)))].format(left, right)


def random_session(rng):
    """Statements (lists of lines) of one random session."""
    shapes = [(3,), (2, 3), (1, 3), (4,), (2, 2), ()]
    shape = shapes[int(rng.integers(len(shapes)))]
    other = shape if rng.random() < 0.6 else shape[-1:]
    dtype = ", dtype=torch.float64" if rng.random() < 0.2 else ""
    out = [["import torch"],
           [f"x = torch.tensor({_literal(rng, shape)}, requires_grad=True{dtype})"],
           [f"w = torch.tensor({_literal(rng, other)}, requires_grad=True{dtype})"]]
    names = ["x", "w"]
    y = _expression(rng, names, int(rng.integers(1, 4)))
    out.append([f"y = {y}"])
    out.append(["y"])
    if rng.random() < 0.5:
        out.append(["y.grad_fn"])
    if rng.random() < 0.4:
        out.append(["y.grad_fn.next_functions"])
    if shape and rng.random() < 0.3:
        index = ["[0]", "[-1]", "[..., 1:]", ".reshape(-1)", ".unsqueeze(0)", ".t()",
                 ".flip(0)", ".transpose(0, -1)"][int(rng.integers(8))]
        out.append([f"y = y{index}"])
        out.append(["y"])
    if len(shape) == 2 and rng.random() < 0.3:
        out.append(["y = y @ w.t()" if other == shape else "y = y @ w"])
        out.append(["y"])
    retain = rng.random() < 0.5
    reduce = REDUCE[int(rng.integers(len(REDUCE)))].format("y")
    if rng.random() < 0.3 and shape:
        out.append([f"v = torch.ones_like(y) * 0.5", ])
        out.append([f"y.backward(v{', retain_graph=True' if retain else ''})"])
    else:
        out.append([f"s = {reduce}"])
        out.append(["s"])
        out.append([f"s.backward({'retain_graph=True' if retain else ''})"])
    out.append(["x.grad"])
    out.append(["w.grad"])
    follow = int(rng.integers(12))
    if follow == 0:  # a second pass: accumulates, or PyTorch refuses
        out.append(["y.sum().backward()" if "v" not in str(out) else "y.backward(v)"])
        out.append(["x.grad"])
    elif follow == 1:
        out.append(["x.grad.zero_()"])
        out.append([f"g = torch.autograd.grad({reduce}, [x, w], allow_unused=True)"])
        out.append(["g"])
    elif follow == 2:
        out.append(["with torch.no_grad():", "    z = y * 2", ""])
        out.append(["z.requires_grad, z.grad_fn"])
    elif follow == 3:
        out.append(["d = y.detach()"])
        out.append(["d.requires_grad, d.is_leaf, y.is_leaf, x.is_leaf"])
    elif follow == 4:
        out.append([f"h = torch.autograd.grad({reduce}, x, create_graph=True)[0]"])
        out.append(["h"])
        out.append(["h.sum().backward()"])
        out.append(["x.grad"])
    elif follow == 5:
        out.append(["x.grad = None"])
        out.append([f"({reduce}).backward()"])
        out.append(["x.grad", ])
    elif follow == 6:  # hooks that scale the gradient, and their removal
        out.append(["x.grad = None"])
        out.append(["q = x * 3"])
        out.append(["hk = q.register_hook(lambda g: g * 2)"])
        out.append(["q.sum().backward()"])
        out.append(["x.grad"])
        out.append(["hk.remove()"])
        out.append(["(x * 3).sum().backward()"])
        out.append(["x.grad"])
    elif follow == 7:  # retain_grad on an intermediate
        out.append(["x.grad = None"])
        out.append(["m = x * w"])
        out.append(["m.retain_grad()"])
        out.append(["(m ** 2).sum().backward()"])
        out.append(["m.grad"])
        out.append(["m.retains_grad, m.is_leaf"])
    elif follow == 8:  # errors PyTorch raises
        out.append(["(x * 2).backward()" if shape else "(x * 2).backward(torch.ones(2))"])
        out.append(["x.add_(1)"])
        out.append(["torch.tensor([1, 2], requires_grad=True)"])
    elif follow == 9:  # in-place on an intermediate, and a saved tensor modified
        out.append(["m = x * 1"])
        out.append(["m.mul_(2)"])
        out.append(["m"])
        out.append(["e = m.exp()"])
        out.append(["m.add_(1)"])
        out.append(["e.sum().backward()"])
    elif follow == 10:  # no_grad as a decorator, set_grad_enabled, requires_grad_
        out.append(["@torch.no_grad()", "def f(t):", "    return t * 2", ""])
        out.append(["f(x).requires_grad"])
        out.append(["torch.set_grad_enabled(False)"])
        out.append(["(x * 2).requires_grad"])
        out.append(["torch.set_grad_enabled(True)"])
        out.append(["c = torch.ones(2)"])
        out.append(["c.requires_grad_()"])
    else:  # .data and detach_ share storage
        out.append(["x.data *= 2"])
        out.append(["x"])
        out.append(["d = y.detach()"])
        out.append(["d.zero_()" if shape else "d.add_(1)"])
        out.append(["y"])
    return out


def torch_transcript(statements, title="random session"):
    """Run statements on real PyTorch as the piped interpreter does; the session with the
    output PyTorch printed for each statement as its expected lines."""
    import torch  # noqa: F401  (the caller made sure it is installed)
    namespace = {"__name__": "__console__"}
    session = TranscriptSession(title)
    for lines in statements:
        buffer = io.StringIO()
        source = "\n".join(lines).rstrip("\n") + "\n"
        old_out, old_hook = sys.stdout, sys.displayhook
        sys.stdout = buffer

        def hook(value):
            if value is not None:
                buffer.write(repr(value) + "\n")
        sys.displayhook = hook
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    exec(compile(source, "<stdin>", "single"), namespace)
                except Exception as e:  # noqa: BLE001  (every error is part of the transcript)
                    message = str(e).splitlines()[0] if str(e) else ""
                    buffer.write(f"{type(e).__name__}: {message}\n")
                warned = [f"{w.category.__name__}: {w.message}" for w in caught]
        finally:
            sys.stdout, sys.displayhook = old_out, old_hook
        text = re.sub(r"0x[0-9a-fA-F]+", "0x...", buffer.getvalue())
        session.statements.append(Statement(list(lines), [*warned, *text.splitlines()]))
    return session


def recorded_transcript(oracle, statements, title, transcript=None):
    """The session PyTorch prints for statements, through the oracle fixture: live with torch,
    from the golden file without it (which must hold these very statements)."""
    transcript = transcript or torch_transcript
    answer = oracle(lambda torch: [(s.lines, s.expected)
                                   for s in transcript(statements, title).statements])
    recorded = [list(lines) for lines, _ in answer]
    assert recorded == [list(lines) for lines in statements], (
        f"{title}: the golden file records other statements (the generator changed): "
        f"regenerate it with torch ({oracle.command})")
    return TranscriptSession(title, [Statement(list(lines), list(expected))
                                     for lines, expected in answer])

