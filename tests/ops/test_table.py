"""Meta-tests of the op table: every declaration is complete, and everything derived from it
(public names, Tensor methods, in-place variants, operators) is in place."""

import re
import subprocess
import sys

import numpy as np
import pytest

import gradcli
from gradcli.engine.tensor import Tensor
from gradcli.ops import ALIASES, INPLACE_OPERATORS, OPERATORS, OPS
from gradcli.ops.registry import Op, Overload

from checks import (as_input, call, cases, differentiable_positions, ids, overload_of,
                    sample_arrays, table_ops)

ENTRIES = [(name, entry) for name, entry in OPS.items() if isinstance(entry, (Op, Overload))]
ALL_OPS = table_ops()
DIFFERENTIABLE = [op for op in ALL_OPS if op.differentiable]
GRAD_FN_NAME = re.compile(r"[A-Z]\w*Backward\d+(_copy)?")
NODES_WITHOUT_BACKWARD = {"CopySlices", "CopyBackwards"}  # PyTorch's node for in-place writes into a view


def _names(entries):
    return [e[0] if isinstance(e, tuple) else e.name for e in entries]


@pytest.mark.parametrize("name, entry", ENTRIES, ids=_names(ENTRIES))
def test_every_entry_has_a_one_line_doc(name, entry):
    assert entry.doc.strip(), f"{name} has no doc"
    assert "\n" not in entry.doc.strip(), f"{name}'s doc is more than one line"


@pytest.mark.parametrize("op", DIFFERENTIABLE, ids=_names(DIFFERENTIABLE))
def test_every_differentiable_op_declares_a_formula(op):
    assert op.formula.strip(), f"{op.name} has no derivative formula"


@pytest.mark.parametrize("op", DIFFERENTIABLE, ids=_names(DIFFERENTIABLE))
def test_every_differentiable_op_has_samples(op):
    assert op.samples, f"{op.name} has no samples for the generated gradient checks"


@pytest.mark.parametrize("op", DIFFERENTIABLE, ids=_names(DIFFERENTIABLE))
def test_every_differentiable_op_declares_vjp_and_jvp(op):
    if op.derived:  # PyTorch's composite ops: the derivative is that of the ops they run
        assert hasattr(op, "compose"), f"{op.name} derives its derivative but composes nothing"
        return
    assert op.vjps and any(e is not None for e in op.vjps), f"{op.name} declares no VJP"
    if op.per_input and not op.variadic:
        assert len(op.vjps) == len(op.inputs), (
            f"{op.name} declares {len(op.vjps)} VJPs for {len(op.inputs)} inputs")
    assert op.jvp in ("elementwise", "linear") or op.jvps, f"{op.name} declares no JVP"
    if op.jvps and len(op.jvps) > 1:
        assert len(op.jvps) == len(op.inputs), (
            f"{op.name} declares {len(op.jvps)} JVPs for {len(op.inputs)} inputs")


@pytest.mark.parametrize("op", ALL_OPS, ids=_names(ALL_OPS))
def test_grad_fn_names_look_like_pytorch_nodes(op):
    name = op.grad_fn_name
    assert GRAD_FN_NAME.fullmatch(name) or name in NODES_WITHOUT_BACKWARD, name


@pytest.mark.parametrize("op", DIFFERENTIABLE, ids=_names(DIFFERENTIABLE))
def test_samples_give_every_differentiable_input_a_shape(op):
    for sample in op.samples:
        positions = differentiable_positions(op, sample)
        assert positions, f"{op.name} sample {sample!r} has no differentiable input"
        if not op.variadic:
            given = max([len(sample.shapes)] + [i + 1 for i in sample.values])
            assert given == len(op.inputs), (
                f"{op.name} sample {sample!r} gives {given} inputs, the op takes "
                f"{len(op.inputs)}")
        unknown = set(sample.attrs) - set(op.attr_names)
        assert not unknown, f"{op.name} sample {sample!r}: unknown attributes {unknown}"
        assert sample.low < sample.high


ELEMENTWISE = [op for op in DIFFERENTIABLE if op.kind in ("elementwise", "binary")]


@pytest.mark.parametrize("op", ELEMENTWISE, ids=_names(ELEMENTWISE))
def test_elementwise_samples_cover_scalar_vector_matrix_and_broadcast(op):
    tensor_shapes = [[s for i, s in enumerate(sample.shapes) if s is not None
                      and i not in sample.values] for sample in op.samples]
    ranks = {len(shapes[0]) for shapes in tensor_shapes if shapes}
    assert {0, 1, 2} <= ranks, f"{op.name} samples have tensor ranks {sorted(ranks)}"
    if any(len(shapes) >= 2 for shapes in tensor_shapes):
        assert any(len(set(shapes)) > 1 for shapes in tensor_shapes), (
            f"{op.name} has no broadcasting sample")


PUBLIC = [(name, entry) for name, entry in OPS.items() if entry.public and entry.function]


@pytest.mark.parametrize("name, entry", PUBLIC, ids=_names(PUBLIC))
def test_public_names_are_reachable_from_the_package(name, entry):
    assert getattr(gradcli, name, None) is entry


@pytest.mark.parametrize("name, target", sorted(ALIASES.items()), ids=sorted(ALIASES))
def test_aliases_are_reachable_and_point_to_their_op(name, target):
    assert target in OPS, f"alias {name} points to {target}, which is not in the table"
    assert getattr(gradcli, name, None) is OPS[target]
    if OPS[target].method:
        assert hasattr(Tensor, name)


METHODS = [(name, entry) for name, entry in OPS.items() if entry.method]


@pytest.mark.parametrize("name, entry", METHODS, ids=_names(METHODS))
def test_declared_methods_exist_on_tensor(name, entry):
    assert callable(getattr(Tensor, name, None)), f"Tensor.{name} is missing"


INPLACE = [(name, entry) for name, entry in OPS.items() if entry.inplace and entry.public]


@pytest.mark.parametrize("name, entry", INPLACE, ids=_names(INPLACE))
def test_declared_inplace_variants_exist_on_tensor(name, entry):
    assert callable(getattr(Tensor, name + "_", None)), f"Tensor.{name}_ is missing"


def _inplace_name(op):
    return (op.name if op.public else overload_of(op).name) + "_"


SAME_SHAPE_INPLACE = cases(lambda op: op.inplace and not op.variadic
                           and (op.public or overload_of(op) is not None))


def _inplace_case(op, sample):
    args = [as_input(gradcli, a, gradcli.float64) for a in sample_arrays(op, sample)]
    out = call(op, args, sample.attrs)
    if not isinstance(args[0], Tensor) or tuple(out.shape) != tuple(args[0].shape) \
            or out.dtype != args[0].dtype:
        pytest.skip("the result cannot be written into the first input (shape or dtype)")
    return args, out


@pytest.mark.parametrize("op, sample", SAME_SHAPE_INPLACE, ids=ids(SAME_SHAPE_INPLACE))
def test_inplace_variant_writes_the_out_of_place_result(op, sample):
    args, expected = _inplace_case(op, sample)
    x = args[0].clone()
    result = getattr(x, _inplace_name(op))(*args[1:], **sample.attrs)
    assert result is x
    assert x._counter[0] == 1
    np.testing.assert_array_equal(x._data, expected._data)


@pytest.mark.parametrize("op, sample", SAME_SHAPE_INPLACE, ids=ids(SAME_SHAPE_INPLACE))
def test_inplace_variant_records_the_op_node(op, sample):
    args, expected = _inplace_case(op, sample)
    leaf = args[0].detach().requires_grad_()
    x = leaf * 1.0
    getattr(x, _inplace_name(op))(*args[1:], **sample.attrs)
    # (an op whose in-place variant PyTorch records with a node of its own: acosh_'s
    # AcoshBackward1, which has no derivative)
    target = op.inplace if isinstance(op.inplace, Op) else op
    assert x.grad_fn.name() == target.grad_fn_name


@pytest.mark.parametrize("dunder", sorted(OPERATORS), ids=sorted(OPERATORS))
def test_operators_map_to_table_ops(dunder):
    name, reflected = OPERATORS[dunder]
    assert name in OPS, f"{dunder} maps to {name}, which is not in the table"
    assert callable(getattr(Tensor, dunder, None)), f"Tensor.{dunder} is missing"


def _operator_args(dunder, name):
    dtype = gradcli.bool if name.startswith("bitwise") else gradcli.float64
    x = gradcli.tensor([0.5, 1.0, 1.5], dtype=dtype, requires_grad=dtype == gradcli.float64)
    y = gradcli.tensor([1.25, 0.75, 2.0], dtype=dtype)
    if name == "getitem":
        return x, (1,)
    if name == "matmul":
        return x, (y,)
    n = len(OPS[name].inputs) if isinstance(OPS[name], Op) else 2
    return x, (y,) if n >= 2 else ()


@pytest.mark.parametrize("dunder", sorted(OPERATORS), ids=sorted(OPERATORS))
def test_operators_compute_what_their_op_computes(dunder):
    name, reflected = OPERATORS[dunder]
    if name not in OPS:
        pytest.fail(f"{dunder} maps to {name}, which is not in the table")
    x, rest = _operator_args(dunder, name)
    got = getattr(x, dunder)(*rest)
    expected = OPS[name](*rest, x) if reflected else OPS[name](x, *rest)
    np.testing.assert_array_equal(got._data, expected._data)
    assert got.dtype == expected.dtype
    got_fn, expected_fn = got.grad_fn, expected.grad_fn
    assert (got_fn and got_fn.name()) == (expected_fn and expected_fn.name())


@pytest.mark.parametrize("dunder", sorted(INPLACE_OPERATORS), ids=sorted(INPLACE_OPERATORS))
def test_inplace_operators_map_to_inplace_methods(dunder):
    """`t += u` is t.add_(u) (but for an operand add_ refuses: NotImplemented, so that Python
    tries `t + u`, as PyTorch's operators do)."""
    import gradcli
    method = INPLACE_OPERATORS[dunder]
    assert method[:-1] in OPS, f"{dunder} maps to {method}, whose op is not in the table"
    dtype = gradcli.long if method.startswith("bitwise") else gradcli.float64
    t, expected = gradcli.tensor([3, 6], dtype=dtype), gradcli.tensor([3, 6], dtype=dtype)
    other = gradcli.tensor([2, 5], dtype=dtype)
    assert getattr(t, dunder)(other) is t
    assert getattr(expected, method)(other) is expected
    assert t.tolist() == expected.tolist() and t._version == expected._version == 1
    assert getattr(t, dunder)("a") is NotImplemented


def test_every_overload_member_is_an_op_with_its_own_grad_fn():
    for name, entry in ENTRIES:
        if isinstance(entry, Overload):
            assert entry.ops and all(isinstance(m, Op) for m in entry.ops), name



def test_methods_and_ops_are_made_at_first_use():
    """Importing the package makes no Tensor method and prepares no op (a one-shot eval would
    pay for all of them); the first use makes one, which then sits on Tensor itself."""
    code = ("import gradcli\nfrom gradcli.engine.tensor import Tensor\n"
            "from gradcli.ops import OPS, _FirstUse\n"
            "made = lambda n: not isinstance(Tensor.__dict__[n], _FirstUse)\n"
            "prepared = lambda n: '_declared' not in vars(OPS[n])\n"
            "before = (made('sub'), made('__rtruediv__'), prepared('sub'))\n"
            "x = gradcli.tensor(2.)\n"
            "y = 1 / x.sub(1)\n"
            "print(before, made('sub'), made('__rtruediv__'), prepared('sub'),\n"
            "      Tensor.sub is Tensor.__dict__['sub'], y.grad_fn is None)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.stdout.split() == ["(False,", "False,", "False)", "True", "True", "True",
                                     "True", "True"], result.stderr


@pytest.mark.parametrize("op", ALL_OPS, ids=[op.name for op in ALL_OPS])
def test_every_op_prepares(op):
    """What prepare() makes at first use holds for every declaration: its VJPs' and JVPs'
    parameters name inputs, attributes or the result, and its node class is named."""
    op.prepare()
    assert "_declared" not in vars(op)
    # (einsum names its node after the last node of PyTorch's decomposition of the call)
    assert op.node_cls.__name__ == op.grad_fn_name or op.node_cls.__name__ in getattr(
        op, "nodes", ())
    assert all(kinds is not None for _, kinds in filter(None, op.vjps))
