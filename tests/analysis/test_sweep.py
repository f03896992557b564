"""gradcli/analysis/sweep.py: `--at x=a:b:n` sweeps, their grid or zip, and each point's
bindings."""

import pytest

from gradcli.analysis.evaluate import UsageError
from gradcli.analysis.sweep import parse_sweep, point_bindings, split_bindings, sweep_points


def test_a_sweep_is_n_points_from_a_to_b_ends_included():
    assert parse_sweep("x=-1:1:5") == ("x", [-1.0, -0.5, 0.0, 0.5, 1.0])
    assert parse_sweep(" w = 2 : 3 : 1") == ("w", [2.0])
    assert parse_sweep("x=1e-1:.3:3") == ("x", [0.1, 0.2, 0.3])


@pytest.mark.parametrize("spec", ["x=3", "x=[1,2]", "x=1:2", "x=a:b:3", "x=torch.ones(2)"])
def test_a_plain_binding_is_not_a_sweep(spec):
    assert parse_sweep(spec) is None


@pytest.mark.parametrize("spec, message", [
    ("x=0:1:0", "the number of points must be 1 to 1,000,000"),
    ("x=0:1:1000001", "the number of points must be 1 to 1,000,000"),
    ("1x=0:1:3", "--at expects NAME=VALUE"),
])
def test_bad_sweeps_are_usage_errors(spec, message):
    with pytest.raises(UsageError, match=message):
        parse_sweep(spec)


def test_split_bindings_separates_sweeps_and_refuses_a_name_twice():
    fixed, sweeps = split_bindings(["w=2", "x=0:1:2"])
    assert [(b.name, b.text) for b in fixed] == [("w", "2")]
    assert sweeps == [("x", [0.0, 1.0])]
    assert split_bindings(None) == ([], [])
    with pytest.raises(UsageError, match="--at x is given twice"):
        split_bindings(["x=1", "x=0:1:2"])


def test_the_grid_varies_the_last_name_fastest_and_zip_pairs():
    sweeps = [("x", [0.0, 1.0]), ("w", [5.0, 6.0])]
    assert sweep_points(sweeps) == [{"x": 0.0, "w": 5.0}, {"x": 0.0, "w": 6.0},
                                    {"x": 1.0, "w": 5.0}, {"x": 1.0, "w": 6.0}]
    assert sweep_points(sweeps, zipped=True) == [{"x": 0.0, "w": 5.0}, {"x": 1.0, "w": 6.0}]
    assert sweep_points([]) == [{}]


def test_zip_needs_sweeps_of_one_length_and_the_grid_is_bounded():
    with pytest.raises(UsageError, match=r"--zip pairs sweeps of the same number of points, "
                                         r"not x \(2\), w \(3\)"):
        sweep_points([("x", [0.0, 1.0]), ("w", [1.0, 2.0, 3.0])], zipped=True)
    with pytest.raises(UsageError, match="the sweep grid has 1,001,000 points"):
        sweep_points([("x", [0.0] * 1001), ("w", [0.0] * 1000)])


def test_point_bindings_follow_the_order_of_the_at_names():
    (fixed,), _ = split_bindings(["w=2"])
    bindings = point_bindings({"x": 0.5}, [fixed], order=["w", "x"])
    assert [(b.name, b.text, b.number) for b in bindings] == [("w", "2", None),
                                                             ("x", "0.5", 0.5)]
    assert [b.name for b in point_bindings({"x": 0.5}, [fixed])] == ["x", "w"]
