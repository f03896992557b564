"""More random PyTorch sessions, as tutorial readers paste them: dtypes and type promotion,
factories and seeded random numbers, printing of large, tiny, huge and special values,
indexing and item assignment, shape functions, reductions over dims (with the namedtuples
max/min return), matmul shapes, custom autograd.Function classes, the functional API, forward
mode, gradient accumulation, no_grad, retain_grad, f-strings and print, tensor attributes, the
errors PyTorch raises, and Python-level loops, defs and comprehensions.

`random_session_more(rng)` writes a session of a few of these topics (each topic is a function
of the random generator returning statements); `torch_transcript_more` runs it on real PyTorch
(see sessions.torch_transcript) and normalises the one warning whose text the shared transcripts
print without PyTorch's source location."""

import re

from sessions import torch_transcript

# PyTorch appends "See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered
# internally at ...)" to the non-leaf .grad warning; the shared transcripts (SPEC §6) do not.
_NONLEAF_TAIL = re.compile(r" See github\.com/pytorch/pytorch/pull/30531 for more information\."
                           r"(?: \(Triggered internally at [^)]*\))?")
# torch.autograd.functional.jvp scripts a helper; the interactive interpreter's default warning
# filters hide that DeprecationWarning (raised inside torch), which torch_transcript records.
_JIT_DEPRECATED = "DeprecationWarning: `torch.jit.script` is deprecated."


def torch_transcript_more(statements, title="random session"):
    session = torch_transcript(statements, title)
    for statement in session.statements:
        statement.expected = [_NONLEAF_TAIL.sub("", line) for line in statement.expected
                              if not line.startswith(_JIT_DEPRECATED)]
    return session


# ------------------------------------------------------------------ helpers

def _pick(rng, options):
    return options[int(rng.integers(len(options)))]


def _float(rng, lo=-3.0, hi=3.0, digits=4):
    return f"{round(float(rng.uniform(lo, hi)), digits)}"


def _literal(rng, shape, kind="float"):
    if not shape:
        if kind == "int":
            return str(int(rng.integers(-5, 10)))
        if kind == "bool":
            return _pick(rng, ["True", "False"])
        if kind == "pos":
            return _float(rng, 0.1, 3.0)
        return _float(rng)
    return "[" + ", ".join(_literal(rng, shape[1:], kind) for _ in range(shape[0])) + "]"


def _shape(rng, max_dims=3, max_size=4):
    return tuple(int(rng.integers(1, max_size + 1)) for _ in range(int(rng.integers(1, max_dims + 1))))


def _size_args(shape):
    return ", ".join(str(s) for s in shape)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _tuple(shape):
    return "(" + ", ".join(str(s) for s in shape) + (",)" if len(shape) == 1 else ")")


def _weights(shape):
    """A float tensor of distinct weights of the given shape (so that gradients tell entries
    apart)."""
    return f"torch.arange(1., {_numel(shape) + 1}.).reshape({_tuple(shape)})"


# ------------------------------------------------------------------ topics

def topic_dtypes(rng):
    shape = _pick(rng, [(3,), (2, 2), (4,), ()])
    out = [[f"a = torch.tensor({_literal(rng, shape, 'int')})"],
           [f"b = torch.tensor({_literal(rng, shape, 'float')})"],
           ["a, a.dtype, b.dtype"]]
    exprs = ["a * b", "a / 2", "a // 2", "a % 3", "a * 1.5", "a + True", "a ** 2", "a > 0",
             "(a > 0).sum()", "a == b", "a.float() / 3", "b.long()", "b.int()", "a.double()",
             "a.bool()", "a.to(torch.float64)", "torch.tensor(3) / torch.tensor(2)",
             "a.sum()", "a.prod()", "a.max()", "a.abs()", "-a", "torch.exp(a)", "a.sqrt()",
             "a.clamp(0, 2)", "a.float().mean()", "(a * 1.0).dtype", "a.mean()",
             "torch.tensor([1, 2], dtype=torch.int32) + torch.tensor([1, 2])",
             "torch.tensor([1, 2], dtype=torch.int32) * 2.5",
             "torch.tensor(2.5, dtype=torch.float64) * a",
             "torch.tensor([1., 2.], dtype=torch.float64) + torch.tensor([1., 2.])",
             "torch.zeros(2, dtype=torch.int32) + 1.5", "a.dtype == torch.int64",
             "torch.where(a > 0, a, 0.5)", "torch.where(b > 0, a, b)",
             "(a > 1) & (a < 5)", "~(a > 1)", "a.to(torch.int32) // -2", "b // 1", "b % 1",
             "b.round()", "b.floor().long()", "a.type(torch.float32)", "b.type()",
             "a.is_floating_point()", "b.is_floating_point()", "torch.is_tensor(a)",
             "a + b.double()", "a.float().requires_grad_()", "a.requires_grad_()",
             "torch.tensor([True, False]) + torch.tensor([True, True])",
             "torch.tensor([1, 2]) * torch.tensor([True, False])", "a.numel()",
             "a.tolist()", "b.tolist()", "a.item()" if not shape else "a[0].item()",
             "a.sign()", "b.sign()", "a.argmax()", "torch.tensor(7) // 2", "7 / torch.tensor(2)",
             "2 ** a.abs()", "a.float() ** -1", "a.fmod(3)", "a.remainder(-3)", "b.trunc()",
             "b.frac()", "b.to(dtype=torch.float16)", "a.to(torch.uint8)", "a.char()",
             "a.short()", "a.half()", "torch.tensor([1, 2, 3]).numpy()",
             "torch.tensor(5, dtype=torch.uint8) - 6", "torch.tensor(2 ** 40)"]
    for _ in range(int(rng.integers(4, 9))):
        out.append([_pick(rng, exprs)])
    return out


def topic_creation(rng):
    out = []
    n = int(rng.integers(1, 12))
    start = int(rng.integers(-3, 3))
    step = _pick(rng, ["0.5", "0.25", "0.1", "0.3", "2", "3", "-1", "1.5"])
    exprs = [f"torch.arange({n})", f"torch.arange({start}, {start + n})",
             f"torch.arange({start}, {start + n}, {step})" if not step.startswith("-")
             else f"torch.arange({start + n}, {start}, {step})",
             f"torch.arange({float(n)})", f"torch.arange(0, 1, {_pick(rng, ['0.1', '0.2', '0.3', '0.05'])})",
             f"torch.arange({n}, dtype=torch.float64)", f"torch.arange(0., {n}.)",
             f"torch.linspace({start}, {start + n}, {int(rng.integers(2, 12))})",
             f"torch.linspace(-1, 1, {int(rng.integers(2, 12))}, dtype=torch.float64)",
             f"torch.linspace(0, {_float(rng, 0.1, 5)}, {int(rng.integers(1, 9))})",
             f"torch.zeros({_size_args(_shape(rng))})", f"torch.ones({_size_args(_shape(rng))})",
             "torch.zeros(2, 3)", "torch.ones(3, dtype=torch.int64)", "torch.full((2, 2), 7)",
             "torch.full((2,), 1.5)", f"torch.full({_tuple(_shape(rng))}, {_float(rng)})",
             "torch.full((2, 2), True)", f"torch.eye({int(rng.integers(1, 5))})",
             "torch.eye(2, 3)", "torch.eye(3, dtype=torch.int64)",
             "torch.ones_like(torch.tensor([1, 2]))", "torch.zeros_like(torch.ones(2, 2))",
             "torch.full_like(torch.tensor([1, 2]), 2.5)", "torch.ones(0)", "torch.zeros(2, 0)",
             "torch.tensor([])", "torch.tensor([[]])", "torch.tensor(5)", "torch.tensor(5.)",
             "torch.tensor([1, 2.5])", "torch.tensor([[1, 2], [3, 4]], dtype=torch.float32)",
             "torch.Tensor([1, 2])", "torch.FloatTensor([[1, 2]])", "torch.LongTensor([1, 2])",
             "torch.tensor([1, 2]).float().dtype", "torch.zeros(3).long()",
             "torch.ones(2, 3).sum(0).int()", "torch.arange(6).reshape(2, 3).float()",
             "torch.tensor(range(5))", "torch.tensor([[1., 2.]]).T",
             "torch.empty(0, 3).shape", "torch.zeros(2, 2) + torch.eye(2)"]
    for _ in range(int(rng.integers(3, 7))):
        out.append([_pick(rng, exprs)])
    seed = int(rng.integers(0, 100))
    out.append([f"torch.manual_seed({seed})" if rng.random() < 0.7 else f"g = torch.manual_seed({seed})"])
    for _ in range(int(rng.integers(2, 5))):
        shape = _pick(rng, [(3,), (2, 3), (4,), (2, 2), (20,), (5, 4), (17,), (1,), (3, 1)])
        f = _pick(rng, ["randn", "randn", "rand", "randint"])
        if f == "randint":
            lo = int(rng.integers(-5, 3))
            out.append([_pick(rng, [f"torch.randint({lo}, {lo + int(rng.integers(1, 20))}, {_tuple(shape)})",
                                    f"torch.randint({int(rng.integers(1, 10))}, {_tuple(shape)})"])])
        else:
            dtype = _pick(rng, ["", "", "", ", dtype=torch.float64", ", requires_grad=True"])
            out.append([f"r = torch.{f}({_size_args(shape)}{dtype})"])
            out.append([_pick(rng, ["r", "r", "print(r)", "r.sum()", "r.mean()", "r.max()",
                                    "r.sum().item()", "r.mean().item()", "r.tolist()",
                                    "r.std()", "(r * 10).round()"])])
    if rng.random() < 0.3:
        out.append(["torch.randn_like(r)"])
    if rng.random() < 0.3:
        out.append(["torch.rand(2, 3).shape"])
    return out


def topic_printing(rng):
    out = []
    for _ in range(int(rng.integers(2, 6))):
        kind = int(rng.integers(9))
        if kind == 0:
            n = int(rng.integers(8, 2500))
            shape = _pick(rng, [(n,), (n // 4, 4) if n >= 4 else (n,), (4, n // 4) if n >= 4 else (n,)])
            dtype = _pick(rng, ["", ".float()", " * 1.5", " / 7", " * 1000", " - 500"])
            out.append([f"torch.arange({_numel(shape)}).reshape({_tuple(shape)}){dtype}"])
        elif kind == 1:
            scale = _pick(rng, ["1e-5", "1e-3", "1e3", "1e5", "1e8", "1e-10", "1e20", "123.456",
                                "0.01", "1e4", "9999", "1e-4"])
            shape = _pick(rng, [(3,), (2, 3), (5,), (3, 4), (12,), (2, 2, 2), (7, 3)])
            out.append([f"torch.tensor({_literal(rng, shape)}) * {scale}"])
        elif kind == 2:
            specials = ["float('inf')", "float('-inf')", "float('nan')", "-0.", "0.", "1.",
                        "1e-8", "2.5", "-3.", "1e10", "0.001", "100."]
            n = int(rng.integers(1, 7))
            out.append(["torch.tensor([" + ", ".join(_pick(rng, specials) for _ in range(n)) + "])"])
        elif kind == 3:
            rows, cols = int(rng.integers(1, 30)), int(rng.integers(1, 30))
            out.append([f"torch.manual_seed({int(rng.integers(100))})"])
            scale = _pick(rng, ["", " * 100", " / 1000", " * 1e5", ".abs()", " * 1e-6"])
            out.append([f"torch.randn({rows}, {cols}){scale}"])
        elif kind == 4:
            out.append([_pick(rng, ["torch.exp(torch.arange(-30., 30., 7))",
                                    "torch.arange(30.) ** 4", "1 / torch.arange(1., 9.)",
                                    "torch.linspace(-1e-3, 1e3, 6)", "torch.logspace(-3, 3, 7)",
                                    "torch.tensor([1e-5, 1., 1000.])", "torch.tensor([0.1, 0.25, 100.5])",
                                    "torch.tensor([123456789.])", "torch.tensor(1e20)",
                                    "torch.tensor([1e-10, 2e-12])", "torch.tensor([-0.])",
                                    "torch.tensor(float('nan'))", "torch.tensor([1., -1.]) / 0",
                                    "torch.zeros(2, 3) / 0", "torch.tensor([1e-3, 1e3], dtype=torch.float64)",
                                    "torch.tensor([[1e-8, 1], [2, 3]])", "torch.tensor([1, 2]) * 1e9",
                                    "torch.tensor([3.14159265358979], dtype=torch.float64)",
                                    "torch.tensor([100000., 2.])", "torch.tensor([99999., 0.5])",
                                    "torch.tensor([-1e-7, 5.])", "torch.tensor(-0.)",
                                    "torch.arange(-5, 5) * 1e-3"])])
        elif kind == 5:
            n = int(rng.integers(1001, 3000))
            out.append([_pick(rng, [f"torch.ones({n})", f"torch.arange({n}.) / 3",
                                    f"torch.zeros({n // 50}, 50)", f"torch.arange({n}).reshape(-1, 1)",
                                    f"torch.linspace(0, 1, {n})"])])
        elif kind == 6:
            shape = _pick(rng, [(2, 3), (3,), (2, 2, 2), (1, 4)])
            out.append([f"t = torch.tensor({_literal(rng, shape)}, requires_grad=True)"])
            out.append([_pick(rng, ["t * 1e5", "t / 1e5", "(t + 1) * 1e4", "(t * 1e-4).sum()",
                                    "t.double() * 1e6", "t + 1e9"])])
        elif kind == 7:
            out.append([f"p = torch.tensor({_literal(rng, (int(rng.integers(2, 6)),))})"])
            out.append([_pick(rng, ["print(p)", "str(p)", "print(p * 1000)", "print(p.double())",
                                    "print(p.long())", "print(p > 0)", "repr(p)", "print(p.tolist())"])])
        else:
            shape = _pick(rng, [(2, 12), (3, 20), (40,), (2, 3, 9), (15,)])
            out.append([f"torch.arange({_numel(shape)}.).reshape({_tuple(shape)}) * {_float(rng, 0.01, 50, 3)}"])
    return out


def _index_component(rng, size):
    kind = int(rng.integers(9))
    if kind == 0:
        return str(int(rng.integers(-size, size)))
    if kind == 1:
        a = int(rng.integers(0, size))
        return f"{a}:"
    if kind == 2:
        return f":{int(rng.integers(1, size + 1))}"
    if kind == 3:
        return f"::{int(rng.integers(1, 4))}"
    if kind == 4:
        a = int(rng.integers(0, size))
        return f"{a}:{int(rng.integers(a, size + 1))}:{int(rng.integers(1, 3))}"
    if kind == 5:
        return ":"
    if kind == 6:
        return "[" + ", ".join(str(int(rng.integers(-size, size))) for _ in range(int(rng.integers(1, 4)))) + "]"
    if kind == 7:
        return "-1"
    return "1:-1"


def topic_indexing(rng):
    shape = _shape(rng, 3, 4)
    out = [[f"x = {_weights(shape)}.requires_grad_()" if rng.random() < 0.5 else
            f"x = torch.tensor({_literal(rng, shape)}, requires_grad=True)"]]
    for _ in range(int(rng.integers(2, 5))):
        k = int(rng.integers(1, len(shape) + 1))
        parts = [_index_component(rng, shape[d]) for d in range(k)]
        r = rng.random()
        if r < 0.15:
            parts.insert(int(rng.integers(len(parts) + 1)), "None")
        elif r < 0.3:
            parts = ["..."] + parts[1:] if len(parts) > 1 else ["...", parts[0]]
        elif r < 0.4:
            parts = ["x > 0"] if rng.random() < 0.5 else [f"x[{', '.join(['0'] * (len(shape) - 1))}] > 0" if len(shape) > 1 else "x > 1"]
        elif r < 0.5:
            parts = [f"torch.tensor([{int(rng.integers(shape[0]))}, {int(rng.integers(shape[0]))}])"] + parts[1:]
        out.append([f"x[{', '.join(parts)}]"])
    if rng.random() < 0.2:
        out.append([f"x[{shape[0]}]"])  # out of range
    if rng.random() < 0.1:
        out.append([f"x[{', '.join(['0'] * (len(shape) + 1))}]"])  # too many indices
    k = int(rng.integers(1, len(shape) + 1))
    index = ", ".join(_index_component(rng, shape[d]) for d in range(k))
    out.append([f"y = x[{index}]"])
    out.append(["y"])
    out.append([_pick(rng, ["y.sum().backward()", "(y * y).sum().backward()",
                            "y.exp().sum().backward()", "(y * 3).mean().backward()"])])
    out.append(["x.grad"])
    # item assignment
    shape2 = _shape(rng, 2, 4)
    kind = _pick(rng, ["torch.zeros", "torch.ones"])
    out.append([f"z = {kind}({_size_args(shape2)}){_pick(rng, ['', '', '.long()'])}"])
    for _ in range(int(rng.integers(1, 4))):
        k = int(rng.integers(1, len(shape2) + 1))
        index = ", ".join(_index_component(rng, shape2[d]) for d in range(k))
        value = _pick(rng, ["7", "-1.5", "2.7", "torch.tensor(3.)", f"torch.arange({shape2[-1]}.)",
                            "True"])
        if rng.random() < 0.2:
            index = "z > 0"
        out.append([f"z[{index}] = {value}"])
    out.append(["z"])
    if rng.random() < 0.3:
        out.append(["x[0] = 1."])
    if rng.random() < 0.3:
        out.append(["w = x.detach().clone()", ])
        out.append(["w[0] = 5"])
        out.append(["w, x.grad_fn"])
    return out


SHAPE_OPS = ["reshape", "view", "flatten", "squeeze", "unsqueeze", "permute", "transpose",
             "t", "expand", "repeat", "flip", "contiguous", "narrow", "T", "mT", "movedim"]


def _shape_op(rng, shape):
    """A shape op for a tensor of `shape`: (text, new shape) or None."""
    name = _pick(rng, SHAPE_OPS)
    n = len(shape)
    if name in ("reshape", "view"):
        total = _numel(shape)
        options = [(total,), (1, total), (total, 1)] + [(d, total // d) for d in range(2, total) if total % d == 0]
        new = _pick(rng, options)
        shown = list(new)
        if rng.random() < 0.4:
            shown[int(rng.integers(len(shown)))] = -1
        return f".{name}({', '.join(map(str, shown))})", new
    if name == "flatten":
        if n >= 2 and rng.random() < 0.5:
            return ".flatten(1)", (shape[0], _numel(shape[1:]))
        return ".flatten()", (_numel(shape),)
    if name == "squeeze":
        if 1 in shape and rng.random() < 0.5:
            d = shape.index(1)
            return f".squeeze({d})", shape[:d] + shape[d + 1:]
        return ".squeeze()", tuple(s for s in shape if s != 1)
    if name == "unsqueeze":
        d = int(rng.integers(0, n + 1))
        return f".unsqueeze({d})", shape[:d] + (1,) + shape[d:]
    if name == "permute" and n >= 2:
        perm = [int(p) for p in rng.permutation(n)]
        return f".permute({', '.join(map(str, perm))})", tuple(shape[p] for p in perm)
    if name == "transpose" and n >= 2:
        a, b = int(rng.integers(n)), int(rng.integers(n))
        s = list(shape)
        s[a], s[b] = s[b], s[a]
        return f".transpose({a}, {b - n if rng.random() < 0.3 else b})", tuple(s)
    if name == "t" and n == 2:
        return ".t()", shape[::-1]
    if name == "T" and n == 2:
        return ".T", shape[::-1]
    if name == "mT" and n >= 2:
        return ".mT", shape[:-2] + (shape[-1], shape[-2])
    if name == "expand" and 1 in shape:
        new = tuple(3 if s == 1 else s for s in shape)
        shown = [3 if s == 1 else -1 for s in shape]
        return f".expand({', '.join(map(str, shown))})", new
    if name == "repeat":
        reps = [int(rng.integers(1, 3)) for _ in shape]
        return f".repeat({', '.join(map(str, reps))})", tuple(r * s for r, s in zip(reps, shape))
    if name == "flip":
        d = int(rng.integers(n)) if n else 0
        return (f".flip({d})", shape) if n else None
    if name == "contiguous":
        return ".contiguous()", shape
    if name == "narrow" and n and shape[0] > 1:
        return f".narrow(0, 1, {shape[0] - 1})", (shape[0] - 1,) + shape[1:]
    if name == "movedim" and n >= 2:
        return ".movedim(0, -1)", shape[1:] + shape[:1]
    return None


def topic_shapes(rng):
    shape = _pick(rng, [(2, 3), (3, 4), (2, 3, 2), (1, 3), (4,), (2, 1, 3), (6,)])
    out = [[f"x = torch.tensor({_literal(rng, shape)}, requires_grad=True)"]]
    text, cur = "x", shape
    for _ in range(int(rng.integers(1, 4))):
        op = _shape_op(rng, cur)
        if op is None:
            continue
        text, cur = text + op[0], op[1]
    out.append([f"y = {text}"])
    out.append(["y"])
    out.append([_pick(rng, ["y.shape", "y.size()", "y.is_contiguous()", "y.grad_fn",
                            "y.stride()", "y.dim()"])])
    if _numel(cur) <= 40:
        out.append([f"(y * {_weights(cur)}).sum().backward()"])
        out.append(["x.grad"])
    # combining tensors
    a_shape = _pick(rng, [(2, 3), (3,), (2, 2), (1, 3)])
    out.append([f"a = torch.tensor({_literal(rng, a_shape)}, requires_grad=True)"])
    out.append([f"b = torch.tensor({_literal(rng, a_shape)})"])
    d = int(rng.integers(-len(a_shape), len(a_shape)))
    exprs = [f"torch.cat([a, b], dim={d})", f"torch.cat((a, b, a))", f"torch.stack([a, b])",
             f"torch.stack([a, b], dim={int(rng.integers(-len(a_shape) - 1, len(a_shape) + 1))})",
             f"a.split(1)", f"a.split({int(rng.integers(1, 3))}, dim={d})",
             f"a.chunk({int(rng.integers(1, 4))}, dim={d})", f"torch.chunk(b, 2)",
             f"a.unbind({d})", "torch.cat([a, b.long()])", "torch.hstack([a, b])",
             "torch.vstack([a, b])", "torch.cat([a, torch.zeros(1)])",
             "torch.stack([a, torch.zeros(5)])", f"a.split([1, {a_shape[0] - 1}])",
             "torch.broadcast_tensors(a, b.sum(0))", "a.unsqueeze(0).expand(2, *a.shape)",
             "torch.cat([a, b], dim=5)", "a.view(-1, 2)", "a.t().view(-1)",
             "a.transpose(0, -1).contiguous().view(-1)", "a.reshape(-1, 5)"]
    for _ in range(int(rng.integers(2, 5))):
        out.append([_pick(rng, exprs)])
    out.append([_pick(rng, ["c = torch.cat([a, b * 2])", "c = torch.stack([a, b], -1)",
                            "c = torch.stack([a * 2, a * 3])", "c = torch.cat([a, a], 0)"])])
    out.append(["c"])
    out.append(["c.sum().backward()" if rng.random() < 0.5 else "(c ** 2).sum().backward()"])
    out.append(["a.grad"])
    return out


def topic_reductions(rng):
    shape = _pick(rng, [(2, 3), (3, 4), (2, 3, 2), (4,), (3, 1), (2, 2, 3)])
    n = len(shape)
    out = [[f"x = torch.tensor({_literal(rng, shape)}, requires_grad=True)"]]
    for _ in range(int(rng.integers(3, 7))):
        d = int(rng.integers(-n, n))
        keep = _pick(rng, ["", ", keepdim=True", "", ", keepdim=False"])
        name = _pick(rng, ["sum", "mean", "max", "min", "argmax", "argmin", "std", "var", "prod",
                           "cumsum", "norm", "logsumexp", "amax", "amin", "median", "all", "any",
                           "softmax", "cumprod", "std_unbiased", "var_correction", "max_all",
                           "sum_tuple", "norm_p", "sort", "topk", "nansum", "count_nonzero",
                           "torch_max", "aminmax", "mode"])
        if name in ("cumsum", "cumprod", "softmax"):
            expr = f"x.{name}(dim={d})" if rng.random() < 0.5 else f"torch.{name}(x, {d})"
        elif name == "std_unbiased":
            expr = f"x.std(dim={d}, unbiased=False{keep})"
        elif name == "var_correction":
            expr = f"x.var({d}, correction=0{keep})" if rng.random() < 0.5 else f"x.var(unbiased=False)"
        elif name == "max_all":
            expr = _pick(rng, ["x.max()", "x.min()", "torch.max(x)", "x.argmax()", "x.sum()",
                               "x.mean()", "x.prod()", "x.std()", "x.var()", "x.norm()"])
        elif name == "sum_tuple":
            expr = f"x.sum(({', '.join(map(str, range(min(2, n))))},){keep})" if n else "x.sum()"
        elif name == "norm_p":
            p = _pick(rng, ["1", "2", "float('inf')", "3"])
            expr = f"x.norm(p={p}, dim={d})"
        elif name == "sort":
            expr = f"x.sort(dim={d}, descending={_pick(rng, ['True', 'False'])})"
        elif name == "topk":
            expr = f"x.topk({int(rng.integers(1, shape[-1] + 1))})"
        elif name in ("all", "any"):
            expr = f"(x > 0).{name}(dim={d})" if rng.random() < 0.5 else f"(x > 0).{name}()"
        elif name == "count_nonzero":
            expr = f"torch.count_nonzero(x > 0, dim={d})"
        elif name == "torch_max":
            expr = f"torch.max(x, {d})" if rng.random() < 0.5 else f"torch.min(x, dim={d}{keep})"
        elif name == "aminmax":
            expr = f"torch.aminmax(x)"
        elif name == "mode":
            expr = f"torch.tensor([1, 2, 2, 3]).mode()"
        elif name == "nansum":
            expr = f"x.nansum({d})"
        elif name == "norm":
            expr = f"x.norm(dim={d}{keep})"
        elif name in ("max", "min", "median"):
            expr = _pick(rng, [f"x.{name}(dim={d}{keep})", f"x.{name}({d})"])
        else:
            expr = f"x.{name}(dim={d}{keep})" if rng.random() < 0.7 else f"x.{name}({d})"
        out.append([expr])
    # a namedtuple taken apart, then backward through the values
    d = int(rng.integers(-n, n))
    op = _pick(rng, ["max", "min", "median", "sort"])
    out.append([f"r = x.{op}(dim={d})"])
    out.append([_pick(rng, ["r", "r.values", "r.indices", "r[0]", "r[1]"])])
    out.append([f"values, indices = x.{op}({d})"])
    out.append(["indices"])
    out.append([_pick(rng, ["values.sum().backward()", f"(values * {_weights(tuple(s for i, s in enumerate(shape) if i != d % n) if op != 'sort' else shape)}).sum().backward()"])])
    out.append(["x.grad"])
    red = _pick(rng, ["x.std(dim=0)", "x.var(dim=-1)", "x.prod(dim=0)", "x.cumsum(dim=0)",
                      "x.norm(dim=-1)", "torch.logsumexp(x, dim=-1)", "x.mean(dim=0, keepdim=True)",
                      "x.amax(dim=-1)", "x.softmax(dim=-1)", "x.log_softmax(dim=0)",
                      "x.cumprod(dim=-1)", "x.sum(dim=-1) ** 2", "x.max(dim=-1).values"])
    out.append(["x.grad = None"])
    out.append([f"y = {red}"])
    out.append(["y"])
    out.append(["y.sum().backward()" if rng.random() < 0.5 else "(y * y).sum().backward()"])
    out.append(["x.grad"])
    return out


def topic_matmul(rng):
    m, k, n, b = (int(rng.integers(1, 4)) for _ in range(4))
    cases = [((k,), (k,)), ((k,), (k, n)), ((m, k), (k,)), ((m, k), (k, n)),
             ((b, m, k), (k, n)), ((b, m, k), (b, k, n)), ((m, k), (b, k, n)),
             ((b, m, k), (k,)), ((k,), (b, k, n)), ((2, 1, m, k), (b, k, n))]
    sa, sb = _pick(rng, cases)
    out = [[f"A = torch.tensor({_literal(rng, sa)}, requires_grad=True)"],
           [f"B = torch.tensor({_literal(rng, sb)}, requires_grad=True)"]]
    op = _pick(rng, ["A @ B", "torch.matmul(A, B)", "A.matmul(B)"])
    out.append([f"C = {op}"])
    out.append(["C"])
    out.append(["C.shape"])
    out.append(["C.grad_fn"])
    out.append([_pick(rng, ["C.sum().backward()", "(C ** 2).sum().backward()",
                            "C.backward(torch.ones_like(C))"])])
    out.append(["A.grad"])
    out.append(["B.grad"])
    extra = [f"torch.mm(torch.ones({m}, {k}), torch.ones({k}, {n}))",
             f"torch.mv(torch.ones({m}, {k}), torch.ones({k}))",
             f"torch.bmm(torch.ones({b}, {m}, {k}), torch.ones({b}, {k}, {n}))",
             f"torch.dot(torch.ones({k}), torch.arange({k}.))",
             f"torch.ones({m}, {k}) @ torch.ones({k + 1}, {n})",
             f"torch.ones({k}) @ torch.ones({k + 1})", f"torch.mm(torch.ones({k}), torch.ones({k}))",
             f"torch.outer(torch.arange({m}.), torch.arange({n}.))",
             f"torch.arange({m * k}.).reshape({m}, {k}) @ torch.arange({k}.)",
             f"torch.tensor([[1, 2], [3, 4]]) @ torch.tensor([[1, 0], [0, 1]])",
             f"torch.tensor([[1, 2], [3, 4]]) @ torch.tensor([[1., 0.], [0., 1.]])",
             f"torch.einsum('ij,j->i', torch.ones({m}, {k}), torch.arange({k}.))",
             f"torch.ones(2, 3).T @ torch.ones(2)", f"torch.eye(3) @ torch.arange(3.)",
             f"torch.trace(torch.arange(9.).reshape(3, 3))", f"torch.arange(4.).reshape(2, 2).det()",
             f"torch.inverse(torch.tensor([[2., 1.], [1., 3.]]))"]
    for _ in range(int(rng.integers(1, 4))):
        out.append([_pick(rng, extra)])
    return out


FUNCTIONS = {
    "exp": (["class MyExp(torch.autograd.Function):",
             "    @staticmethod",
             "    def forward(ctx, x):",
             "        y = x.exp()",
             "        ctx.save_for_backward(y)",
             "        return y",
             "    @staticmethod",
             "    def backward(ctx, grad):",
             "        y, = ctx.saved_tensors",
             "        return grad * y",
             ""], "MyExp.apply({a})"),
    "relu": (["class MyReLU(torch.autograd.Function):",
              "    @staticmethod",
              "    def forward(ctx, input):",
              "        ctx.save_for_backward(input)",
              "        return input.clamp(min=0)",
              "",
              "    @staticmethod",
              "    def backward(ctx, grad_output):",
              "        input, = ctx.saved_tensors",
              "        grad_input = grad_output.clone()",
              "        grad_input[input < 0] = 0",
              "        return grad_input",
              ""], "MyReLU.apply({a})"),
    "mul": (["class Mul(torch.autograd.Function):",
             "    @staticmethod",
             "    def forward(ctx, a, b):",
             "        ctx.save_for_backward(a, b)",
             "        return a * b",
             "    @staticmethod",
             "    def backward(ctx, g):",
             "        a, b = ctx.saved_tensors",
             "        print('needs', ctx.needs_input_grad)",
             "        ga = g * b if ctx.needs_input_grad[0] else None",
             "        gb = g * a if ctx.needs_input_grad[1] else None",
             "        return ga, gb",
             ""], "Mul.apply({a}, {b})"),
    "scale": (["class Scale(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x, k):",
               "        ctx.k = k",
               "        return x * k",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        return g * ctx.k, None",
               ""], "Scale.apply({a}, {k})"),
    "cube": (["class Cube(torch.autograd.Function):",
              "    @staticmethod",
              "    def forward(ctx, x):",
              "        ctx.save_for_backward(x)",
              "        return x ** 3",
              "    @staticmethod",
              "    def backward(ctx, g):",
              "        x, = ctx.saved_tensors",
              "        return 3 * x ** 2 * g",
              ""], "Cube.apply({a})"),
    "argmax": (["class MaxIdx(torch.autograd.Function):",
                "    @staticmethod",
                "    def forward(ctx, x):",
                "        idx = x.argmax()",
                "        ctx.mark_non_differentiable(idx)",
                "        ctx.save_for_backward(x, idx)",
                "        return x.max(), idx",
                "    @staticmethod",
                "    def backward(ctx, g, gi):",
                "        x, idx = ctx.saved_tensors",
                "        out = torch.zeros_like(x)",
                "        out.view(-1)[idx] = g",
                "        return out",
                ""], "MaxIdx.apply({a})[0]"),
    "wrong": (["class Wrong(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        return x * 2",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        return g, g",
               ""], "Wrong.apply({a})"),
    "shape": (["class BadShape(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        return x.sum()",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        return torch.ones(7)",
               ""], "BadShape.apply({a})"),
    "twice": (["class Twice(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        ctx.save_for_backward(x)",
               "        return 2 * x, x * x",
               "    @staticmethod",
               "    def backward(ctx, g1, g2):",
               "        x, = ctx.saved_tensors",
               "        return 2 * g1 + 2 * x * g2",
               ""], "Twice.apply({a})[1]"),
}


def topic_function(rng):
    name = _pick(rng, list(FUNCTIONS))
    lines, call = FUNCTIONS[name]
    shape = _pick(rng, [(3,), (2, 2), ()])
    out = [lines,
           [f"a = torch.tensor({_literal(rng, shape)}, requires_grad=True)"],
           [f"b = torch.tensor({_literal(rng, shape)}, requires_grad={_pick(rng, ['True', 'False'])})"]]
    out.append([f"y = {call.format(a='a', b='b', k=_pick(rng, ['2', '0.5', '-3.0']))}"])
    out.append(["y"])
    out.append([_pick(rng, ["y.grad_fn", "y.requires_grad", "y.grad_fn.next_functions",
                            "y.is_leaf"])])
    out.append([_pick(rng, ["y.sum().backward()", "y.backward(torch.ones_like(y))",
                            "(y * y).sum().backward()"])])
    out.append(["a.grad"])
    out.append(["b.grad"])
    if rng.random() < 0.4:
        out.append([f"g, = torch.autograd.grad({call.format(a='a', b='b', k='2')}.sum(), a)"])
        out.append(["g"])
    if rng.random() < 0.3:
        out.append(["with torch.no_grad():", f"    z = {call.format(a='a', b='b', k='2')}", ""])
        out.append(["z.requires_grad"])
    return out


FUNCS = ["lambda x: x ** 2 * 3", "lambda x: x.sin() * x", "lambda x: (x ** 3).sum()",
         "lambda x: x.exp().sum()", "lambda x: x.cumsum(0)", "lambda x: x @ x",
         "lambda x: torch.stack([x[0] * x[1], x[1] ** 2])", "lambda x: x.prod()",
         "lambda x: x.tanh() * x.sum()", "lambda x: x.norm()"]


def topic_functional(rng):
    out = [["from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp"]]
    n = int(rng.integers(2, 4))
    out.append([f"x = torch.tensor({_literal(rng, (n,))})"])
    f = _pick(rng, FUNCS)
    scalar = "sum()" in f or "@" in f or "prod" in f or "norm" in f
    out.append([f"f = {f}"])
    out.append(["f(x)"])
    calls = ["jacobian(f, x)", "jacobian(f, x, create_graph=True)", "jvp(f, x, torch.ones_like(x))",
             "jacobian(f, x, vectorize=True)",
             "jacobian(f, x, strategy='forward-mode', vectorize=True)"]
    if scalar and "@" not in f:  # (x @ x: a known gap, see test_forward_over_reverse.py)
        calls += ["hessian(f, x, vectorize=True, outer_jacobian_strategy='forward-mode')",
                  "hessian(f, x.requires_grad_(), vectorize=True, "
                  "outer_jacobian_strategy='forward-mode')"]
    if scalar:
        calls += ["hessian(f, x)", "vjp(f, x)", "hvp(f, x, torch.ones_like(x))",
                  "vhp(f, x, torch.arange(float(len(x))))", "torch.autograd.functional.hessian(f, x)"]
    else:
        calls += ["vjp(f, x, torch.ones_like(f(x)))", "hessian(f, x)", "vjp(f, x)"]
    for _ in range(int(rng.integers(2, 5))):
        out.append([_pick(rng, calls)])
    if rng.random() < 0.5:
        out.append([f"y = torch.tensor({_literal(rng, (n,))})"])
        out.append([_pick(rng, ["jacobian(lambda a, b: a * b, (x, y))",
                                "hessian(lambda a, b: (a * b).sum(), (x, y))",
                                "jacobian(lambda a, b: (a + b, a - b), (x, y))",
                                "vjp(lambda a, b: a * b + b, (x, y), torch.ones(len(x)))",
                                "jvp(lambda a, b: a * b, (x, y), (torch.ones(len(x)), torch.zeros(len(x))))"])])
    if rng.random() < 0.3:
        out.append(["def g(x):", "    return x.sum(), x.mean()", ""])
        out.append(["jacobian(g, x)"])
    return out


def topic_forward_ad(rng):
    shape = _pick(rng, [(2,), (3,), ()])
    expr = _pick(rng, ["d.sin() * d", "d ** 2", "d.exp()", "(d * 3).sum()", "torch.tanh(d)",
                       "d / (d ** 2 + 1)", "d.cos() + d.log1p() if False else d.cos()"])
    out = [["import torch.autograd.forward_ad as fwAD"],
           [f"x = torch.tensor({_literal(rng, shape, 'pos')})"],
           [f"v = torch.tensor({_literal(rng, shape)})"]]
    body = ["with fwAD.dual_level():",
            "    d = fwAD.make_dual(x, v)",
            f"    y = {expr}",
            "    p, t = fwAD.unpack_dual(y)"]
    body += _pick(rng, [["    print(p)", "    print(t)"], ["    print(fwAD.unpack_dual(y).tangent)"],
                        ["    out = fwAD.unpack_dual(y)"], ["    print(d)"], ["    print(y)"]])
    out.append(body + [""])
    out.append(["p"])
    out.append(["t"])
    if "out = " in "".join(body):
        out.append(["out"])
        out.append(["out.primal, out.tangent"])
    if rng.random() < 0.3:
        out.append(["fwAD.unpack_dual(x)"])
    return out


def topic_accumulate(rng):
    shape = _pick(rng, [(2,), (3,), (), (2, 2)])
    out = [[f"x = torch.tensor({_literal(rng, shape)}, requires_grad=True)"]]
    expr = _pick(rng, ["(x ** 2).sum()", "(x * 3).sum()", "x.exp().sum()", "(x.sin() * x).sum()"])
    for _ in range(int(rng.integers(2, 4))):
        out.append([f"{expr}.backward()"])
        out.append(["x.grad"])
    out.append([_pick(rng, ["x.grad.data.zero_()", "x.grad.zero_()", "x.grad = None",
                            "x.grad.data.zero_();"])])
    out.append(["x.grad"])
    out.append([f"y = {expr}"])
    out.append([_pick(rng, ["y.backward(retain_graph=True)", "y.backward()"])])
    out.append(["y.backward()"])
    out.append(["x.grad"])
    out.append(["m = x * 2"])
    out.append(["m.retain_grad()"] if rng.random() < 0.6 else ["m.requires_grad"])
    out.append(["(m * m).sum().backward()"])
    out.append(["m.grad"])
    out.append(["x.grad"])
    out.append(["with torch.no_grad():", f"    x -= 0.1 * x.grad", ""])
    out.append(["x"])
    out.append(["x.requires_grad_(False)"])
    out.append(["x.requires_grad, (x * 2).requires_grad"])
    if rng.random() < 0.5:
        out.append(["x.requires_grad_()"])
        out.append(["x.grad.zero_()"])
        out.append(["loss = (x * x).sum()"])
        out.append(["loss.backward()"])
        out.append(["x.grad"])
    if rng.random() < 0.4:
        out.append(["torch.is_grad_enabled()"])
        out.append(["with torch.enable_grad():", "    print(torch.is_grad_enabled())", ""])
        out.append(["with torch.set_grad_enabled(False):", "    q = x * 2", ""])
        out.append(["q.requires_grad"])
    return out


def topic_training(rng):
    n = int(rng.integers(3, 7))
    xs = [round(float(v), 2) for v in rng.uniform(-2, 2, n)]
    w_true, b_true = round(float(rng.uniform(-2, 2)), 2), round(float(rng.uniform(-1, 1)), 2)
    ys = [round(w_true * v + b_true + float(rng.normal(0, 0.1)), 2) for v in xs]
    lr = _pick(rng, ["0.1", "0.05", "0.01"])
    out = [[f"xs = torch.tensor({xs})"], [f"ys = torch.tensor({ys})"],
           ["w = torch.tensor(0., requires_grad=True)"],
           ["b = torch.zeros(1, requires_grad=True)"]]
    fmt = _pick(rng, ["print(step, loss.item())", "print(f'step {step}: loss={loss.item():.4f}')",
                      "print(f'{step:2d} {loss:.3f} {w.item():+.3f}')", "print(step, loss)",
                      "losses.append(loss.item())"])
    steps = int(rng.integers(2, 6))
    if "losses" in fmt:
        out.append(["losses = []"])
    out.append([f"for step in range({steps}):",
                "    loss = ((w * xs + b - ys) ** 2).mean()",
                "    loss.backward()",
                "    with torch.no_grad():",
                f"        w -= {lr} * w.grad",
                f"        b -= {lr} * b.grad",
                "    w.grad.zero_()",
                "    b.grad.zero_()",
                f"    {fmt}",
                ""])
    out.append(["w, b"])
    if "losses" in fmt:
        out.append(["losses"])
        out.append(["[round(l, 3) for l in losses]"])
    out.append(["print(f\"w={w.item():.4f}, b={b.item():.4f}\")"])
    out.append(["loss"])
    return out


def topic_printing_values(rng):
    shape = _pick(rng, [(3,), (2, 2), ()])
    out = [[f"x = torch.tensor({_literal(rng, shape)}, requires_grad=True)"],
           ["loss = (x ** 2).sum()"]]
    for _ in range(int(rng.integers(3, 7))):
        out.append([_pick(rng, [
            "print(f\"loss = {loss.item():.4f}\")", "print(f\"{loss:.3f}\")", "print(f\"{loss}\")",
            "print(f\"{x}\")", "print(f\"{loss.item():e} {loss.item():8.2f}|{loss.item():>10}|{3:03d}\")",
            "print(x, loss)", "print(\"x:\", x, \"grad\", x.grad)", "x, loss", "[x, loss]",
            "(x.sum(), x.mean())", "print([x, x * 2])", "print((x, loss))", "str(loss)",
            "repr(loss.detach())", "f\"{loss.item():.2%}\"", "'%.3f' % loss.item()",
            "'{:.2f}'.format(loss.item())", "round(loss.item(), 3)", "loss.item()",
            "print(loss.item())", "print(loss.detach().numpy())", "x.tolist()", "loss.tolist()",
            "print(x.grad)", "x.detach().numpy()", "print('sum', x.sum().item())",
            "x.sum().item() > 0", "print(*[1, 2], sep=', ')", "print(x.shape, x.dtype)",
            "print(x.size())", "print(f'{x.shape}')", "print(f'{x.dtype}')",
            "print('done')", "x.sum().item() * 2", "int(loss.item())",
            "print(f'{loss.item()=}')" if False else "print(f'loss={loss.item()}')"])])
    return out


def topic_attributes(rng):
    shape = _pick(rng, [(3,), (2, 3), (2, 2, 2), ()])
    out = [[f"x = torch.tensor({_literal(rng, shape)}, requires_grad=True)"],
           [f"y = {_pick(rng, ['(x * 2).sin()', 'x.exp() + 1', 'x ** 2 * 3', 'torch.relu(x) - x'])}"]]
    attrs = ["x.size()", "x.shape", "x.dim()", "x.numel()", "x.dtype", "x.is_leaf", "y.is_leaf",
             "y.grad_fn", "y.grad_fn.next_functions", "y.grad_fn.next_functions[0][0]",
             "y.grad_fn.next_functions[0][0].next_functions", "x.requires_grad", "y.requires_grad",
             "x.grad", "y.grad", "x.ndim", "x.device", "y.grad_fn.name()",
             "x.data", "y.data", "y.detach()", "x.clone()", "y.clone()", "len(x) if x.dim() else 0",
             "x.element_size()", "x.is_contiguous()", "x.T" if len(shape) == 2 else "x.t()" if len(shape) < 3 else "x.mT",
             "x.retains_grad", "y.retains_grad", "x.grad_fn",
             "x.type()", "x.is_floating_point()", "x.dtype.is_floating_point", "y.shape[-1]" if shape else "y.shape",
             "x.shape[0]" if shape else "x.shape", "x.size(0)" if shape else "x.size()",
             "x.nelement()", "x.itemsize", "y.grad_fn.next_functions[0][0].variable" if False else "x.is_cuda"]
    for _ in range(int(rng.integers(4, 9))):
        out.append([_pick(rng, attrs)])
    return out


def topic_errors(rng):
    out = [["x = torch.tensor([1., 2., 3.], requires_grad=True)"]]
    errors = [["y = x * 2", "y.backward()"],
              ["y = x * 2", "y.backward(torch.ones(2))"],
              ["y = x * 2", "y.backward(torch.ones(2, 3))"],
              ["x.mul_(2)"], ["x[0] = 5"], ["x += 1"], ["x.zero_()"],
              ["e = x.exp()", "e.add_(1)", "e.sum().backward()"],
              ["s = x.sigmoid()", "s.mul_(2)", "s.sum().backward()"],
              ["x[3]"], ["x[-4]"], ["x[1, 0]"], ["torch.tensor([[1, 2], [3, 4]])[2]"],
              ["torch.tensor([1, 2]) + torch.tensor([1, 2, 3])"],
              ["torch.ones(2, 3) @ torch.ones(2, 3)"], ["torch.ones(2, 3).t().view(6)"],
              ["torch.tensor([1, 2], requires_grad=True)"],
              ["torch.ones(3).long().requires_grad_()"], ["torch.arange(3).sum().backward()"],
              ["a = torch.tensor(2., requires_grad=True)", "b = a * a", "b.backward()", "b.backward()"],
              ["x.numpy()"], ["x.item()"], ["torch.ones(3)[torch.tensor([0, 5])]"],
              ["torch.ones(3)[torch.tensor([True, False])]"], ["torch.exp(torch.tensor([1, 2]))"],
              ["torch.tensor([1, 2]).mean()"], ["torch.ones(2, 2).view(3)"],
              ["torch.ones(2, 3).reshape(4, -1)"], ["torch.cat([torch.ones(2), torch.ones(2, 2)])"],
              ["torch.stack([torch.ones(2), torch.ones(3)])"], ["x.grad.zero_()"],
              ["torch.tensor([1., 2.]) * torch.tensor([1., 2.], dtype=torch.float64)"],
              ["torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))"],
              ["x.sum(dim=1)"], ["x.transpose(0, 1)"], ["x.permute(1, 0)"], ["x.view(2, 2)"],
              ["x.expand(2)"], ["x.squeeze(2)"], ["torch.zeros(2, 2).inverse()"],
              ["(x > 1).backward()"], ["x.detach().requires_grad_().backward()"],
              ["torch.autograd.grad(x.sum(), x)", "torch.autograd.grad((x * 2).sum(), torch.ones(2))"],
              ["torch.autograd.grad((x * 2).sum(), x, torch.ones(2))"],
              ["y = x.detach()", "torch.autograd.grad(y.sum(), y)"],
              ["w = torch.tensor(1., requires_grad=True)", "torch.autograd.grad((x * 2).sum(), w)"],
              ["with torch.no_grad():", "    y = x * 2", "", "y.backward(torch.ones(3))"],
              ["bool(x > 1)"], ["x.tolist()[5]"], ["torch.randint(3, 1, (2,))"],
              ["torch.arange(0, 5, 0)"], ["torch.linspace(0, 1, -1)"], ["x.grad.data"],
              ["v = x[:2]", "v.mul_(2)"], ["x.data.mul_(2)", "x"], ["x.view(-1, -1)"],
              ["x.reshape(2, 5)"], ["x.unsqueeze(3)"], ["x.max(dim=2)"], ["x.split(0)"],
              ["torch.tensor([[1, 2], [3]])"], ["torch.tensor('a')"], ["torch.ones(-1)"],
              ["x.retain_grad()", "torch.tensor([1.]).retain_grad()"],
              ["torch.tensor(1.).register_hook(lambda g: g)"]]
    picked = [errors[int(i)] for i in rng.choice(len(errors), int(rng.integers(3, 7)), replace=False)]
    for lines in picked:
        i = 0
        while i < len(lines):
            if lines[i].startswith("with "):
                block = [lines[i]]
                i += 1
                while i < len(lines) and lines[i]:
                    block.append(lines[i])
                    i += 1
                out.append(block + [""])
                i += 1
                continue
            out.append([lines[i]])
            i += 1
    return out


def topic_python(rng):
    out = [[f"x = torch.tensor({_literal(rng, (3,))}, requires_grad=True)"]]
    snippets = [
        [["total = 0"], ["for i in range(3):", "    total += x[i] * i", ""], ["total"]],
        [["total = torch.tensor(0.)"], ["for v in x:", "    total = total + v ** 2", ""],
         ["total"], ["total.backward()"], ["x.grad"]],
        [["def f(a, b=2.0, *, c=1):", "    return a * b + c", ""], ["f(x)"], ["f(x, 3, c=0)"]],
        [["[v ** 2 for v in x]"]], [["[i for i in range(5) if i % 2]"]],
        [["sum(x)"]], [["sum([x, x])"]], [["len(x)"]],
        [["for v in x:", "    print(v)", ""]],
        [["for i, v in enumerate(x.detach()):", "    print(i, v.item())", ""]],
        [["list(x.shape)"], ["tuple(x.shape)"]], [["x.shape == (3,)"]],
        [["x.shape == torch.Size([3])"]], [["isinstance(x, torch.Tensor)"]],
        [["max(x.tolist())"]], [["abs(torch.tensor(-3.))"]], [["torch.Size([2, 3])"]],
        [["torch.Size([2, 3]).numel()"]],
        [["ys = [x * k for k in range(1, 4)]"], ["ys"], ["torch.stack(ys).sum().backward()"],
         ["x.grad"]],
        [["def loss_fn(p, target=1.0):", "    return ((p - target) ** 2).mean()", ""],
         ["l = loss_fn(x)"], ["l"], ["l.backward()"], ["x.grad"]],
        [["i = 0"], ["while i < 3:", "    i += 1", "    if i == 2:", "        continue",
                     "    print(i, (x * i).sum().item())", ""]],
        [["d = {'a': 1, 'b': x.sum()}"], ["d"]] if False else [["n = 3"], ["n ** 2"]],
        [["squares = {i: i ** 2 for i in range(3)}"] if False else ["squares = [i ** 2 for i in range(3)]"],
         ["squares"]],
        [["g = lambda t: t * 2 + 1"], ["g(x)"], ["g(3)"]],
        [["a, b = x[0], x[1]"], ["a * b"], ["(a * b).backward()"], ["x.grad"]],
        [["y = x if x.sum() > 0 else -x"], ["y"]],
        [["print(f\"{'name':>6}|{x.sum().item():.2f}\")"]],
        [["for name, t in [('a', x), ('b', x * 2)]:", "    print(name, t.sum().item())", ""]],
        [["def step(p, lr=0.1):", "    with torch.no_grad():", "        p -= lr * p.grad", "",
          ], ["(x ** 2).sum().backward()"], ["step(x)"], ["x"]],
        [["import math"], ["math.pi * x"], ["math.sqrt(2)"], ["torch.tensor(math.e).log()"]],
        [["import numpy as np"], ["torch.from_numpy(np.array([1., 2.]))"],
         ["torch.tensor(np.arange(3))"], ["x.detach().numpy().sum()"]],
    ]
    for i in rng.choice(len(snippets), int(rng.integers(2, 5)), replace=False):
        for lines in snippets[int(i)]:
            out.append(lines)
    return out


VIEW_MAKERS = ["y[1:]", "y[0]", "y.t()" , "y.unsqueeze(0)", "y.view(-1)", "y[:, 0]",
               "y.transpose(0, 1)[1]", "y.reshape(-1)[::2]", "y.detach()", "y[1:].detach()"]


def topic_views(rng):
    """Views of a tensor in a graph written in place through themselves, a sibling, the base
    or a detached alias, in and out of no_grad: grad_fn, requires_grad and gradients."""
    shape = _pick(rng, [(2, 2), (3, 2), (2, 3)])
    out = [[f"x = torch.tensor({_literal(rng, shape)}, requires_grad=True)"],
           [_pick(rng, ["y = x * 2", "y = x + 0", "y = x.exp()", "y = x.clone()"])]]
    names = []
    for k in range(int(rng.integers(2, 4))):
        name = f"v{k}"
        maker = _pick(rng, VIEW_MAKERS)
        if rng.random() < 0.25:
            out.append(["with torch.no_grad():", f"    {name} = {maker}", ""])
        else:
            out.append([f"{name} = {maker}"])
        names.append(name)
    for _ in range(int(rng.integers(2, 5))):
        target = _pick(rng, names + ["y"])
        write = _pick(rng, [f"{target}.mul_(2)", f"{target}.add_(1)", f"{target}.zero_()",
                            f"{target}.sin_()", f"{target}[0] = 3.", f"{target}.copy_({target} * 0 + 1)"
                            if False else f"{target}.neg_()"])
        if rng.random() < 0.3:
            out.append(["with torch.no_grad():", f"    {write}", ""])
        else:
            out.append([write])
        out.append([_pick(rng, names + ["y"])])
    for name in names:
        out.append([_pick(rng, [f"{name}.grad_fn", f"{name}.requires_grad", f"{name}.is_leaf",
                                name])])
    out.append([_pick(rng, ["y.sum().backward()", "(y * y).sum().backward()",
                            f"({names[0]} * 1.).sum().backward()"])])
    out.append(["x.grad"])
    return out


TOPICS = [topic_views, topic_dtypes, topic_creation, topic_printing, topic_indexing, topic_shapes,
          topic_reductions, topic_matmul, topic_function, topic_functional, topic_forward_ad,
          topic_accumulate, topic_training, topic_printing_values, topic_attributes,
          topic_errors, topic_python]


def random_session_more(rng):
    """Statements (lists of lines) of one random session of two to four topics."""
    out = [["import torch"]]
    for i in rng.choice(len(TOPICS), int(rng.integers(2, 5)), replace=False):
        out += TOPICS[int(i)](rng)
    return out
