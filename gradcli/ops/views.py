"""In-place writes into a view of a tensor that is part of a graph: PyTorch's `rebase_history`.

After `v = y[:2]; v.mul_(w)`, PyTorch gives the base `y` a `CopySlices` node that wraps the
in-place op's node (its edges: y's previous history, then the op's other inputs), and the view `v`
an `AsStridedBackward0` node on top of the base's new history.  Gradients flowing into y then
pass through the op's backward for the written region only, and the rest of y's gradient flows
on unchanged.

A view here shares its NumPy memory with its base; the region it covers is the flat (C-order)
positions of the view's elements in the base, found from validated element strides
(gradcli.engine.storage.positions; a view whose data was replaced is read as PyTorch reads it).
"""

import re

import numpy as np

from ..engine import messages
from ..engine.grad_mode import GradMode
from ..engine.graph import Node, gradient_edge
from ..engine.storage import _offsets, positions
from ..engine.tensor import Tensor
from .derivatives import helper
from .registry import OPS, Op, Sample, register


_GRAD_FN_SLOT = Tensor.__dict__["grad_fn"]


def view_op_name(node):
    """The op a view's node is the backward of, as PyTorch's view errors name it (`Unbind`)."""
    return re.sub(r"Backward\d*$", "", type(node).__name__)


class StaleView(Tensor):
    """A view made in no_grad mode, or an output of a function that returns several views
    (unbind, split) or a view of one, whose base (or another view of it) has been written in
    place since: PyTorch refuses to tell its grad_fn (VariableHooks::grad_fn and
    handle_view_on_rebase), so reading it, is_leaf, or using the view in a recorded op raises;
    repr shows `grad_fn=<Invalid>`.  gradcli.ops.views.regenerate turns such views into this
    class."""

    _torch_name = "torch.Tensor"

    __slots__ = ()

    @property
    def grad_fn(self):
        raise self.stale_error()

    def stale_error(self):
        if self._multi_output_view and not self._no_grad_view:
            fn = _GRAD_FN_SLOT.__get__(self)
            return RuntimeError(messages.MULTI_OUTPUT_VIEW_STALE.format(
                nr=self._output_nr, fn=view_op_name(fn)))
        return RuntimeError(messages.NO_GRAD_VIEW_STALE)

    @grad_fn.setter
    def grad_fn(self, value):
        _GRAD_FN_SLOT.__set__(self, value)


StaleView.__name__ = StaleView.__qualname__ = "Tensor"



def _gather(a, pos):
    return np.ravel(a)[pos]


def _scatter(g, pos, base_shape):
    out = np.zeros(int(np.prod(base_shape)), g.dtype)
    np.add.at(out, pos.ravel(), np.ravel(g))
    return out.reshape(base_shape)


def _affine(pos):
    """(offset, strides) of flat positions that are those of a strided view (element units),
    else None (an empty or overlapping view, or no strided layout)."""
    if pos.size == 0:
        return None
    offset = int(pos.flat[0])
    strides = []
    for axis, n in enumerate(pos.shape):
        if n > 1:
            step = [0] * pos.ndim
            step[axis] = 1
            strides.append(int(pos[tuple(step)]) - offset)
        else:
            strides.append(0)
    if not np.array_equal(offset + _offsets(pos.shape, strides), pos):
        return None
    if np.unique(pos.ravel()).size != pos.size:
        return None
    return offset, tuple(strides)


def strided_view(t, pos, geometry):
    """t.as_strided(...) as a view of t (t C-contiguous): the elements at flat positions pos,
    which geometry = _affine(pos) describes; its node is AsStridedBackward0."""
    from .registry import _mark_view
    offset, strides = geometry
    view = OPS["as_strided"](t, pos)
    flat = t._data.reshape(-1)
    view._data = np.lib.stride_tricks.as_strided(
        flat[offset:], pos.shape, tuple(s * flat.itemsize for s in strides))
    _mark_view(view, t)
    return view


@helper(shows="as_strided_backward(grad, positions, self_shape)")
def _as_strided_backward(grad, pos, self_shape):
    """PyTorch's as_strided_backward: a scatter of grad into zeros of the input's shape.  In
    a create_graph backward (of a view without overlapping elements) its recorded steps:
    storage = zeros; storage.as_strided(the view's geometry).copy_(grad) (CopySlices); the
    result storage.as_strided(the input's geometry) (AsStridedBackward0)."""
    geometry = _affine(pos) if GradMode.enabled else None
    if geometry is None:
        return OPS["as_strided_scatter"](grad, pos, self_shape)
    n = int(np.prod(self_shape, dtype=np.int64))
    storage = Tensor._make(np.zeros(n, grad._data.dtype), None, 0, False)
    strided_view(storage, pos.reshape(-1).reshape(pos.shape), geometry).copy_(grad)
    whole = np.arange(n, dtype=np.int64).reshape(self_shape)
    return strided_view(storage, whole, _affine(whole) if n else None) if n else \
        OPS["as_strided_scatter"](grad, pos, self_shape)


register(Op(
    "as_strided", _gather,
    "self: _as_strided_backward(grad, positions, self_shape)",
    attrs=("positions",), grad_fn="AsStridedBackward0", jvp="linear", dtype="same",
    kind="shape", method=False, function=False, public=False,
    doc="the elements of self at the flat positions of a view (a view's history after an "
        "in-place write)",
    samples=[Sample((2, 3), attrs={"positions": np.array([[0, 1], [3, 4]])}),
             Sample((4,), attrs={"positions": np.array([3, 1])})]))

def _saved_geometry(i):
    """AsStridedBackward0's `_saved_size`, `_saved_stride`, `_saved_storage_offset` (i = 0, 1,
    2): the view's geometry in its base (the base taken as contiguous)."""
    def read(node):
        pos = node._attrs[0]
        if i == 0:
            return tuple(pos.shape)
        geometry = _affine(pos) if pos.size else (0, (0,) * pos.ndim)
        if geometry is None:  # (an overlapping view: its first position, strides from it)
            flat = pos.reshape(-1)
            geometry = (int(flat[0]), tuple(0 for _ in pos.shape))
        return geometry[1] if i == 1 else geometry[0]
    return read


register(Op(
    "as_strided_scatter", _scatter,
    "self: as_strided(grad, positions)",
    attrs=("positions", "base_shape"), grad_fn="AsStridedScatterBackward0", jvp="linear",
    dtype="same", kind="shape", method=False, function=False, public=False,
    doc="zeros of base_shape with self added at the flat positions",
    samples=[Sample((2, 2), attrs={"positions": np.array([[0, 1], [3, 4]]),
                                   "base_shape": (2, 3)})]))


OPS["as_strided"].hidden_saved = ("positions", "self_sym_sizes")
OPS["as_strided"].extra_saved = {"_saved_size": _saved_geometry(0),
                                 "_saved_stride": _saved_geometry(1),
                                 "_saved_storage_offset": _saved_geometry(2)}


class CopySlices(Node):
    """The base's node after an in-place op on one of its views: runs the op's backward on the
    view's region of the gradient and passes the rest through."""

    __slots__ = ("fn", "positions", "base_shape", "region", "source")

    def __init__(self, base_edge, fn, positions, base_shape):
        Node.__init__(self)
        self.fn, self.positions, self.base_shape = fn, positions, base_shape
        self.next_functions = (base_edge,) + tuple(fn.next_functions[1:])
        # the base's elements the view covers, and where in the view each one is
        flat = positions.ravel()
        region = np.zeros(int(np.prod(base_shape)), bool)
        region[flat] = True
        source = np.zeros(region.size, np.int64)
        source[flat] = np.arange(flat.size)
        self.region = Tensor._make(region.reshape(base_shape), None, 0, False)
        self.source = Tensor._make(source.reshape(base_shape), None, 0, False)

    def name(self):
        return "torch::autograd::CopySlices"

    def apply(self, grads):
        # PyTorch: result = grad.clone(); result[region] = fn's gradient for its self input
        # (copied, not added: the region's values, signed zeros included, are fn's own)
        from . import where
        g = grads[0]
        if GradMode.enabled and g is not None:  # (create_graph: PyTorch's steps, recorded)
            geometry = _affine(self.positions)
            if geometry is not None:
                return self._apply_recorded(g, geometry)
        inner = self.fn.apply([OPS["as_strided"](g, self.positions)])
        written = 0.0 if inner[0] is None else inner[0].reshape(-1)[self.source]
        return [where(self.region, written, g)] + list(inner[1:])

    def _apply_recorded(self, g, geometry):
        """CopySlices::apply_impl as PyTorch runs it in a create_graph backward: result = an
        empty tensor of the base's shape, result.copy_(grad) (CopyBackwards); grad_slice =
        result.as_strided(the view's geometry) (AsStridedBackward0); res = fn(grad_slice.clone())
        (CloneBackward0); grad_slice.copy_(res[0]) (CopySlices of result); the gradients:
        result and res[1:]."""
        result = Tensor._make(np.empty(self.base_shape, g._data.dtype), None, 0, False)
        result.copy_(g)
        grad_slice = strided_view(result, self.positions, geometry)
        res = self.fn.apply([OPS["clone"](grad_slice)])
        if res[0] is None:  # (PyTorch: an undefined gradient for the base, then)
            return [None] + list(res[1:])
        grad_slice.copy_(res[0])
        return [result] + list(res[1:])

    def release(self):
        self.fn.release()


CopySlices.__name__ = CopySlices.__qualname__ = "CopySlices"


def no_grad_view_error(view, last_step=None):
    """PyTorch's error for writing in place, with grad mode on, into a view made in no_grad
    mode (or into a view of one: its node named as PyTorch's handle_view_on_rebase names it).
    last_step: for `view[index] = value`, the last view op of the index (`select`, …), whose
    output is what PyTorch writes into."""
    from ..engine import messages
    fn = _GRAD_FN_SLOT.__get__(view)  # (not the property of a stale view, which raises)
    if last_step is not None:
        name = last_step.capitalize()
    elif fn is None:
        return RuntimeError(messages.NO_GRAD_VIEW_INPLACE)
    else:
        name = view_op_name(fn)
    return RuntimeError(messages.NO_GRAD_VIEW_OF_VIEW_INPLACE.format(fn=name))


def multi_output_view_error(view, last_step=None):
    """PyTorch's error for writing in place, with grad mode on, into an output of a function
    that returns several views (unbind, split) or into a view of one.  last_step: as for
    no_grad_view_error."""
    from ..engine import messages
    fn = _GRAD_FN_SLOT.__get__(view)
    if last_step is not None:
        return RuntimeError(messages.MULTI_OUTPUT_VIEW_INPLACE.format(
            nr=0, fn=last_step.capitalize()))
    if fn is None:
        return RuntimeError(messages.MULTI_OUTPUT_NO_GRAD_VIEW_INPLACE)
    return RuntimeError(messages.MULTI_OUTPUT_VIEW_INPLACE.format(nr=view._output_nr,
                                                                  fn=view_op_name(fn)))


def take_result(tensor, result, recording):
    """After an in-place write of result's values into tensor: the version bump, the tangent
    (forward-mode AD), and, when autograd recorded the op, result's history as tensor's
    (PyTorch's rebase_history; a view's base is rebased by `rebase`)."""
    tensor._counter[0] += 1
    if result._fw is not None:
        from ..engine.tangents import set_tangent
        set_tangent(tensor, result._fw)
    if recording:
        tensor.grad_fn = result.grad_fn
        tensor._output_nr = result._output_nr
        tensor.requires_grad_flag = result.requires_grad_flag


def regenerate(tensor, written=None):
    """After an in-place change through `tensor` (its version counter bumped), give every other
    live view of the same base a fresh AsStridedBackward0 node on the base's current history.
    PyTorch does it lazily, when a view's grad_fn is next read and its version has moved on
    (VariableHooks::grad_fn); the result is the same, and reading grad_fn stays an attribute
    read.  `written`: the view rebase() has just given its node (or None)."""
    vc = tensor._vc
    if vc is None or len(vc) == 1 or not vc[1]:
        return
    from ..engine.grad_mode import GradMode
    enabled, GradMode.enabled = GradMode.enabled, True
    try:
        for view in list(vc[1]):
            base = view._base
            if view is written or base is None or type(view) is StaleView:
                continue
            if view._no_grad_view or view._multi_output_view:
                if base.requires_grad_flag:
                    view.__class__ = StaleView
                continue
            if view.grad_fn is None and not base.requires_grad_flag:
                continue
            node = OPS["as_strided"](base, positions(view._data, base._data)).grad_fn
            view.grad_fn, view._output_nr, view.requires_grad_flag = node, 0, True
    finally:
        GradMode.enabled = enabled


def rebase(view, result):
    """After an in-place op on `view` recorded `result` (whose grad_fn is the op's node), give
    view's base a CopySlices node and view an AsStridedBackward0 node, as PyTorch does."""
    base = view._base
    pos = positions(view._data, base._data)
    node = CopySlices(gradient_edge(base), result.grad_fn, pos, tuple(base._data.shape))
    base.grad_fn, base._output_nr, base.requires_grad_flag = node, 0, True
    regenerated = OPS["as_strided"](base, pos)
    view.grad_fn, view._output_nr = regenerated.grad_fn, 0
    view.requires_grad_flag = True
