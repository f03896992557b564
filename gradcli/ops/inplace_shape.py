"""In-place shape methods: squeeze_, unsqueeze_, transpose_ and t_ change the tensor's shape
(its array becomes a view of the same memory with the new shape), bump its version counter and,
when autograd records, make their own node its grad_fn, as PyTorch's do (SqueezeBackward3/4/5,
UnsqueezeBackward1, TransposeBackward1, TBackward1).  Methods only: PyTorch has no torch.t_."""

from ..engine import messages
from ..engine.grad_mode import GradMode
from ..engine.tensor import Tensor
from .registry import OPS, Op, Plain, Sample, register
from .shape import _squeeze, _t, _transpose, _unsqueeze
from .views import take_result

register(Op(
    "_squeeze_inplace", _squeeze, "self: _unsqueeze_to(grad, self_shape, None)",
    grad_fn="SqueezeBackward3", jvp="linear", dtype="same", kind="shape", method=False,
    public=False, doc="squeeze_(): every size-1 dimension removed in place",
    samples=[Sample((2, 1, 3)), Sample((1, 1))]))
# (squeeze_(dim) is "_squeeze_inplace_dim", SqueezeBackward4, declared beside squeeze)
register(Op(
    "_squeeze_inplace_dims", _squeeze, "self: _unsqueeze_to(grad, self_shape, dim)",
    attrs=("dim",),
    grad_fn="SqueezeBackward5", jvp="linear", dtype="same", kind="shape", method=False,
    public=False, doc="squeeze_(dims): the size-1 dimensions among dims removed in place",
    samples=[Sample((1, 3, 1), attrs={"dim": (0, 2)})]))
register(Op(
    "_unsqueeze_inplace", _unsqueeze, "self: grad.squeeze(dim)", attrs=("dim",),
    grad_fn="UnsqueezeBackward1", jvp="linear", dtype="same", kind="shape", method=False,
    public=False, doc="unsqueeze_(dim): a size-1 dimension inserted in place",
    samples=[Sample((3,), attrs={"dim": 0}), Sample((2, 3), attrs={"dim": -1})]))
register(Op(
    "_transpose_inplace", _transpose, "self: grad.transpose(dim0, dim1)",
    attrs=("dim0", "dim1"), grad_fn="TransposeBackward1", jvp="linear", dtype="same",
    kind="shape", method=False, public=False, doc="transpose_(dim0, dim1) in place",
    samples=[Sample((2, 3), attrs={"dim0": 0, "dim1": 1}),
             Sample((2, 3, 4), attrs={"dim0": -1, "dim1": 0})]))
register(Op(
    "_t_inplace", _t, "self: grad.t()", grad_fn="TBackward1", jvp="linear", dtype="same",
    kind="shape", method=False, public=False, doc="t_() in place",
    samples=[Sample((2, 3)), Sample((3,))]))


def _in_place(self, name, attrs):
    """Run the op on self's history, then make self its result: same memory, new shape."""
    recording = GradMode.enabled and self.requires_grad_flag
    if recording:
        base = self._base
        if self.grad_fn is None:
            raise RuntimeError(messages.LEAF_INPLACE)
        if base is not None and base.grad_fn is None and base.requires_grad_flag:
            raise RuntimeError(messages.VIEW_OF_LEAF_INPLACE)
        source = Tensor._make(self._data, self.grad_fn, self._output_nr, True)
        source._fw = self._fw
        result = OPS[name].apply((source,), attrs)
    else:
        previous = GradMode.enabled
        GradMode.enabled = False
        try:
            result = OPS[name].apply((self,), attrs)
        finally:
            GradMode.enabled = previous
    self._data = result._data
    take_result(self, result, recording)
    return self


def squeeze_(self, dim=None):
    if dim is None:
        return _in_place(self, "_squeeze_inplace", ())
    if isinstance(dim, (list, tuple)):
        return _in_place(self, "_squeeze_inplace_dims", (tuple(dim),))
    return _in_place(self, "_squeeze_inplace_dim", (dim,))


def unsqueeze_(self, dim):
    return _in_place(self, "_unsqueeze_inplace", (dim,))


def transpose_(self, dim0, dim1):
    return _in_place(self, "_transpose_inplace", (dim0, dim1))


def t_(self):
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._data.ndim}D")
    return _in_place(self, "_t_inplace", ())


for _name, _fn, _signature, _via, _doc in [
        ("squeeze_", squeeze_, "squeeze_(self, dim=None)",
         ("_squeeze_inplace", "_squeeze_inplace_dim", "_squeeze_inplace_dims"),
         "squeeze in place: the size-1 dimensions (all, dim, or a tuple of dims) removed"),
        ("unsqueeze_", unsqueeze_, "unsqueeze_(self, dim)", ("_unsqueeze_inplace",),
         "unsqueeze in place: a size-1 dimension inserted at dim"),
        ("transpose_", transpose_, "transpose_(self, dim0, dim1)", ("_transpose_inplace",),
         "transpose in place: dimensions dim0 and dim1 swapped"),
        ("t_", t_, "t_(self)", ("_t_inplace",), "t in place: a matrix transposed")]:
    _fn.__doc__ = _doc
    _entry = register(Plain(_name, _fn, _doc, kind="shape", signature=_signature, via=_via))
    _entry.method = _fn       # a method only, as in PyTorch (no torch.squeeze_)
    _entry.function = False

