"""Run one small program against gradcli and against PyTorch and describe what it did: the
result's values, dtype, shape and grad_fn graph, the gradients a weighted backward pass leaves
in the leaves, version counters, warnings and errors.  Test files compare the two descriptions.
"""

import warnings

import numpy as np


def _inputs(lib):
    rng = np.random.default_rng(7)

    def leaf(*shape, low=-2.0, high=2.0):
        data = np.round(rng.uniform(low, high, size=shape), 3)
        return lib.tensor(data.tolist(), requires_grad=True)

    spd = np.round(rng.uniform(-0.5, 0.5, size=(3, 3)), 3) + 3 * np.eye(3)
    batch = np.round(rng.uniform(-0.5, 0.5, size=(2, 3, 3)), 3) + 3 * np.eye(3)
    return {"x": leaf(3, 4), "v": leaf(4), "w": leaf(3), "b": leaf(2, 3, 4), "c": leaf(2, 4, 5),
            "m": leaf(4, 5), "s": leaf(), "u": leaf(2, 3),
            "A": lib.tensor(spd.tolist(), requires_grad=True),
            "B": lib.tensor(batch.tolist(), requires_grad=True)}


def graph(fn, depth=0):
    """A grad_fn and what it leads to, as nested tuples of names."""
    if fn is None:
        return None
    if depth > 8:
        return (fn.name(), "...")
    return (fn.name(), tuple(graph(n, depth + 1) for n, _ in fn.next_functions))


def _version(t):
    return t._version


def describe(obj, lib):
    if isinstance(obj, lib.Tensor):
        return {"value": np.asarray(obj.detach().tolist(), dtype=np.float64)
                if obj.dtype != lib.bool else obj.detach().tolist(),
                "dtype": str(obj.dtype), "shape": tuple(obj.shape),
                "requires_grad": obj.requires_grad, "is_leaf": obj.is_leaf,
                "graph": graph(obj.grad_fn), "version": _version(obj)}
    if isinstance(obj, (list, tuple)):
        return [describe(o, lib) for o in obj]
    if isinstance(obj, float):
        return np.float64(obj)
    return obj


def _outputs(obj, lib):
    if isinstance(obj, lib.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _outputs(o, lib)]
    return []


def run(lib, program, backward=True, inputs=None):
    """Execute program (its last line is the result) with the leaves of `_inputs` (or of
    `inputs(lib)`: names to values) in scope."""
    env = (inputs or _inputs)(lib)
    given = set(env)
    env["torch"] = lib
    lines = program.strip().split("\n")
    report = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec("\n".join(lines[:-1]), env)
            result = eval(lines[-1], env)
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            report["error"] = (type(e).__name__, str(e))
            result = None
        report["warnings"] = [str(w.message) for w in caught]
    report["result"] = describe(result, lib)
    outs = [t for t in _outputs(result, lib) if t.requires_grad and t.numel()]
    if backward and outs and "error" not in report:
        total = None
        for t in outs:
            weight = lib.tensor(np.linspace(-1.0, 1.5, t.numel()).reshape(tuple(t.shape))
                                .tolist(), dtype=t.dtype)
            term = (t * weight).sum()
            total = term if total is None else total + term
        total.backward()
    report["grads"] = {name: (None if t.grad is None else
                              np.asarray(t.grad.tolist(), dtype=np.float64))
                       for name, t in env.items() if isinstance(t, lib.Tensor) and t.is_leaf
                       and t.requires_grad}
    report["env"] = {name: describe(t, lib) for name, t in env.items()
                     if isinstance(t, lib.Tensor) and name not in given}
    return report


def assert_same(ours, theirs, path="report"):
    """Equal structure; arrays close (float32 arithmetic may differ in the last bits)."""
    if isinstance(theirs, np.ndarray) or isinstance(ours, np.ndarray):
        a, b = np.asarray(ours), np.asarray(theirs)
        assert a.shape == b.shape, f"{path}: shape {a.shape} != {b.shape}"
        assert np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True), f"{path}: {a} != {b}"
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and set(ours) == set(theirs), \
            f"{path}: keys {sorted(ours)} != {sorted(theirs)}"
        for k in theirs:
            assert_same(ours[k], theirs[k], f"{path}.{k}")
    elif isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), \
            f"{path}: {ours!r} != {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{path}[{i}]")
    elif isinstance(theirs, np.floating):
        assert np.isclose(ours, theirs, rtol=1e-4, atol=1e-5), f"{path}: {ours} != {theirs}"
    else:
        assert ours == theirs, f"{path}: {ours!r} != {theirs!r}"


def assert_matches(ours, theirs, path, rtol, atol=1e-12):
    """Two reports (dicts, lists and tuples of values and arrays) of the same structure, equal
    but for arrays of the same shape within rtol (and atol)."""
    if isinstance(theirs, np.ndarray) or isinstance(ours, np.ndarray):
        assert isinstance(ours, np.ndarray) and isinstance(theirs, np.ndarray), \
            f"{path}: {ours!r} != {theirs!r}"
        assert ours.shape == theirs.shape, f"{path}: shape {ours.shape} != {theirs.shape}"
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(theirs, dict):
        assert set(ours) == set(theirs), f"{path}: keys {sorted(ours)} != {sorted(theirs)}"
        for k in theirs:
            assert_matches(ours[k], theirs[k], f"{path}.{k}", rtol, atol)
    elif isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), \
            f"{path}: {ours!r} != {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_matches(a, b, f"{path}[{i}]", rtol, atol)
    else:
        assert ours == theirs, f"{path}: {ours!r} != {theirs!r}"
