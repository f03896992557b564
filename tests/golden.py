"""PyTorch's answers recorded as golden files, so that a run without torch checks them too.

An oracle test asks for torch's answer through the `oracle` fixture:

    def test_sin_matches_torch(oracle):
        expected = oracle(lambda torch: torch.tensor([1.]).sin().tolist())
        assert gradcli.tensor([1.]).sin().tolist() == expected

`compute(torch)` returns plain data (None, bools, numbers, strings, lists, tuples, dicts, NumPy
arrays and scalars), never a torch object.  The answer is stored under the test's name in
`golden/<module stem>.json` beside the test module, one entry a line, sorted.

- torch installed: `compute` runs, the test compares gradcli against this live answer, and the
  answer must still be the golden one (within a last-place tolerance for floats): a stale or a
  missing entry fails, naming the command that regenerates it.
- torch absent: the golden answer stands in for it; `compute` never runs.
- `GRADCLI_REGEN_GOLDEN=1 pytest tests/...` (with torch): the answers of the tests that ran
  replace their entries, written when the session ends (delete the file first to drop the
  answers of cases that no longer exist).
"""

import importlib.util
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

HAVE_TORCH = importlib.util.find_spec("torch") is not None
_UNRESOLVED = object()
TORCH = _UNRESOLVED  # torch, imported on first use (None when it is not installed)


def torch_module():
    """torch, or None without it (imported when an oracle test first asks: a run of tests
    that need no oracle does not pay for its import)."""
    global TORCH
    if TORCH is _UNRESOLVED:
        try:
            import torch
        except ImportError:
            torch = None
        TORCH = torch
    return TORCH

REGENERATE = os.environ.get("GRADCLI_REGEN_GOLDEN", "") not in ("", "0")
TESTS = Path(__file__).resolve().parent
FLOAT_RTOL, FLOAT_ATOL = 1e-5, 1e-7  # how far a live float may sit from the recorded one

_files = {}     # golden path -> {key: encoded answer}, as read
_pending = {}   # golden path -> {key: encoded answer}, answers of this run (regeneration)


def golden_path(module_path):
    module_path = Path(module_path)
    return module_path.parent / "golden" / f"{module_path.stem}.json"


def _shown(path):
    """path from the checkout's root (where the commands run)."""
    try:
        return Path(path).resolve().relative_to(TESTS.parent)
    except ValueError:
        return path


def regen_command(module_path):
    return f"GRADCLI_REGEN_GOLDEN=1 pytest {_shown(module_path)}"


# ------------------------------------------------------------------ encoding

def encode(value):
    """Plain data as JSON-able data; NumPy arrays, tuples, complex numbers and dicts with keys
    other than strings are tagged so that `decode` gives them back."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "c":
            return {"__array__": encode([[v.real, v.imag] for v in value.reshape(-1).tolist()]),
                    "shape": list(value.shape), "dtype": value.dtype.name}
        return {"__array__": [encode(v) for v in value.reshape(-1).tolist()],
                "shape": list(value.shape), "dtype": value.dtype.name}
    if isinstance(value, np.generic):
        return {"__scalar__": encode(value.item()), "dtype": value.dtype.name}
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, complex):
        return {"__complex__": [encode(value.real), encode(value.imag)]}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in value):
            return {k: encode(v) for k, v in value.items()}
        return {"__dict__": [[encode(k), encode(v)] for k, v in value.items()]}
    raise TypeError(f"an oracle answer holds plain data only, not {type(value).__name__}")


def decode(data):
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "__array__" in data:
        flat = [decode(v) for v in data["__array__"]]
        if data["dtype"].startswith("complex"):
            flat = [complex(re, im) for re, im in flat]
        return np.array(flat, dtype=data["dtype"]).reshape(data["shape"])
    if "__scalar__" in data:
        return np.dtype(data["dtype"]).type(decode(data["__scalar__"]))
    if "__float__" in data:
        return float(data["__float__"])
    if "__complex__" in data:
        return complex(*(decode(v) for v in data["__complex__"]))
    if "__tuple__" in data:
        return tuple(decode(v) for v in data["__tuple__"])
    if "__dict__" in data:
        return {_hashable(decode(k)): decode(v) for k, v in data["__dict__"]}
    return {k: decode(v) for k, v in data.items()}


def _hashable(key):
    return tuple(_hashable(k) for k in key) if isinstance(key, (list, tuple)) else key


def _close(recorded, live, path="answer"):
    """Where the encoded live answer departs from the recorded one (None: it does not)."""
    if isinstance(recorded, float) and isinstance(live, float) and not isinstance(live, bool):
        return None if math.isclose(recorded, live, rel_tol=FLOAT_RTOL, abs_tol=FLOAT_ATOL) \
            else f"{path}: recorded {recorded!r}, torch now answers {live!r}"
    if type(recorded) is not type(live):
        if isinstance(recorded, (int, float)) and isinstance(live, (int, float)) \
                and not isinstance(recorded, bool) and not isinstance(live, bool):
            return _close(float(recorded), float(live), path)
        return f"{path}: recorded {recorded!r}, torch now answers {live!r}"
    if isinstance(live, dict):
        if set(live) != set(recorded):
            return f"{path}: recorded keys {sorted(recorded)}, torch now {sorted(live)}"
        for k in live:
            why = _close(recorded[k], live[k], f"{path}.{k}")
            if why:
                return why
        return None
    if isinstance(live, list):
        if len(live) != len(recorded):
            return f"{path}: recorded {len(recorded)} items, torch now answers {len(live)}"
        for i, (a, b) in enumerate(zip(recorded, live)):
            why = _close(a, b, f"{path}[{i}]")
            if why:
                return why
        return None
    return None if recorded == live else f"{path}: recorded {recorded!r}, torch now answers {live!r}"


# ------------------------------------------------------------------ files

def _read(path):
    if path not in _files:
        _files[path] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return _files[path]


def dump(entries):
    """One entry a line, sorted by key: a changed answer is a one-line diff."""
    lines = [f"{json.dumps(key)}: {json.dumps(entries[key], ensure_ascii=False)}"
             for key in sorted(entries)]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write_pending():
    """Merge this run's answers into their golden files (regeneration)."""
    for path, answers in sorted(_pending.items()):
        entries = dict(_read(path))
        entries.update(answers)
        path.parent.mkdir(exist_ok=True)
        path.write_text(dump(entries), encoding="utf-8")
    _pending.clear()


# ------------------------------------------------------------------ the answer

class Oracle:
    """torch's answers for one test: live (and checked against the golden file) with torch,
    recorded without it."""

    def __init__(self, module_path, test_name):
        self.module_path = Path(module_path)
        self.path = golden_path(module_path)
        self.test_name = test_name
        self.calls = 0

    @property
    def command(self):
        return regen_command(self.module_path)

    @property
    def live(self):
        return torch_module() is not None

    def key(self, key=None):
        """The test's name, then `/key` for a named answer or `#n` for its n-th unnamed one."""
        self.calls += 1
        if key is not None:
            return f"{self.test_name}/{key}"
        return self.test_name + ("" if self.calls == 1 else f"#{self.calls}")

    def __call__(self, compute, key=None, stable=None):
        """torch's answer, `compute(torch)`: live with torch, else the recorded one.  `stable`
        maps an answer to the part that must not change between runs (the rest, such as the
        warnings PyTorch gives once per process, depends on what ran before)."""
        full = self.key(key)
        command = regen_command(self.module_path)
        torch = torch_module()
        if torch is None:
            entries = _read(self.path)
            if full not in entries:
                pytest.skip(f"torch is not installed and no golden answer is recorded for "
                            f"{full} (record it with torch: {command})")
            return decode(entries[full])
        if REGENERATE and _pending.get(self.path, {}).get(full) is not None:
            raise AssertionError(f"two oracle answers share the key {full!r}")
        live = encode(compute(torch))
        live = json.loads(json.dumps(live))  # as it would read back from the file
        if REGENERATE:
            _pending.setdefault(self.path, {})[full] = live
            return decode(live)
        entries = _read(self.path)
        if full not in entries:
            raise AssertionError(f"no golden answer recorded for {full} in "
                                 f"{_shown(self.path)}: record it with "
                                 f"{command}")
        if stable is None:
            why = _close(entries[full], live)
        else:
            why = _close(encode(stable(decode(entries[full]))), encode(stable(decode(live))))
        if why:
            raise AssertionError(f"the golden answer of {full} is stale ({why}): "
                                 f"regenerate it with {command}")
        return decode(live)


def needs_torch(reason):
    """For the tests no golden answer can stand in for: skipped without torch, saying why."""
    return pytest.mark.skipif(not HAVE_TORCH, reason=f"needs torch: {reason}")
