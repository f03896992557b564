"""Graph nodes (grad_fn objects), their hooks and edges, and gradient edges.  What nodes save is
gradcli.engine.saved's; the backward pass that runs them is gradcli.engine.backward's.

Parents are tuples (`next_functions`), the traversal is iterative, gradients live in a local
dictionary during a pass and accumulate only into leaves and retained tensors.  Nodes hold no
reference to the tensors they produce (a saved output is stored as its array), so graphs have no
reference cycles and are freed by reference counting alone.
"""

import itertools
import operator
import re
import weakref
from typing import NamedTuple

import numpy as np

from . import messages
from .torch_classes import TorchClass


_sequence = itertools.count()
RELEASED = "released"


class _AnomalyMode:
    """State of autograd.set_detect_anomaly: record where each node was made, check for NaN
    (a slotted instance, as GradMode)."""
    __slots__ = ("enabled", "check_nan", "location")

    def __init__(self):
        self.enabled = False
        self.check_nan = True
        self.location = None  # callable returning a description of the current program location

    def where(self, frames):
        """Where a node is being made, as anomaly mode keeps it for the error it may raise:
        the program's location, else Python's stack without the innermost `frames` frames of
        the caller's (the engine's own; and this one's)."""
        if self.location:
            return self.location()
        import traceback  # (only in anomaly mode: not every start-up)
        return "".join(traceback.format_stack()[:-frames - 1])


AnomalyMode = _AnomalyMode()


class _NodeRecorder:
    """Optional observer of node creation (the CLI records values and source lines for graph and
    explain); None in normal use, so the hot path pays one slot read (as GradMode)."""
    __slots__ = ("callback",)

    def __init__(self):
        self.callback = None


NodeRecorder = _NodeRecorder()


class RemovableHandle(metaclass=TorchClass):
    """Returned by register_hook: `remove()` takes the hook out again."""

    _torch_name = "torch.utils.hooks.RemovableHandle"
    _ids = itertools.count()

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = next(self._ids)

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __repr__(self):
        # PyTorch's class lives in torch.utils.hooks (the class keeps gradcli's module: the
        # sandbox tells engine objects by it)
        return f"<torch.utils.hooks.{type(self).__name__} object at {id(self):#x}>"


def _add_hook(hooks, fn):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


_ZERO_NRS = tuple((0,) * n for n in range(9))


def _split_edges(edges):
    """(children, input numbers) of a sequence of (node, input_nr) edges; the numbers of the
    usual all-zero case are a shared tuple."""
    fns = tuple(e[0] for e in edges)
    nrs = tuple(e[1] for e in edges)
    if len(nrs) < len(_ZERO_NRS) and not any(nrs):
        nrs = _ZERO_NRS[len(nrs)]
    return fns, nrs


# a _PairNode's `_fn_b` when its op has one input (gradcli.ops.nodes; the backward pass's walks
# build its edges from it inline, without a call to _build_edges per node)
UNARY = "unary"


def _edges(node):
    """The tuple of node's child nodes (`_next_fns`): a node class may leave it None when it
    makes the node and build it at first need, in its `_build_edges()`."""
    fns = node._next_fns
    if fns is None:
        fns = node._next_fns = node._build_edges()
    return fns


class Node(metaclass=TorchClass):
    """A node of the backward graph; `grad_fn` of the tensors an operation produced."""

    _torch_name = "torch.autograd.graph.Node"

    # The edges are kept as two flat tuples (the child nodes, and the input number of each in
    # its child) so that a node costs few garbage-collected objects; `next_functions` builds
    # PyTorch's tuple of pairs on demand.  Rarely set attributes live in the instance dict, with
    # these class-level defaults.
    __slots__ = ("_next_fns", "_next_nrs", "_seq", "_deps", "__dict__", "__weakref__")
    _pre_hooks = _hooks = _tensor_hooks = _retains = _anomaly = _metadata = None
    # set once any hook, retained gradient or packed saved value (its unpack hook) is attached:
    # the engine's slow path
    _hooked = False
    # apply_f(node, g, free): the engine loop's apply for one gradient that may be a float
    # gradient (see _run), on the node classes of one- and two-input ops, which have one output
    # (gradcli.ops.registry; a static method: node.apply_f is the function, not a bound method
    # made anew per node)
    apply_f = None
    num_outputs = 1

    def output_meta(self, nr):
        """(shape, NumPy dtype) of output nr if the node can tell it, else None (an op's node:
        gradcli.ops.nodes)."""
        return None

    def __init__(self):
        self._seq = next(_sequence)
        self._deps = 0
        self._next_fns = self._next_nrs = ()

    @property
    def next_functions(self):
        return tuple(zip(_edges(self), self._next_nrs))

    @next_functions.setter
    def next_functions(self, edges):
        self._next_fns, self._next_nrs = _split_edges(edges)

    def _build_edges(self):
        """The tuple of child nodes of a node its class made with `_next_fns` None (_edges)."""
        raise NotImplementedError(type(self).__name__)

    @property
    def metadata(self):
        """A dict for the user's own notes about the node (PyTorch's `grad_fn.metadata`)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after this node; it may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = {}
        self._hooked = True
        return _add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) runs before this node; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        self._hooked = True
        return _add_hook(self._pre_hooks, fn)

    def _tensor_hook_dict(self, output_nr):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        self._hooked = True
        return self._tensor_hooks.setdefault(output_nr, {})

    def _set_leaf_hooks(self, hooks):
        """Share a leaf tensor's hook dict with its AccumulateGrad."""
        self._tensor_hooks = {0: hooks}
        self._hooked = True

    def _retain(self, output_nr, ref):
        if self._retains is None:
            self._retains = {}
        self._retains[output_nr] = ref
        self._hooked = True

    def short_name(self):
        """The node name without its `Backward0` suffix, as PyTorch's messages print it (of
        another overload, the number stays: PowBackward2 is `Pow2`)."""
        return re.sub(r"Backward(?:0|(\d*))$", lambda m: m.group(1) or "", self.name())

    def release(self):
        """Free saved tensors after a backward pass without retain_graph."""

    def refers_to(self, array):
        """Whether this node's VJP formulas may have been given `array` or may keep it (its
        saved values and attributes): a node class that cannot tell says yes, and the engine
        then owns none of the gradients its formulas return (see _formula_made)."""
        return True


class AccumulateGrad(Node):
    """The sink of a leaf tensor: adds incoming gradients into `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        Node.__init__(self)
        self._seq = float("inf")  # runs as soon as it is ready, like PyTorch's
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def accumulate(self, grad, create_graph, owned=False):
        """Add grad into the leaf's `.grad`.  owned: nothing but the engine refers to grad or
        its array, so the first gradient is stored as it is instead of copied (PyTorch steals
        it likewise)."""
        if grad._data.dtype.kind == "c":  # (rather than a gradient that is not PyTorch's)
            raise RuntimeError(messages.COMPLEX_GRADIENTS)
        var = self.variable
        old = var._grad
        if old is None:
            # PyTorch stores a copy; with create_graph the copy is differentiable (CopyBackwards)
            if create_graph and grad.requires_grad_flag:
                var._grad = _copy_with_graph(grad)
            else:
                var._grad = grad if owned else _fresh(grad)
            var._grad_count = 1
        else:
            if create_graph:
                var._grad = old + grad
            else:  # in place, keeping the old gradient's grad_fn, as PyTorch's `grad += new`
                _add_into(old._data, grad._data)
                old._counter[0] += 1
            var._grad_count = var._grad_count + 1


class CopyBackwards(Node):
    """The node of a gradient stored with create_graph=True (a copy of the incoming gradient)."""

    __slots__ = ()

    def __init__(self, edge):
        Node.__init__(self)
        self.next_functions = ((None, 0), edge)

    def apply(self, grads):
        return [None, grads[0]]


def _copy_with_graph(grad):
    from .tensor import Tensor
    return Tensor._make(grad._data.copy(), CopyBackwards(gradient_edge(grad)), 0, True)


def _fresh(grad):
    """A gradient tensor not aliased with anything the program holds."""
    from .tensor import Tensor
    return Tensor._make(grad._data.copy(), None, 0, False)


def _formula_made(node, g, gi, grads_in):
    """Whether gradient gi, which node's VJP formulas (`apply_f`, one formula per input) returned
    for one of its inputs, is a tensor the formula made: a plain tensor of a C-contiguous,
    writeable array of its own (no view: no NumPy base, no `_base`), outside any graph, neither
    the gradient g the node was given nor anything the node refers to (its saved values and
    attributes, node.refers_to), and returned once.  Nothing but the engine holds such a
    gradient (formulas keep nothing), so the engine may add into it and a leaf may keep it as
    its `.grad` uncopied, as PyTorch's AccumulateGrad steals a gradient nobody else holds.
    Decided from the objects alone, on every Python: no reference counts."""
    if type(gi) is not _Tensor_cls or gi.grad_fn is not None or gi.requires_grad_flag:
        return False
    d = gi._data
    if (d.base is not None or gi._base is not None or gi._fw is not None
            or not d.flags.c_contiguous or not d.flags.writeable):
        return False
    if g is gi or g._data is d or g._data.base is d:
        return False
    seen = 0
    for other in grads_in:
        if other is gi:
            seen += 1
        elif other is not None and type(other) is not float and other._data is d:
            return False
    return seen == 1 and not node.refers_to(d)


def _add_into(d, s):
    """d += s for arrays of one shape and dtype.  A 0-d float array is added through Python
    floats: NumPy's in-place ufunc call on a 0-d array costs as much as fifteen float additions,
    and the double-precision sum of two float32 (or float64) numbers rounded to the array's
    dtype is the correctly rounded sum in that dtype, the number NumPy gives."""
    if d.shape or d.dtype.kind != "f":
        d += s
    else:
        d[()] = float(d) + float(s)


class GradientEdge(NamedTuple):
    """torch.autograd.graph.GradientEdge: where a tensor's gradient flows in (its grad_fn or
    AccumulateGrad, and its output number), usable as an input of autograd.grad after the
    tensor itself is gone or has been written in place."""
    node: Node
    output_nr: int
    ownership_token: object = None


GradientEdge.__module__ = "torch.autograd.graph"


def get_gradient_edge(tensor):
    """The GradientEdge of tensor (which must require grad)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node, nr = gradient_edge(tensor)
    _EDGE_META.setdefault(node, {})[nr] = (tensor._data.shape, tensor.dtype)
    return GradientEdge(node, nr)


# node -> {output_nr: (shape, dtype)} of the tensors get_gradient_edge was given: what PyTorch
# keeps as a node's input metadata, for a GradientEdge as an output of autograd.grad
_EDGE_META = weakref.WeakKeyDictionary()


def gradient_edge(t):
    """The (node, input_nr) a gradient for tensor t (or GradientEdge t) flows into, or
    (None, 0)."""
    if type(t) is GradientEdge:
        if not isinstance(t.node, Node):
            raise RuntimeError("GradientEdge's first object must be an autograd.graph.Node but "
                               f"got {type(t.node).__name__}")
        return t.node, _edge_number(t.output_nr)
    fn = t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    if t.requires_grad:
        return t._accumulator(), 0
    return None, 0


def _edge_number(nr):
    """A GradientEdge's output_nr as PyTorch's binding reads it (a C++ int64_t): an integer
    (TypeError otherwise, Python's words), within 64 bits (ValueError, pybind's words)."""
    nr = operator.index(nr)
    if not -2 ** 63 <= nr < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return nr


def check_edge_input(edge):
    """PyTorch's engine reads the gradient captured at a GradientEdge input of autograd.grad
    as the output_nr-th of its node's inputs, unchecked: an output_nr outside the node's
    outputs (a negative one too) crashes it.  Here it is an IndexError."""
    node, nr = gradient_edge(edge)
    if not 0 <= nr < node.num_outputs:
        raise IndexError(f"GradientEdge output_nr {nr} is out of range for {node.name()}, "
                         f"which has {node.num_outputs} output"
                         f"{'s' if node.num_outputs != 1 else ''}")


def edge_output_meta(edge):
    """(shape, dtype) of the gradient a GradientEdge output of autograd.grad or backward takes:
    PyTorch reads `edge.node._input_metadata[edge.output_nr]` (a tuple of one entry an output
    of the node), with Python's errors for a node that is none and an index out of that tuple.
    gradcli knows it for an edge get_gradient_edge made, a leaf's and a several-output op's."""
    node = edge.node
    if not isinstance(node, Node):
        raise AttributeError(f"'{messages.type_name(node)}' object has no attribute "
                             f"'_input_metadata'")
    ((None,) * node.num_outputs)[edge.output_nr]  # (IndexError, TypeError: PyTorch's words)
    check_edge_input(edge)  # (a negative output_nr: PyTorch's engine crashes; an IndexError)
    nr = edge.output_nr
    known = _EDGE_META.get(node, {}).get(nr)
    if known is not None:
        return known
    if type(node) is AccumulateGrad:
        return node.variable._data.shape, node.variable.dtype
    out_meta = getattr(node, "_out_meta", None)
    found = out_meta[nr] if out_meta is not None else node.output_meta(nr)
    if found is not None:
        from .dtypes import from_numpy_dtype
        shape, dtype = found
        return shape, from_numpy_dtype(dtype)
    raise NotImplementedError(messages.EDGE_OUTPUT)


def reachable_nodes(root_nodes):
    """Every node reachable from root_nodes, parents before children (iterative, stable)."""
    seen = {}
    stack = list(reversed([n for n in root_nodes if n is not None]))
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen[node] = None
        for child, _ in reversed(node.next_functions):
            if child is not None and child not in seen:
                stack.append(child)
    return list(seen)


def tensor_gradient(g):
    """A float gradient (see _run) as the 0-d float64 tensor it stands for, a tensor as it is."""
    return g if type(g) is not float else _make_tensor(_array(g), None, 0, False)


_tensor_gradient = tensor_gradient
_array = np.array
_make_tensor = None  # Tensor._make, once engine.tensor has made the class (it imports this)
_Tensor_cls = None   # and the class itself


def bind_tensor_class(tensor_cls):
    """Called once by engine.tensor: the class gradients are made of."""
    global _make_tensor, _Tensor_cls
    _make_tensor = tensor_cls._make
    _Tensor_cls = tensor_cls
