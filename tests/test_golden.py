"""The golden files of torch's answers (tests/golden.py): what they hold reads back as it was
recorded, a stale or missing answer fails naming the command that regenerates it, a run without
torch reads the recorded answer, and every committed file is well formed and names only tests
that exist."""

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

import golden

TESTS = Path(__file__).resolve().parent
GOLDEN_FILES = sorted(TESTS.glob("**/golden/*.json"))


@pytest.mark.parametrize("value", [
    None, True, 3, -0.0, 1.5, float("inf"), float("-inf"), "text", [1, (2, 3)], (), {"a": [1]},
    {(0, 1): "tuple key"}, {"__array__": "a key like a tag"}, 1 + 2j,
    np.float32(1.25), np.float64(-0.0), np.int64(7), np.bool_(True),
    np.array([[1.5, -0.0], [np.inf, 2.0]], np.float32), np.arange(6).reshape(2, 3, 1),
    np.array([1 + 2j, -3j], np.complex64), np.array([True, False]), np.zeros((0, 3)),
    np.float32([1 / 3, 1e-40, 3.4028235e38]),
])
def test_answers_read_back_as_recorded(value):
    back = golden.decode(json.loads(json.dumps(golden.encode(value))))
    assert type(back) is type(value)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape
        assert back.tobytes() == value.tobytes()
    elif isinstance(value, float):
        assert math.copysign(1, back) == math.copysign(1, value) and back == value
    else:
        assert back == value


def test_nan_reads_back_as_nan():
    assert math.isnan(golden.decode(json.loads(json.dumps(golden.encode(float("nan"))))))
    back = golden.decode(json.loads(json.dumps(golden.encode(np.array([np.nan, 1.0])))))
    assert np.isnan(back[0]) and back[1] == 1.0


def test_torch_objects_are_refused():
    with pytest.raises(TypeError, match="plain data only, not object"):
        golden.encode(object())


def test_a_last_place_difference_is_not_stale_but_a_change_is():
    recorded = golden.encode({"value": np.float32([1.0, 2.0]), "name": "MulBackward0"})
    assert golden._close(recorded, golden.encode({"value": np.float32([1.0000001, 2.0]),
                                                  "name": "MulBackward0"})) is None
    assert "recorded 1.0, torch now answers 1.5" in golden._close(
        recorded, golden.encode({"value": np.float32([1.5, 2.0]), "name": "MulBackward0"}))
    assert "MulBackward0" in golden._close(
        recorded, golden.encode({"value": np.float32([1.0, 2.0]), "name": "MulBackward1"}))
    assert "2 items" in golden._close([1, 2], [1, 2, 3])


class FakeTorch:
    answer = 1.0


@pytest.fixture
def module(tmp_path, monkeypatch):
    """A test module in a scratch directory, with golden.py's caches of its own."""
    monkeypatch.setattr(golden, "_files", {})
    monkeypatch.setattr(golden, "_pending", {})
    monkeypatch.setattr(golden, "REGENERATE", False)
    path = tmp_path / "test_scratch.py"
    path.write_text("")
    return path


def _write(module, entries):
    path = golden.golden_path(module)
    path.parent.mkdir()
    path.write_text(golden.dump({k: golden.encode(v) for k, v in entries.items()}))


def test_without_torch_the_recorded_answer_stands_in(module, monkeypatch):
    monkeypatch.setattr(golden, "TORCH", None)
    _write(module, {"test_a": (1.5, "x"), "test_a#2": [2], "test_a/sub": None})
    oracle = golden.Oracle(module, "test_a")
    assert oracle(lambda torch: pytest.fail("torch is not installed")) == (1.5, "x")
    assert oracle(lambda torch: None) == [2]
    assert oracle(lambda torch: None, key="sub") is None


def test_without_torch_a_missing_answer_skips_naming_the_command(module, monkeypatch):
    monkeypatch.setattr(golden, "TORCH", None)
    with pytest.raises(pytest.skip.Exception,
                       match=r"no golden answer is recorded for test_b .*"
                             r"GRADCLI_REGEN_GOLDEN=1 pytest .*test_scratch\.py"):
        golden.Oracle(module, "test_b")(lambda torch: 1)


def test_with_torch_a_stale_answer_fails_naming_the_command(module, monkeypatch):
    monkeypatch.setattr(golden, "TORCH", FakeTorch)
    _write(module, {"test_a": 1.0})
    assert golden.Oracle(module, "test_a")(lambda torch: torch.answer) == 1.0
    with pytest.raises(AssertionError, match=r"golden answer of test_a is stale .*recorded 1\.0, "
                                             r"torch now answers 2\.0.*GRADCLI_REGEN_GOLDEN=1"):
        golden.Oracle(module, "test_a")(lambda torch: 2.0)
    with pytest.raises(AssertionError, match=r"no golden answer recorded for test_c"):
        golden.Oracle(module, "test_c")(lambda torch: 2.0)


def test_stable_compares_only_the_run_independent_part(module, monkeypatch):
    monkeypatch.setattr(golden, "TORCH", FakeTorch)
    _write(module, {"test_a": {"value": 1, "warnings": ["once"]}})
    live = {"value": 1, "warnings": []}
    drop = lambda answer: answer["value"]  # noqa: E731
    assert golden.Oracle(module, "test_a")(lambda torch: live, stable=drop) == live
    with pytest.raises(AssertionError, match="stale"):
        golden.Oracle(module, "test_a")(lambda torch: live)


def test_regeneration_merges_the_answers_of_the_run(module, monkeypatch):
    monkeypatch.setattr(golden, "TORCH", FakeTorch)
    monkeypatch.setattr(golden, "REGENERATE", True)
    _write(module, {"test_kept": 1, "test_a": 1})
    assert golden.Oracle(module, "test_a")(lambda torch: (2, np.float32(0.5))) == \
        (2, np.float32(0.5))
    golden.Oracle(module, "test_new")(lambda torch: "new")
    golden.write_pending()
    text = golden.golden_path(module).read_text()
    assert text == ('{\n"test_a": {"__tuple__": [2, {"__scalar__": 0.5, "dtype": "float32"}]},\n'
                    '"test_kept": 1,\n"test_new": "new"\n}\n')


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=[str(p.relative_to(TESTS))
                                                     for p in GOLDEN_FILES])
def test_golden_files_are_sorted_and_name_existing_tests(path):
    """One entry a line, sorted (as regeneration writes it), each the answer of a test function
    of the module beside the golden directory (a renamed test leaves no orphan behind)."""
    text = path.read_text(encoding="utf-8")
    entries = json.loads(text)
    assert entries and golden.dump(entries) == text
    module = path.parent.parent / f"{path.stem}.py"
    functions = {node.name for node in ast.walk(ast.parse(module.read_text(encoding="utf-8")))
                 if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}
    orphans = {key.split("[")[0].split("/")[0].split("#")[0] for key in entries} - functions
    assert not orphans, f"answers of tests {module.name} no longer has: {sorted(orphans)}"
