"""Graph nodes (grad_fn objects), saved tensors, hooks, and the backward engine.

Parents are tuples (`next_functions`), the traversal is iterative, gradients live in a local
dictionary during a pass and accumulate only into leaves and retained tensors.  Nodes hold no
reference to the tensors they produce (a saved output is stored as its array), so graphs have no
reference cycles and are freed by reference counting alone.
"""

import heapq
import itertools
import re
import warnings

from . import messages
from .grad_mode import GradMode

_sequence = itertools.count()
RELEASED = "released"


class AnomalyMode:
    """State of autograd.set_detect_anomaly: record where each node was made, check for NaN."""
    enabled = False
    check_nan = True
    location = None  # callable returning a description of the current program location


class RemovableHandle:
    """Returned by register_hook: `remove()` takes the hook out again."""
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


def _add_hook(hooks, fn):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class Node:
    """A node of the backward graph; `grad_fn` of the tensors an operation produced."""

    # Rarely set attributes live in the instance dict, with these class-level defaults, so
    # making a node costs two attribute stores.
    __slots__ = ("next_functions", "_seq", "__dict__", "__weakref__")
    _pre_hooks = _hooks = _tensor_hooks = _retains = _anomaly = metadata = None
    num_outputs = 1

    def __init__(self):
        self._seq = next(_sequence)

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after this node; it may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = {}
        return _add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) runs before this node; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return _add_hook(self._pre_hooks, fn)

    def _tensor_hook_dict(self, output_nr):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        return self._tensor_hooks.setdefault(output_nr, {})

    def short_name(self):
        """The node name without its `Backward0` suffix, as PyTorch's messages print it."""
        return re.sub(r"Backward\d*$", "", self.name())

    def release(self):
        """Free saved tensors after a backward pass without retain_graph."""


class AccumulateGrad(Node):
    """The sink of a leaf tensor: adds incoming gradients into `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        Node.__init__(self)
        self._seq = float("inf")  # runs as soon as it is ready, like PyTorch's
        self.variable = variable
        self.next_functions = ()

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def accumulate(self, grad, create_graph):
        var = self.variable
        old = var._grad
        if old is None:
            # PyTorch stores a copy; with create_graph the copy is differentiable (CopyBackwards)
            var._grad = (_copy_with_graph(grad) if create_graph and grad.requires_grad
                         else _fresh(grad))
            var._grad_count = 1
        else:
            if create_graph:
                var._grad = old + grad
            else:  # in place, keeping the old gradient's grad_fn, as PyTorch's `grad += new`
                old._data += grad._data
                old._version[0] += 1
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


class SavedTensor:
    """A tensor saved for backward, with its version at the time it was saved."""

    __slots__ = ("tensor", "version", "saved_version", "origin")

    def __init__(self, tensor):
        self.tensor = tensor
        self.version = tensor._version
        self.saved_version = tensor._version[0]
        self.origin = None  # PyTorch names the tensor's grad_fn at the time of the error

    def check_version(self):
        if self.version[0] != self.saved_version:
            t = self.tensor
            node, nr = self.origin or (t.grad_fn, t._output_nr)
            origin = "" if node is None else messages.INPLACE_ORIGIN.format(
                output_nr=nr, node=node.short_name())
            raise RuntimeError(messages.INPLACE_MODIFIED.format(
                tensor_type="torch." + t.dtype.tensor_type,
                sizes=", ".join(map(str, t._data.shape)), origin=origin,
                current=self.version[0], saved=self.saved_version))

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
        t._version = self.version
        return t


def gradient_edge(t):
    """The (node, input_nr) a gradient for tensor t flows into, or (None, 0)."""
    fn = t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    if t.requires_grad:
        return t._accumulator(), 0
    return None, 0


# ----------------------------------------------------------------------------------------------
# The backward pass

def _collect(roots, targets):
    """Count dependencies of every node reachable from roots.  With targets (autograd.grad or
    backward(inputs=...)), keep only the nodes on a path to a target."""
    deps = {}
    seen = set()
    order = []
    stack = [(r, False) for r in roots]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                stack.append((child, False))
    if targets is None:
        needed = None
    else:
        needed = set()
        for node in order:  # children come before parents in this post-order
            if node in targets or any(c in needed for c, _ in node.next_functions if c is not None):
                needed.add(node)
    for node in order:
        if needed is not None and node not in needed:
            continue
        for child, _ in node.next_functions:
            if child is not None and (needed is None or child in needed):
                deps[child] = deps.get(child, 0) + 1
    return deps, needed


def _accumulate_buffer(buffers, node, nr, grad, create_graph):
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node.num_outputs
    old = buf[nr]
    if old is None:
        buf[nr] = grad
    else:
        with _grad_mode(create_graph):
            buf[nr] = old + grad


class _grad_mode:
    __slots__ = ("mode", "prev")

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = GradMode.enabled
        GradMode.enabled = self.mode

    def __exit__(self, *exc):
        GradMode.enabled = self.prev


def _call_tensor_hooks(node, grads):
    hooks = node._tensor_hooks
    if hooks:
        for nr, fns in hooks.items():
            for fn in list(fns.values()):
                if grads[nr] is None:
                    break
                new = fn(grads[nr])
                if new is not None:
                    grads[nr] = new
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
        capture = {}
        targets = set()
        for i, t in enumerate(inputs):
            node, nr = gradient_edge(t)
            if node is None:
                raise RuntimeError(messages.INPUT_NO_GRAD)
            capture.setdefault(node, []).append((nr, i))
            targets.add(node)
    root_nodes = [n for n, _ in root_edges]
    deps, needed = _collect(root_nodes, targets)
    buffers = {}
    for (node, nr), g in zip(root_edges, grads):
        if needed is None or node in needed:
            _accumulate_buffer(buffers, node, nr, g, create_graph)
    results = [None] * len(inputs) if inputs is not None else None
    ready = []
    for node in dict.fromkeys(root_nodes):
        if deps.get(node, 0) == 0 and (needed is None or node in needed):
            heapq.heappush(ready, (-node._seq, id(node), node))
    prev_mode = GradMode.enabled
    GradMode.enabled = create_graph
    heappush, heappop = heapq.heappush, heapq.heappop
    nxt = None  # a lone ready node is run next without going through the heap
    try:
        while nxt is not None or ready:
            if nxt is not None:
                node, nxt = nxt, None
            else:
                node = heappop(ready)[2]
            grads_out = buffers.pop(node, None)
            if grads_out is None:
                grads_out = [None] * node.num_outputs
            if node._tensor_hooks or node._retains:
                _call_tensor_hooks(node, grads_out)
            if node._pre_hooks:
                for fn in list(node._pre_hooks.values()):
                    new = fn(tuple(grads_out))
                    if new is not None:
                        grads_out = list(new)
            if capture is not None and node in capture:
                for nr, i in capture[node]:
                    g = grads_out[nr]
                    results[i] = g
                    if accumulate and g is not None:
                        _accumulate_into_input(inputs[i], node, g, create_graph)
            if type(node) is AccumulateGrad:
                if capture is None and grads_out[0] is not None:
                    node.accumulate(grads_out[0], create_graph)
                continue
            if grads_out[0] is None and all(g is None for g in grads_out):
                grads_in = (None,) * len(node.next_functions)
            else:
                grads_in = node.apply(grads_out)
                if AnomalyMode.enabled:
                    _check_nan(node, grads_in)
            if node._hooks:
                for fn in list(node._hooks.values()):
                    new = fn(tuple(grads_in), tuple(grads_out))
                    if new is not None:
                        grads_in = tuple(new)
            if not retain_graph:
                node.release()
            for (child, nr), g in zip(node.next_functions, grads_in):
                if child is None or (needed is not None and child not in needed):
                    continue
                if g is not None:
                    buf = buffers.get(child)
                    if buf is None:
                        buf = buffers[child] = [None] * child.num_outputs
                    old = buf[nr]
                    if old is None:
                        buf[nr] = g
                    else:
                        buf[nr] = old + g
                left = deps[child] - 1
                deps[child] = left
                if left == 0:
                    if nxt is None and not ready:
                        nxt = child
                    else:
                        if nxt is not None:
                            heappush(ready, (-nxt._seq, id(nxt), nxt))
                            nxt = None
                        heappush(ready, (-child._seq, id(child), child))
    finally:
        GradMode.enabled = prev_mode
    if inputs is not None and not accumulate:
        for i, g in enumerate(results):
            if g is None and not allow_unused:
                raise RuntimeError(messages.UNUSED_INPUT.format(index=i))
            if g is not None and not create_graph and g.requires_grad:
                results[i] = g.detach()
    return results


def _accumulate_into_input(t, node, g, create_graph):
    """backward(inputs=[t]): t's .grad receives the gradient whether t is a leaf or not."""
    if type(node) is AccumulateGrad:
        node.accumulate(g, create_graph)
    elif t._grad is None:
        t._grad = g if create_graph else _fresh(g)
    else:
        t._grad = t._grad + g


def _check_nan(node, grads_in):
    import numpy as np
    if not AnomalyMode.check_nan:
        return
    for i, g in enumerate(grads_in):
        if g is not None and np.isnan(g._data).any():
            where = node._anomaly
            if where:
                warnings.warn(
                    f"Error detected in {node.name()}. Traceback of forward call that caused the "
                    f"error:\n{where}", UserWarning, stacklevel=2)
            raise RuntimeError(messages.ANOMALY_NAN.format(node=node.name(), index=i))
