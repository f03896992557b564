"""Graph nodes (grad_fn objects), saved tensors, hooks, and the backward engine.

Parents are tuples (`next_functions`), the traversal is iterative, gradients live in a local
dictionary during a pass and accumulate only into leaves and retained tensors.  Nodes hold no
reference to the tensors they produce (a saved output is stored as its array), so graphs have no
reference cycles and are freed by reference counting alone.
"""

import gc
import heapq
import itertools
import re
import warnings
from typing import NamedTuple

import numpy as np

from . import messages
from .grad_mode import INFERENCE_SAVED, GradMode, InferenceCounter, InferenceMode
from .torch_classes import TorchClass, torch_repr

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
    _hooked = False  # set once any hook or retained gradient is attached: the engine's slow path
    # apply_f(node, g): the engine loop's apply for one gradient that may be a float gradient
    # (see _run), on the node classes of one- and two-input ops (gradcli.ops.registry)
    apply_f = None
    num_outputs = 1

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


def version_error(tensor_type, shape, node, nr, current, saved):
    """PyTorch's error for a saved tensor modified in place (node, nr: the tensor's grad_fn)."""
    origin = "" if node is None else messages.INPLACE_ORIGIN.format(
        output_nr=nr, node=node.short_name())
    return RuntimeError(messages.INPLACE_MODIFIED.format(
        tensor_type="torch." + tensor_type, sizes=", ".join(map(str, shape)), origin=origin,
        current=current, saved=saved))


class SavedTensor:
    """A tensor saved for backward, with its version at the time it was saved (custom
    Functions; the op table's nodes keep the same information in flat tuples)."""

    __slots__ = ("tensor", "version", "saved_version", "origin")

    def __init__(self, tensor):
        self.tensor = tensor
        self.version = tensor._counter
        if type(self.version) is InferenceCounter and not InferenceMode.enabled:
            raise RuntimeError(INFERENCE_SAVED)
        self.saved_version = tensor._counter[0]
        self.origin = None  # PyTorch names the tensor's grad_fn at the time of the error

    def check_version(self):
        if self.version[0] != self.saved_version:
            t = self.tensor
            node, nr = self.origin or (t.grad_fn, t._output_nr)
            raise version_error(t.dtype.tensor_type, t._data.shape, node, nr, self.version[0],
                                self.saved_version)

    def unpack(self):
        self.check_version()
        return self.tensor


class SavedOutput(SavedTensor):
    """An output saved by the node that made it; rebuilt on unpack so the node does not keep its
    own output alive (that would be a reference cycle)."""

    __slots__ = ("data", "output_nr")

    def __init__(self, tensor):
        SavedTensor.__init__(self, tensor)
        self.data = tensor._data
        self.output_nr = tensor._output_nr
        self.tensor = None
        self.origin = None, 0

    def unpack_for(self, node):
        from .tensor import Tensor
        if self.version[0] != self.saved_version:
            self.tensor = Tensor._make(self.data, None, 0, False)
            self.origin = node, self.output_nr
            self.check_version()
        t = Tensor._make(self.data, node, self.output_nr, True)
        t._vc = self.version
        return t


class _SavedTensorsHooks:
    """The pack/unpack hook pairs of open `saved_tensors_hooks` contexts, innermost last (the
    one that applies), and the message of an open `disable_saved_tensors_hooks` (a slotted
    instance, as GradMode)."""
    __slots__ = ("stack", "disabled")

    def __init__(self):
        self.stack = []
        self.disabled = None


SavedHooks = _SavedTensorsHooks()


class saved_tensors_hooks(metaclass=TorchClass):
    """Context manager: every tensor saved for backward while it is open is handed to
    pack_hook(tensor), and what that returns is kept instead; the backward pass (or reading
    `grad_fn._saved_*`) gets the tensor back from unpack_hook(packed).  A tensor restored so
    keeps the saved tensor's place in the graph; in-place changes are not checked for it."""

    _torch_name = "torch.autograd.graph.saved_tensors_hooks"

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    __repr__ = torch_repr

    def __enter__(self):
        if SavedHooks.disabled is not None:
            raise RuntimeError(SavedHooks.disabled)
        SavedHooks.stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc):
        SavedHooks.stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """saved_tensors_hooks that keep saved tensors on the CPU (where gradcli's tensors always
    are: the tensor itself, or with pin_memory=True a copy of it)."""

    _torch_name = "torch.autograd.graph.save_on_cpu"

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return tensor.device, (tensor.detach().clone() if pin_memory else tensor)

        def unpack_from_cpu(packed):
            return packed[1]
        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks(metaclass=TorchClass):
    """Context manager (or decorator) during which opening saved_tensors_hooks raises
    RuntimeError(error_message)."""

    _torch_name = "torch.autograd.graph.disable_saved_tensors_hooks"

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self._previous = SavedHooks.disabled
        SavedHooks.disabled = self.error_message

    def __exit__(self, *exc):
        SavedHooks.disabled = self._previous

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)
        return wrapper


class PackedTensor:
    """A tensor saved for backward through saved_tensors_hooks: what pack_hook returned, the
    unpack_hook that turns it back into a tensor, and the saved tensor's autograd place
    (grad_fn and output number; the leaf, for a leaf that requires grad)."""

    __slots__ = ("value", "unpack_hook", "grad_fn", "output_nr", "requires_grad", "leaf",
                 "output")

    def __init__(self, tensor, output=False, hooks=None, place=None):
        """tensor: what pack_hook gets; hooks: (pack_hook, unpack_hook), by default those of
        the innermost saved_tensors_hooks; place: the tensor whose place in the graph the
        unpacked tensor takes (default: tensor itself)."""
        self.output = output
        pack_hook, self.unpack_hook = hooks or SavedHooks.stack[-1]
        vc = tensor._vc
        before = vc[0] if vc is not None else 0
        previous = GradMode.enabled
        GradMode.enabled = False
        try:
            self.value = pack_hook(tensor)
        finally:
            GradMode.enabled = previous
        vc = tensor._vc
        if (vc[0] if vc is not None else 0) != before:
            raise RuntimeError(messages.PACK_HOOK_INPLACE)
        if output:  # its grad_fn is the node that keeps this (given to unpack: no cycle)
            self.grad_fn, self.output_nr, self.requires_grad, self.leaf = (
                None, tensor._output_nr, True, None)
        else:
            place = tensor if place is None else place
            self.grad_fn, self.output_nr = place.grad_fn, place._output_nr
            self.requires_grad = place.requires_grad_flag
            self.leaf = place if place.grad_fn is None and place.requires_grad_flag else None

    def unpack(self, node=None):
        """The tensor unpack_hook gives back, in the saved tensor's place in the graph (node:
        the grad_fn of a saved output)."""
        from .tensor import Tensor
        data = self.unpack_hook(self.value)
        if not isinstance(data, Tensor):
            raise TypeError(messages.UNPACK_HOOK_NOT_TENSOR.format(type=type(data).__name__))
        fn = node if node is not None else self.grad_fn
        if data is self.leaf or (fn is not None and data.grad_fn is fn
                                 and data._output_nr == self.output_nr):
            return data
        t = Tensor._make(data._data, fn, self.output_nr if fn is not None else 0,
                         self.requires_grad)
        if self.leaf is not None:  # gradients through it reach the leaf's .grad
            t._accum_ref = self.leaf._accum_ref
        return t

    def unpack_for(self, node):
        """(custom Functions) node: the node that saved this."""
        return self.unpack(node if self.output else None)


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
    return GradientEdge(node, nr)


def gradient_edge(t):
    """The (node, input_nr) a gradient for tensor t (or GradientEdge t) flows into, or
    (None, 0)."""
    if type(t) is GradientEdge:
        if not isinstance(t.node, Node):
            raise RuntimeError("GradientEdge's first object must be an autograd.graph.Node but "
                               f"got {type(t.node).__name__}")
        return t.node, t.output_nr
    fn = t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    if t.requires_grad:
        return t._accumulator(), 0
    return None, 0


# ----------------------------------------------------------------------------------------------
# The backward pass

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


def _collect(roots, targets):
    """Count dependencies of every node reachable from roots (how many edges point at it).
    With targets (autograd.grad or backward(inputs=...)), keep only the nodes on a path to a
    target: `needed` is that set, or None when it is every node (always without targets, and
    when every node without children is a target: each node then reaches one)."""
    deps = {}
    stack = list(dict.fromkeys(roots))
    root_set = set(stack)
    push = stack.append
    pop = stack.pop
    sinks_are_targets = True
    while stack:
        node = pop()
        sink = True
        fns = node._next_fns
        if fns is None:  # the first pass over a _PairNode
            fns = _edges(node)
        for child in fns:
            if child is None:
                continue
            sink = False
            n = deps.get(child)
            if n is None:
                deps[child] = 1
                if child not in root_set:
                    push(child)
            else:
                deps[child] = n + 1
        if sink and targets is not None and node not in targets:
            sinks_are_targets = False
    if targets is None or sinks_are_targets:
        return deps, None
    return _collect_needed(roots, targets)


def _count_dependencies(roots, counted):
    """_collect for a pass without targets that runs inside no other pass: each node's count
    goes in its `_deps` slot (0 outside such a pass; the engine loop counts it back down to 0),
    and counted gets every node counted, in the order first reached.  A dict of a million
    nodes is read at random (its hash table outgrows the caches), a node's own slot where the
    walk is anyway: on a 10k-op chain the dict's two updates per node were 0.28 of the
    backward pass's 2.5 us per op, 0.43 on a 1M-op chain.  A pass that a hook starts inside
    another one keeps to the dict, which leaves the enclosing pass's counts alone."""
    stack = list(dict.fromkeys(roots))
    root_set = set(stack)
    push = stack.append
    pop = stack.pop
    add = counted.append
    while stack:
        node = pop()
        fns = node._next_fns
        if fns is None:  # the first pass over a _PairNode
            fns = _edges(node)
        for child in fns:
            if child is None:
                continue
            n = child._deps
            if n == 0:
                add(child)
                if child not in root_set:
                    push(child)
            child._deps = n + 1


def _collect_needed(roots, targets):
    order = []  # post-order: children before parents
    visited = set()
    for root in roots:
        if root in visited:
            continue
        visited.add(root)
        stack = [(root, iter(root._next_fns))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if child is not None and child not in visited:
                    visited.add(child)
                    stack.append((child, iter(child._next_fns)))
                    break
            else:
                stack.pop()
                order.append(node)
    needed = set()
    for node in order:
        if node in targets:
            needed.add(node)
            continue
        for child in node._next_fns:
            if child in needed:
                needed.add(node)
                break
    deps = {}
    for node in order:
        if node not in needed:
            continue
        for child in node._next_fns:
            if child in needed:
                deps[child] = deps.get(child, 0) + 1
    return deps, needed


def _accumulate_buffer(buffers, node, nr, grad):
    """Add grad into the input buffer of node's output nr (a bare tensor for single-output
    nodes, a list otherwise)."""
    if node.num_outputs == 1:
        old = buffers.get(node)
        buffers[node] = grad if old is None else old + grad
        return
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node.num_outputs
    old = buf[nr]
    buf[nr] = grad if old is None else old + grad


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE


def _type_name(value):
    """The C name of value's type (`tp_name`), as PyTorch's messages print it: `int`, `A` for
    a class defined in Python, `numpy.ndarray` for a type of a C extension."""
    cls = type(value)
    if cls.__flags__ & _HEAP_TYPE or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def _hook_name(hook):
    """The hook's `__name__` if it is a string, else `<unknown>` (PyTorch's hook_name)."""
    try:
        name = hook.__name__
    except Exception:  # noqa: BLE001  (PyTorch's PyObject_HasAttrString swallows any error)
        return "<unknown>"
    return name if isinstance(name, str) else "<unknown>"


def _type_string(dtype):
    """A tensor's type as PyTorch's TensorOptions::toString prints it: `torch.FloatTensor`, or
    `CPUBoolType` for the types without a legacy tensor class (bool, complex)."""
    if dtype.category in (0, 3):
        return f"CPU{dtype.short}Type"
    return "torch." + dtype.tensor_type


def _check_hook_value(hook, old, new):
    """PyTorch's check of a gradient new (not None) that a hook returned in place of old."""
    from .tensor import Tensor
    if old is None:
        raise RuntimeError(messages.HOOK_REPLACED_NONE)
    if not isinstance(new, Tensor):
        raise TypeError(messages.HOOK_RETURNED_NOT_TENSOR.format(type=_type_name(new)))
    if new.dtype is not old.dtype:
        raise RuntimeError(messages.HOOK_CHANGED_TYPE.format(
            name=_hook_name(hook), was=_type_string(old.dtype), got=_type_string(new.dtype)))
    if new._data.shape != old._data.shape:
        raise RuntimeError(messages.HOOK_CHANGED_SIZE.format(name=_hook_name(hook)))
    return new


def _check_hook_values(hook, old, new):
    """The tuple of gradients new (not None) that a Node hook returned in place of the tuple
    old, checked as PyTorch checks it."""
    if not isinstance(new, tuple):
        raise TypeError(messages.HOOK_RETURNED_NOT_TUPLE.format(type=_type_name(new)))
    if len(new) != len(old):
        raise RuntimeError(messages.HOOK_RETURNED_WRONG_COUNT.format(
            name=_hook_name(hook), got=len(new), expected=len(old)))
    for o, n in zip(old, new):
        if n is not None:
            _check_hook_value(hook, o, n)
    return new


def _call_tensor_hooks(node, grads):
    """The hooks registered on the tensors node produced, then their retained gradients
    (PyTorch's tensor pre-hooks and retains_grad hooks): a hook sees None for an output that
    received no gradient, and may return None for it, not a tensor."""
    hooks = node._tensor_hooks
    if hooks:
        for nr, fns in hooks.items():
            for fn in list(fns.values()):
                new = fn(grads[nr])
                if new is not None:
                    grads[nr] = _check_hook_value(fn, grads[nr], new)
    retains = node._retains
    if retains:
        for nr, ref in list(retains.items()):
            t = ref()
            g = grads[nr]
            if t is None or g is None:
                continue
            if t._grad is None:
                t._grad = _fresh(g) if not g.requires_grad else g
            else:
                t._grad = t._grad + g
            t._grad_count = t._grad_count + 1


def _call_post_accumulate_hooks(variable):
    """Tensor.register_post_accumulate_grad_hook's hooks: each is called with the leaf; a value
    returned is checked and handed to the next hook as the tensor, then refused."""
    t = variable
    replaced = False
    for fn in list(variable._post_acc_hooks.values()):
        new = fn(t)
        if new is not None and new is not t:
            t = _check_hook_value(fn, t, new)
            replaced = True
    if replaced:
        raise RuntimeError(messages.POST_ACC_HOOK_RETURNED)


class _RunningPasses:
    """The backward passes running, innermost last (a hook may start another): for each, its
    id, root nodes, dependency counts (a dict, see _collect; or the list of nodes that hold
    their own, see _count_dependencies), needed nodes and whether it accumulates into leaves
    (Tensor.backward) or returns gradients (autograd.grad)."""
    __slots__ = ("stack",)

    def __init__(self):
        self.stack = []


RunningPasses = _RunningPasses()
_pass_ids = itertools.count()


def current_pass_id():
    """The id of the innermost running backward pass (PyTorch's graph task id), or -1."""
    return RunningPasses.stack[-1][0] if RunningPasses.stack else -1


def will_execute(node):
    """Whether the innermost running backward pass runs node (PyTorch's
    _will_engine_execute_node)."""
    if not RunningPasses.stack:
        raise RuntimeError("_will_engine_execute_node should only be called during the "
                           "backward pass")
    running = RunningPasses.stack[-1]
    _, roots, deps, needed, accumulate = running
    if not accumulate and type(node) is AccumulateGrad:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not supported.")
    if type(deps) is list:  # the nodes _count_dependencies counted: a set from now on
        deps = running[2] = set(deps)
    return (node in deps or node in roots) and (needed is None or node in needed)


def run_backward(roots, grads, retain_graph, create_graph, inputs=None, accumulate=True,
                 allow_unused=False):
    """Run the backward pass from root tensors with their gradients.

    accumulate=True (Tensor.backward / autograd.backward) adds into the `.grad` of leaves (or only
    of `inputs` when given); accumulate=False (autograd.grad) returns the gradients of `inputs`.
    """
    root_edges = [gradient_edge(t) for t in roots]
    targets = None
    capture = None
    if inputs is not None:
        targets = set()
        if not accumulate:
            capture = {}
        for i, t in enumerate(inputs):
            if accumulate and type(t) is not GradientEdge:
                t.retain_grad()  # backward(inputs=...) keeps a non-leaf input's gradient in .grad
            node, nr = gradient_edge(t)
            if node is None:
                raise RuntimeError(messages.INPUT_NO_GRAD)
            targets.add(node)
            if capture is not None:
                capture.setdefault(node, []).append((nr, i))
    root_nodes = [n for n, _ in root_edges]
    results = [None] * len(inputs) if capture is not None else None
    prev_mode = GradMode.enabled
    # PyTorch's engine runs on C++ objects the cyclic garbage collector never visits; here the
    # pass allocates a tensor or two per node (and the first walk a tuple of edges per node, see
    # gradcli.ops.nodes._PairNode) while the whole graph is alive, and each automatic
    # collection would walk that graph.  Nothing the pass makes is cyclic, so collection waits
    # until it ends (the collector is re-enabled in `finally`, whatever happens).
    gc_was_enabled = gc.isenabled()
    if gc_was_enabled:
        gc.disable()
    passes = RunningPasses.stack
    running = None
    # a pass of every node (no targets) that no other pass encloses counts dependencies in the
    # nodes themselves (`_deps`, see _count_dependencies); `counted` lists those it counted
    counted = [] if targets is None and not passes else None
    finished = False
    try:
        if counted is not None:
            _count_dependencies(root_nodes, counted)
            deps = needed = None
        else:
            deps, needed = _collect(root_nodes, targets)
        running = [next(_pass_ids), root_nodes, deps if counted is None else counted, needed,
                   accumulate]
        passes.append(running)
        GradMode.enabled = create_graph
        buffers = {}
        for (node, nr), g in zip(root_edges, grads):
            if needed is None or node in needed:
                _accumulate_buffer(buffers, node, nr, g)
        ready = []
        for node in dict.fromkeys(root_nodes):
            if ((node._deps if deps is None else deps.get(node, 0)) == 0
                    and (needed is None or node in needed)):
                heapq.heappush(ready, _ready_entry(node))
        _run(ready, deps, needed, buffers, capture, results, retain_graph, create_graph)
        finished = True
    finally:
        if counted is not None and not finished:  # (a finished pass counted each one down to 0)
            for node in counted:
                node._deps = 0
        if running is not None:
            passes.pop()
        GradMode.enabled = prev_mode
        if gc_was_enabled:
            gc.enable()
    if capture is not None:
        for i, g in enumerate(results):
            if g is None and not allow_unused:
                raise RuntimeError(messages.UNUSED_INPUT.format(index=i))
            if g is not None and g._data.dtype.kind == "c":
                raise RuntimeError(messages.COMPLEX_GRADIENTS)
            if g is not None and not create_graph and g.requires_grad:
                results[i] = g.detach()
    return results


class _Tied:
    """A ready AccumulateGrad node in the engine's heap.  They all have the highest sequence
    number, and PyTorch's ready queue (a binary heap, as heapq's) leaves nodes of equal priority
    in the order its sift operations give; entries that compare equal reproduce that order
    (ordering by anything else, such as the node's address, would not)."""
    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def __eq__(self, other):
        return True

    def __lt__(self, other):
        return False

    __hash__ = None


def _ready_entry(node):
    """node's entry in the ready heap: (-sequence number, node), nodes of equal sequence number
    (AccumulateGrad's) comparing equal."""
    if type(node) is AccumulateGrad:
        return _ACCUMULATE_KEY, _Tied(node)
    return -node._seq, node


_ACCUMULATE_KEY = -float("inf")


def _run(ready, deps, needed, buffers, capture, results, retain_graph, create_graph):
    """The engine loop: run ready nodes (highest sequence number first, as PyTorch's), pass each
    one's input gradients on to its children's buffers, and count down their dependencies.

    Outside create_graph and forward AD, a gradient that is a 0-d float64 tensor may travel as
    a float gradient, the Python float it holds: the nodes of one- and two-input ops take and
    give them (apply_f) where their formulas run on Python floats (gradcli.ops.registry.
    _floatable), so a scalar graph makes no tensor per node; two meeting in a buffer add as
    floats (NumPy's bits).  Anything else sees the tensor (_tensor_gradient): other nodes,
    hooks, retained and captured gradients, AccumulateGrad.

    `owned` holds the nodes whose buffered gradient is the engine's own while nothing else can
    have seen it yet: a sum of two gradients, a float gradient made a tensor, or a tensor an
    op's VJP formula made from a tensor gradient (_formula_made: not the gradient it was
    given, nothing the node saved, no view; outside create_graph).  A further gradient for such a node is added into
    its array, and an AccumulateGrad stores it as the leaf's `.grad` without a copy.  Every
    other gradient may be referred to elsewhere (a VJP may return its gradient or a saved
    tensor, a hook may keep what it saw), so it is never written.  A node whose formulas may
    own their results releases its saved values only once its gradients are passed on (what
    it saved tells which results are not its formulas' own)."""
    heappush, heappop = heapq.heappush, heapq.heappop
    buffer_get = buffers.get
    buffer_pop = buffers.pop
    nxt = None  # a lone ready node is run next without going through the heap
    owned = set()
    while True:
        if nxt is not None:
            node, nxt = nxt, None
        elif ready:
            node = heappop(ready)[1]
            if type(node) is _Tied:
                node = node.node
        else:
            return
        single = node.num_outputs == 1
        if single and not node._hooked and (capture is None or node not in capture):
            # the common case, without hooks, retained gradients or captured inputs
            g = buffer_pop(node, None)
            mine = False
            if owned and node in owned:
                owned.discard(node)
                mine = True
            if type(node) is AccumulateGrad:
                if capture is None and g is not None:
                    if type(g) is float:
                        g, mine = _tensor_gradient(g), True
                    node.accumulate(g, create_graph, mine)
                continue
            given = None  # the gradient node's formulas were given, when they may own theirs
            if g is None:
                grads_in = None
            else:
                apply_f = node.apply_f
                if apply_f is None:
                    if type(g) is float:
                        g = _tensor_gradient(g)
                    grads_in = node.apply([g])
                else:
                    grads_in = apply_f(g)
                    if not create_graph and type(g) is not float:
                        given = g
                g = apply_f = None
                if AnomalyMode.enabled:
                    _check_nan(node, grads_in)
            if not retain_graph and given is None:  # (else once its gradients are passed on:
                node.release()                      #  what it saved tells which are its own)
        else:
            if owned:
                owned.discard(node)
            given = None
            grads_in = _run_node(node, single, buffer_pop, needed, capture, results,
                                 retain_graph, create_graph)
            if grads_in is _SKIP:
                continue
        fns = node._next_fns
        if grads_in is None:
            grads_in = (None,) * len(fns)
        for child, nr, g in zip(fns, node._next_nrs, grads_in):
            if child is None or (needed is not None and child not in needed):
                continue
            if g is not None:
                if child.num_outputs == 1:
                    old = buffer_get(child)
                    if old is None:
                        buffers[child] = g
                        # a gradient the formula made is the engine's: a leaf may keep it, a
                        # later gradient for child is added into it (decided where it matters)
                        if (given is not None and type(g) is not float
                                and (type(child) is AccumulateGrad
                                     or (child._deps if deps is None else deps[child]) > 1)
                                and _formula_made(node, given, g, grads_in)):
                            owned.add(child)
                    elif type(old) is float and type(g) is float:
                        buffers[child] = old + g
                    else:
                        fresh = type(old) is float  # (then a tensor nothing else has)
                        if fresh:
                            old = _tensor_gradient(old)
                        elif type(g) is float:
                            g = _tensor_gradient(g)
                        if create_graph:
                            buffers[child] = old + g
                        else:
                            if old is g or old._data.shape != g._data.shape or (
                                    old._data.dtype != g._data.dtype):
                                old = old + g
                            elif fresh or child in owned:
                                _add_into(old._data, g._data)  # the engine's own buffer
                            elif given is not None and _formula_made(node, given, g, grads_in):
                                _add_into(g._data, old._data)  # the formula's fresh result
                                old = g
                            else:
                                old = old + g
                            buffers[child] = old
                            owned.add(child)
                    old = None
                else:
                    if type(g) is float:
                        g = _tensor_gradient(g)
                    buf = buffer_get(child)
                    if buf is None:
                        buf = buffers[child] = [None] * child.num_outputs
                    old = buf[nr]
                    buf[nr] = g if old is None else old + g
                    old = None
            if deps is None:  # (counted in the nodes: _count_dependencies)
                left = child._deps - 1
                child._deps = left
            else:
                left = deps[child] - 1
                deps[child] = left
            if left == 0:
                if nxt is None and not ready:
                    nxt = child
                else:
                    if nxt is not None:
                        heappush(ready, _ready_entry(nxt))
                        nxt = None
                    heappush(ready, _ready_entry(child))
        if given is not None:
            if not retain_graph:
                node.release()
            given = None
        g = grads_in = None


_SKIP = object()


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


def _run_node(node, single, buffer_pop, needed, capture, results, retain_graph, create_graph):
    """Run one node with hooks, retained gradients or captured inputs (or several outputs), in
    PyTorch's order: tensor hooks, retained gradients, pre-hooks, the node, post-hooks.  Returns
    its input gradients, or _SKIP when none flow on from it."""
    if single:
        g = buffer_pop(node, None)
        grads_out = [g if type(g) is not float else _tensor_gradient(g)]
    else:
        grads_out = buffer_pop(node, None)
        if grads_out is None:
            grads_out = [None] * node.num_outputs
    if capture is not None and node in capture:
        # autograd.grad runs a node it captures at only when gradients flow on from it to
        # another input; PyTorch captures what the tensor hooks returned if it does not run,
        # what they were given if it does
        if not _leads_to_needed(node, needed):
            _call_tensor_hooks(node, grads_out)
            _capture(node, grads_out, capture, results)
            return _SKIP
        _capture(node, grads_out, capture, results)
    _call_tensor_hooks(node, grads_out)
    if node._pre_hooks:
        for fn in list(node._pre_hooks.values()):
            old = tuple(grads_out)
            new = fn(old)
            if new is not None:
                grads_out = list(_check_hook_values(fn, old, new))
    sink = type(node) is AccumulateGrad
    if sink:
        if grads_out[0] is not None:
            node.accumulate(grads_out[0], create_graph)
        if node.variable._post_acc_hooks:
            _call_post_accumulate_hooks(node.variable)
        grads_in = ()
    elif grads_out[0] is None and all(g is None for g in grads_out):
        grads_in = (None,) * len(node._next_fns)
    else:
        grads_in = node.apply(grads_out)
        if AnomalyMode.enabled:
            _check_nan(node, grads_in)
    if node._hooks:
        if needed is not None:  # PyTorch computes no gradient for a child it will not run
            grads_in = tuple(g if child in needed else None
                             for child, g in zip(node._next_fns, grads_in))
        for fn in list(node._hooks.values()):
            old = tuple(grads_in)
            new = fn(old, tuple(grads_out))
            if new is not None:
                grads_in = _check_hook_values(fn, old, new)
    if not retain_graph:
        node.release()
    return _SKIP if sink else grads_in


def _leads_to_needed(node, needed):
    return any(child is not None and (needed is None or child in needed)
               for child in node._next_fns)


def _capture(node, grads, capture, results):
    for nr, i in capture[node]:
        results[i] = grads[nr]


def _check_nan(node, grads_in):
    import numpy as np
    if not AnomalyMode.check_nan:
        return
    for i, g in enumerate(grads_in):
        if g is not None and np.isnan(g if type(g) is float else g._data).any():
            where = node._anomaly
            if where:
                warnings.warn(messages.ANOMALY_TRACEBACK.format(node=node.name(), where=where),
                              UserWarning, stacklevel=2)
            raise RuntimeError(messages.ANOMALY_NAN.format(node=node.name(), index=i))
