"""In-process workloads of bench/bench_suite.py, one factory per (workload, implementation).

A factory takes the size and returns a `run()` callable, or raises `Unsupported(reason)` when the
implementation cannot do the workload at all and trying would prove nothing (e.g. micrograd on a
1024x1024 MLP). `run()` returns `(result, phases)`: `result` is a NumPy value compared with the
reference implementation's (so a fast wrong answer cannot pass), `phases` a dict of named times
(seconds) inside the run, or None. A `run()` that raises is reported as "fails: <reason>".

Implementations:
  gradcli    import gradcli (the torch-like Python API)
  torch      PyTorch (CPU)
  autograd   HIPS autograd (autograd.numpy)
  micrograd  Karpathy's micrograd (scalar Value objects)
  numpy      hand-written forward and backward with NumPy (Python floats and math for scalars)

Everything is float64: NumPy's, HIPS autograd's and micrograd's native precision.
"""

import math
import time

import numpy as np

perf = time.perf_counter

IMPLS = ("gradcli", "torch", "autograd", "micrograd", "numpy")


class Unsupported(Exception):
    """The implementation cannot do this workload (the message says why)."""


def _lib(name):
    if name == "gradcli":
        import gradcli as lib
    elif name == "torch":
        import torch as lib
    else:
        raise ValueError(name)
    return lib


def prepare(impl, threads=1):
    """float64 by default (every factory asks for it too) and, for PyTorch, the thread count
    (0: its default)."""
    if impl in ("gradcli", "torch"):
        lib = _lib(impl)
        lib.set_default_dtype(lib.float64)
        if impl == "torch" and threads > 0:
            lib.set_num_threads(threads)


def _micrograd():
    try:
        from micrograd.engine import Value
    except ImportError:  # pragma: no cover - the comparison column is left out
        raise Unsupported("not installed (pip install micrograd)")
    return Value


def _autograd():
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:  # pragma: no cover
        raise Unsupported("not installed (pip install autograd)")
    return autograd, anp


# ---------------------------------------------------------------------------------------------
# Scalar chain: x*w, x+b, sin(x), x*1.0001 repeated (n ops in all), forward and backward.
# The gradient of x, w and b; the graph is freed inside the timed region ("bwd" includes it).

X0, W0, B0, C = 0.5, 1.0001, 0.001, 1.0001


def chain(impl, n):
    reps = n // 4
    if impl in ("gradcli", "torch"):
        lib = _lib(impl)

        def run():
            t0 = perf()
            x = lib.tensor(X0, dtype=lib.float64, requires_grad=True)
            w = lib.tensor(W0, dtype=lib.float64, requires_grad=True)
            b = lib.tensor(B0, dtype=lib.float64, requires_grad=True)
            y = x
            for _ in range(reps):
                y = y * w
                y = y + b
                y = lib.sin(y)
                y = y * C
            t1 = perf()
            y.backward()
            del y
            t2 = perf()
            return np.array([x.grad.item(), w.grad.item(), b.grad.item()]), \
                {"fwd": t1 - t0, "bwd": t2 - t1}
        return run
    if impl == "autograd":
        autograd, anp = _autograd()
        from autograd import make_vjp

        def f(x, w, b):
            y = x
            for _ in range(reps):
                y = y * w
                y = y + b
                y = anp.sin(y)
                y = y * C
            return y

        def run():
            t0 = perf()
            vjp, _ = make_vjp(f, argnum=(0, 1, 2))(X0, W0, B0)
            t1 = perf()
            gx, gw, gb = vjp(1.0)
            del vjp
            t2 = perf()
            return np.array([gx, gw, gb]), {"fwd": t1 - t0, "bwd": t2 - t1}
        return run
    if impl == "micrograd":
        Value = _micrograd()

        def build(unary):
            x, w, b = Value(X0), Value(W0), Value(B0)
            y = x
            for _ in range(reps):
                y = unary(y * w + b) * C
            return x, w, b, y

        def run():
            try:
                build(lambda v: v.sin())
            except AttributeError:
                pass
            else:  # pragma: no cover - a micrograd that grew sin
                raise AssertionError("micrograd has sin now: update the workload")
            # The same chain with relu in place of sin, to see whether the depth alone is a problem.
            x, w, b, y = build(lambda v: v.relu())
            try:
                y.backward()
            except RecursionError:
                raise Unsupported("no sin (Value has only + * ** relu); with relu for sin, "
                                  f"backward() hits RecursionError (recursive topological sort, "
                                  f"depth {n})")
            raise Unsupported("no sin (Value has only + * ** relu)")
        return run
    if impl == "numpy":
        sin, cos = math.sin, math.cos

        def run():
            t0 = perf()
            ys = [0.0] * reps
            y = X0
            for i in range(reps):
                ys[i] = y
                y = sin(y * W0 + B0) * C
            t1 = perf()
            g, gw, gb = 1.0, 0.0, 0.0
            for y0 in reversed(ys):
                g = g * C * cos(y0 * W0 + B0)
                gw += g * y0
                gb += g
                g = g * W0
            del ys
            t2 = perf()
            return np.array([g, gw, gb]), {"fwd": t1 - t0, "bwd": t2 - t1}
        return run
    raise ValueError(impl)


# ---------------------------------------------------------------------------------------------
# 3-layer 1024x1024 tanh MLP, batch 64: h = tanh(h @ W) three times, sum, backward to the weights.

def _mlp_arrays(batch=64, width=1024):
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((width, width)) / 32 for _ in range(3)]
    x = rng.standard_normal((batch, width))
    return ws, x


def mlp(impl, batch=64, width=1024):
    arrays, xa = _mlp_arrays(batch, width)
    if impl in ("gradcli", "torch"):
        lib = _lib(impl)
        # from_numpy shares the arrays (no copy), so the peak-memory workload compares like with like
        ws = [lib.from_numpy(a).requires_grad_(True) for a in arrays]
        x = lib.from_numpy(xa)

        def run():
            for w in ws:
                w.grad = None
            h = x
            for w in ws:
                h = lib.tanh(h @ w)
            h.sum().backward()
            return ws[0].grad.numpy(), None
        return run
    if impl == "autograd":
        autograd, anp = _autograd()

        def loss(ws):
            h = xa
            for w in ws:
                h = anp.tanh(anp.dot(h, w))
            return anp.sum(h)
        g = autograd.grad(loss)

        def run():
            return g(arrays)[0], None
        return run
    if impl == "micrograd":
        _micrograd()
        raise Unsupported("scalar-only: no tensors, matmul or tanh; this MLP would be ~2e8 Value "
                          "objects")
    if impl == "numpy":
        def run():
            hs = [xa]
            for w in arrays:
                hs.append(np.tanh(hs[-1] @ w))
            g = np.ones_like(hs[-1])
            grads = [None] * 3
            for i in reversed(range(3)):
                g = g * (1 - hs[i + 1] ** 2)
                grads[i] = hs[i].T @ g
                if i:
                    g = g @ arrays[i].T
            return grads[0], None
        return run
    raise ValueError(impl)


# ---------------------------------------------------------------------------------------------
# 20-op elementwise chain on 1e6 elements: (x*0.5 + 0.1) -> sin -> *0.5 -> exp, five times;
# sum, backward to x (a leaf on the input's memory: from_numpy, as NumPy reads the input).

def _elementwise_input(n):
    return np.random.default_rng(1).uniform(0.5, 1.5, n)


def elementwise(impl, n=1_000_000):
    a = _elementwise_input(n)
    if impl in ("gradcli", "torch"):
        lib = _lib(impl)

        def run():
            # the leaf shares the input's memory (no copy), as the NumPy version reads it
            x = lib.from_numpy(a).requires_grad_()
            y = x
            for _ in range(5):
                y = lib.exp(lib.sin(y * 0.5 + 0.1) * 0.5)
            y.sum().backward()
            return x.grad.numpy(), None
        return run
    if impl == "autograd":
        autograd, anp = _autograd()

        def f(x):
            y = x
            for _ in range(5):
                y = anp.exp(anp.sin(y * 0.5 + 0.1) * 0.5)
            return anp.sum(y)
        g = autograd.grad(f)

        def run():
            return g(a), None
        return run
    if impl == "micrograd":
        _micrograd()
        raise Unsupported("scalar-only: 1e6 elements x 20 ops would be 2e7 Value objects; and "
                          "no sin or exp")
    if impl == "numpy":
        def run():
            saved = []
            y = a
            for _ in range(5):
                u = y * 0.5 + 0.1
                e = np.exp(np.sin(u) * 0.5)
                saved.append((u, e))
                y = e
            g = np.ones_like(a)
            for u, e in reversed(saved):
                g = g * e
                g *= 0.5
                g *= np.cos(u)
                g *= 0.5
            return g, None
        return run
    raise ValueError(impl)


# ---------------------------------------------------------------------------------------------
# Second derivative d2y/dx2 of the scalar chain of n ops (create_graph=True, then grad again).
# w and b are constants here.

def second_derivative(impl, n=1000):
    reps = n // 4
    if impl in ("gradcli", "torch"):
        lib = _lib(impl)

        def run():
            x = lib.tensor(X0, dtype=lib.float64, requires_grad=True)
            w = lib.tensor(W0, dtype=lib.float64)
            b = lib.tensor(B0, dtype=lib.float64)
            y = x
            for _ in range(reps):
                y = y * w
                y = y + b
                y = lib.sin(y)
                y = y * C
            g, = lib.autograd.grad(y, x, create_graph=True)
            g2, = lib.autograd.grad(g, x)
            return np.array([g.item(), g2.item()]), None
        return run
    if impl == "autograd":
        autograd, anp = _autograd()

        def f(x):
            y = x
            for _ in range(reps):
                y = y * W0
                y = y + B0
                y = anp.sin(y)
                y = y * C
            return y
        d1 = autograd.grad(f)
        d2 = autograd.grad(d1)

        def run():
            return np.array([d1(X0), d2(X0)]), None
        return run
    if impl == "micrograd":
        _micrograd()
        raise Unsupported("no higher-order derivatives: backward() accumulates floats and builds "
                          "no graph; no sin")
    if impl == "numpy":
        sin, cos = math.sin, math.cos

        def run():  # forward-mode second order: (y, y', y'')
            y, d, dd = X0, 1.0, 0.0
            for _ in range(reps):
                u = y * W0 + B0
                du, ddu = d * W0, dd * W0
                s, c = sin(u), cos(u)
                y, d, dd = s * C, c * du * C, (c * ddu - s * du * du) * C
            return np.array([d, dd]), None
        return run
    raise ValueError(impl)


# ---------------------------------------------------------------------------------------------
# Hessian of f(x) = sum(tanh(W x)) + 0.5 x.x, x in R^100.
# mode "reverse": PyTorch's default (reverse-over-reverse, vectorize=False);
# mode "forward": forward-over-reverse (vectorize=True, outer_jacobian_strategy="forward-mode").

def _hess_data(d=100):
    rng = np.random.default_rng(2)
    return rng.standard_normal((d, d)) / 10, rng.standard_normal(d)


def hessian(impl, mode="reverse", d=100):
    Wa, xa = _hess_data(d)
    if impl in ("gradcli", "torch"):
        lib = _lib(impl)
        W = lib.tensor(Wa, dtype=lib.float64)
        x = lib.tensor(xa, dtype=lib.float64)

        def f(x):
            return lib.tanh(W @ x).sum() + 0.5 * (x * x).sum()
        kw = {} if mode == "reverse" else {"vectorize": True,
                                           "outer_jacobian_strategy": "forward-mode"}

        def run():
            return lib.autograd.functional.hessian(f, x, **kw).detach().numpy(), None
        return run
    if impl == "autograd":
        autograd, anp = _autograd()

        def f(x):
            return anp.sum(anp.tanh(anp.dot(Wa, x))) + 0.5 * anp.sum(x * x)
        if mode == "reverse":
            h = autograd.hessian(f)  # jacobian(jacobian(f)): reverse over reverse

            def run():
                return h(xa), None
        else:
            from autograd.core import make_jvp
            g = autograd.grad(f)
            eye = np.eye(d)

            def run():
                jvp = make_jvp(g, xa)
                return np.stack([jvp(eye[k])[1] for k in range(d)], axis=1), None
        return run
    if impl == "micrograd":
        _micrograd()
        raise Unsupported("no higher-order derivatives (and no tanh)")
    if impl == "numpy":
        def run():
            t = np.tanh(Wa @ xa)
            return (Wa.T * (-2 * t * (1 - t * t))) @ Wa + np.eye(d), None
        return run
    raise ValueError(impl)


# ---------------------------------------------------------------------------------------------
# Jacobian 100x100 of F(x) = (W x) * x + x**3.
# mode "reverse": PyTorch's default (one backward per output, vectorize=False);
# mode "forward": strategy="forward-mode" (which PyTorch allows only with vectorize=True).

def jacobian(impl, mode="reverse", d=100):
    Wa, xa = _hess_data(d)
    if impl in ("gradcli", "torch"):
        lib = _lib(impl)
        W = lib.tensor(Wa, dtype=lib.float64)
        x = lib.tensor(xa, dtype=lib.float64)

        def F(x):
            return (W @ x) * x + x ** 3
        kw = {} if mode == "reverse" else {"vectorize": True, "strategy": "forward-mode"}

        def run():
            return lib.autograd.functional.jacobian(F, x, **kw).detach().numpy(), None
        return run
    if impl == "autograd":
        autograd, anp = _autograd()

        def F(x):
            return anp.dot(Wa, x) * x + x ** 3
        if mode == "reverse":
            j = autograd.jacobian(F)

            def run():
                return j(xa), None
        else:
            from autograd.core import make_jvp
            eye = np.eye(d)

            def run():
                jvp = make_jvp(F, xa)
                return np.stack([jvp(eye[k])[1] for k in range(d)], axis=1), None
        return run
    if impl == "micrograd":
        Value = _micrograd()
        if mode == "forward":
            raise Unsupported("reverse mode only (no forward-mode AD)")
        rows = [[float(v) for v in r] for r in Wa]

        def run():
            xs = [Value(float(v)) for v in xa]
            outs = []
            for i in range(d):
                s = xs[0] * rows[i][0]
                for k in range(1, d):
                    s = s + xs[k] * rows[i][k]
                outs.append(s * xs[i] + xs[i] ** 3)
            J = np.empty((d, d))
            for i, out in enumerate(outs):
                for v in xs:
                    v.grad = 0
                out.backward()
                J[i] = [v.grad for v in xs]
            return J, None
        return run
    if impl == "numpy":
        def run():
            return Wa * xa[:, None] + np.diag(Wa @ xa + 3 * xa * xa), None
        return run
    raise ValueError(impl)
