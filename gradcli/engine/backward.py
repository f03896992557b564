"""The backward pass: collecting the nodes a pass needs and their dependencies, running them in
PyTorch's order (a priority queue by sequence number; a pass of one root without targets first
without counting, _run_by_sequence), hooks on tensors and nodes (their calls and checks:
gradcli.engine.hook_calls), anomaly mode's checks, and autograd.graph's current pass queries
(will_execute, current_pass_id).  Nodes and gradient edges are gradcli.engine.graph's."""

import gc
import heapq
import itertools
import warnings

from . import messages
from .grad_mode import GradMode
from .graph import (UNARY, AccumulateGrad, AnomalyMode, GradientEdge, NodeRecorder, _add_into,
                    _formula_made, _tensor_gradient, gradient_edge)
from .grad_sequence import grad_in_sequence
from .hook_calls import _call_post_accumulate_hooks, _call_tensor_hooks, _check_hook_values
from .tangents import ForwardAD


class _Donation:
    """The gradient whose array the node being run may compute its formula's result into (a
    slotted instance, as GradMode): the engine's own gradient (see _run's `owned`), offered to
    a node whose one formula that runs reads it once, as an operand of + - * /, or passes it on
    (the node's takes_gradient()).  The operator's op, finding its operand here, takes it (and
    clears it) and computes into its array, as hand-written NumPy's `g *= ...` does: a big
    backward pass then allocates an array where a formula needs a new value (`self.cos()`),
    not one per node."""
    __slots__ = ("tensor",)

    def __init__(self):
        self.tensor = None


Donation = _Donation()
# gradients smaller than this are neither owned for a formula nor offered to one (the checks
# would cost more than an allocation saves)
DONATE_MIN_SIZE = 1 << 14


def _offered(apply_f, node, g):
    """apply_f(node, g), its formula offered g's array (Donation)."""
    Donation.tensor = g
    try:
        return apply_f(node, g, False)
    finally:
        Donation.tensor = None


def _passed_on(given, gi, grads_in):
    """Whether gradient gi, which a node's formulas returned, is the gradient given they were
    given or a tensor of its array (a formula that computed into it, see Donation), returned
    for one input only: when the engine owned given, it owns gi."""
    d = given._data
    if gi is not given and gi._data is not d:
        return False
    seen = 0
    for other in grads_in:
        if other is not None and type(other) is not float and other._data is d:
            seen += 1
    return seen == 1


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
        if fns is None:  # the first pass over a _PairNode (its _build_edges, inline)
            fb = node._fn_b
            fns = node._next_fns = (node._fn_a,) if fb is UNARY else (node._fn_a, fb)
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
        if fns is None:  # the first pass over a _PairNode (its _build_edges, inline)
            fb = node._fn_b
            fns = node._next_fns = (node._fn_a,) if fb is UNARY else (node._fn_a, fb)
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
                 allow_unused=False, counts=None):
    """Run the backward pass from root tensors with their gradients.

    accumulate=True (Tensor.backward / autograd.backward) adds into the `.grad` of leaves (or only
    of `inputs` when given); accumulate=False (autograd.grad) returns the gradients of `inputs`.
    counts: a dict that passes over one graph from the same roots to the same inputs share
    (functional.jacobian's rows, with retain_graph and accumulate=False): the first pass keeps
    there the dependency counts and needed nodes _collect found and the inputs' nodes, the
    others start from a copy of the counts instead of walking the graph again (a node's edges
    never change).
    """
    root_edges = [gradient_edge(t) for t in roots]
    targets = None
    capture = None
    if counts:  # (a later pass over the graph: the first one's targets and captured inputs)
        targets, capture = counts["targets"], counts["capture"]
    elif inputs is not None:
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
    sequence = ran = None  # (grad_in_sequence's pass: its state, the nodes it ran)
    needed = ()
    try:
        # one root without targets, outside create_graph and anomaly mode: first without
        # counting dependencies (_run_by_sequence)
        by_sequence = (counted is not None and len(root_nodes) == 1 and not create_graph
                       and not AnomalyMode.enabled)
        # autograd.grad from one root: first without the walk (grad_in_sequence)
        if (capture is not None and not counts and not passes and len(root_nodes) == 1
                and not AnomalyMode.enabled and NodeRecorder.callback is None):
            GradMode.enabled = create_graph
            sequence = grad_in_sequence(root_nodes[0], grads[0], capture, create_graph,
                                        DONATE_MIN_SIZE)
            if sequence is not None:
                ran = sequence[1]
        if sequence is not None and sequence[0]:  # (it has run the whole pass)
            deps = needed = None
        elif counted is not None:
            if not by_sequence:
                _count_dependencies(root_nodes, counted)
            deps = needed = None
        elif counts:
            deps, needed = counts["deps"].copy(), counts["needed"]
        else:
            deps, needed = _collect(root_nodes, targets)
            if counts is not None:
                counts.update(deps=deps.copy(), needed=needed, targets=targets, capture=capture)
        running = [next(_pass_ids), root_nodes, deps if counted is None else counted, needed,
                   accumulate]
        passes.append(running)
        GradMode.enabled = create_graph
        replayed = None
        if sequence is not None:
            buffers = sequence[2]
            if not sequence[0]:  # (the nodes it ran only count their children down)
                replayed = dict.fromkeys(n for n in ran if needed is None or n in needed)
        else:
            buffers = {}
            for (node, nr), g in zip(root_edges, grads):
                if needed is None or node in needed:
                    _accumulate_buffer(buffers, node, nr, g)
        if by_sequence:
            _run_by_sequence(root_nodes, buffers, counted, retain_graph)
        elif sequence is not None and sequence[0]:
            for node, places in capture.items():
                g = buffers.get(node)
                for _, i in places:
                    results[i] = _tensor_gradient(g) if type(g) is float else g
        else:
            _run(_initial_ready(root_nodes, deps, needed), deps, needed, buffers, capture,
                 results, retain_graph, create_graph, replayed)
        finished = True
    finally:
        if ran and not retain_graph:  # (released once the pass knows which lead to an input)
            for node in ran if needed is None else [n for n in ran if n in needed]:
                node.release()
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


def _initial_ready(root_nodes, deps, needed):
    """The ready heap a pass starts from: its roots that no other root points at."""
    ready = []
    for node in dict.fromkeys(root_nodes):
        if ((node._deps if deps is None else deps.get(node, 0)) == 0
                and (needed is None or node in needed)):
            heapq.heappush(ready, _ready_entry(node))
    return ready


def _store_leaf_gradient(node, g, create_graph, mine=False):
    """Run AccumulateGrad node, without hooks, on its gradient g (mine: the engine's own; a
    float gradient is made a tensor of the engine's own)."""
    if type(g) is float:
        g, mine = _tensor_gradient(g), True
    node.accumulate(g, create_graph, mine)


def _run(ready, deps, needed, buffers, capture, results, retain_graph, create_graph,
         replayed=None):
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
    given, nothing the node saved, no view; outside create_graph), or such a gradient a node's
    formula passed on (returned, or computed into: see Donation).  A further gradient for such
    a node is added into its array, a big one is offered to the node's formula (Donation), and
    an AccumulateGrad stores it as the leaf's `.grad` without a copy.  Every
    other gradient may be referred to elsewhere (a VJP may return its gradient or a saved
    tensor, a hook may keep what it saw), so it is never written.  A node whose formulas may
    own their results releases its saved values only once its gradients are passed on (what
    it saved tells which results are not its formulas' own).

    replayed: the nodes that have run already (_run_by_sequence), each to None (it only
    counts its children down), to (its gradients, the gradient it was given) (its formulas
    have run: its gradients are passed on) or to _STOP (return there: its error is raised);
    see _resume."""
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
        if replayed and node in replayed:
            given = replayed.pop(node)
            if given is _STOP:
                return
            if given is None:
                grads_in = None  # (its children's counts go down)
            else:  # (its formulas have run, given the tensor `given`)
                grads_in, given = given
                buffer_pop(node, None)
                mine = False
                big = given._data.size >= DONATE_MIN_SIZE
        elif single and not node._hooked and (capture is None or node not in capture):
            # the common case, without hooks, retained gradients or captured inputs
            g = buffer_pop(node, None)
            mine = False
            if owned and node in owned:
                owned.discard(node)
                mine = True
            if type(node) is AccumulateGrad:
                if capture is None and g is not None:
                    _store_leaf_gradient(node, g, create_graph, mine)
                continue
            given = None  # the gradient node's formulas were given, when they may own theirs
            free = not retain_graph  # (release what the node saved now; given: once its
            if g is None:            #  gradients are passed on, what it saved tells which
                grads_in = None      #  are its formulas' own)
            else:
                apply_f = node.apply_f
                if apply_f is None:
                    if type(g) is float:
                        g = _tensor_gradient(g)
                    grads_in = node.apply([g])
                elif create_graph or type(g) is float:
                    grads_in = apply_f(node, g, free)  # (which releases the node when free)
                    free = False
                else:
                    given = g
                    free = False
                    big = g._data.size >= DONATE_MIN_SIZE
                    # a big gradient of the engine's own: the formula may compute into it
                    if mine and big and ForwardAD.level is None and node.takes_gradient():
                        grads_in = _offered(apply_f, node, g)
                    else:
                        grads_in = apply_f(node, g, False)
                g = apply_f = None
                if AnomalyMode.enabled:
                    _check_nan(node, grads_in)
            if free:
                node.release()
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
                        # a gradient the formula made, or the engine's own passed on, is the
                        # engine's: a leaf may keep it, a later gradient for child is added
                        # into it, child's formula may compute into it (decided where it
                        # matters; big: the node was given a gradient to offer a formula)
                        if (given is not None and type(g) is not float
                                and (big or type(child) is AccumulateGrad
                                     or (child._deps if deps is None else deps[child]) > 1)
                                and (_formula_made(node, given, g, grads_in)
                                     or (big and mine and _passed_on(given, g, grads_in)))):
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


_UNSEEN = object()  # (_run_by_sequence: a node the pass has not reached yet)


def _run_by_sequence(root_nodes, buffers, counted, retain_graph):
    """The pass of one root without targets outside create_graph, anomaly mode and any other
    pass (Tensor.backward()), run first without counting dependencies.

    PyTorch runs, of the nodes that are ready, the one of the highest sequence number, a node
    being ready once every node of the pass that points at it has run.  A node's children are
    made before it, so their sequence numbers are lower (AccumulateGrad's apart: PyTorch runs
    those as soon as they are ready); then, of the nodes the pass has reached and not yet run,
    the one of the highest number is ready (a node pointing at it has a higher number, so it
    has run: else it would be the one), and taking nodes in that order, from a heap of the nodes
    reached, is PyTorch's order without counting anything.  A leaf's AccumulateGrad is the
    exception: when it is ready depends on every node that points at it.  Here the float
    gradients of those wait in `buffers` until the pass ends, and are stored then, in the order
    first reached; nothing can tell the difference while nothing but the usual nodes run on
    float gradients (no hook, no custom function, no anomaly check, no tensor gradient).  At
    the first node that is not so (or an AccumulateGrad with hooks or given a tensor), the pass
    counts the dependencies after all and carries on from PyTorch's state at that point
    (_resume); an error does so too, then is raised."""
    root = root_nodes[0]
    heappush, heappop = heapq.heappush, heapq.heappop
    buffer_get = buffers.get
    buffer_pop = buffers.pop
    free = not retain_graph
    ready = []
    nxt = root
    node = applied = None
    try:
        while True:
            if nxt is not None:
                node, nxt = nxt, None
            elif ready:
                node = heappop(ready)[1]
            else:
                break
            g = buffer_pop(node, None)
            apply_f = node.apply_f
            release = False
            if apply_f is None or node._hooked:  # (a node with apply_f has one output)
                limit = node._seq  # (node has not run)
                break
            fns = node._next_fns
            if fns is None:  # (a _PairNode's edges, as in _count_dependencies)
                fb = node._fn_b
                fns = node._next_fns = (node._fn_a,) if fb is UNARY else (node._fn_a, fb)
            if type(g) is float:
                grads_in = apply_f(node, g, free)
            elif g is None:
                grads_in = (None,) * len(fns)
                release = free
            elif node is root:  # (its tensor gradient: _run's `given`, which may own results)
                grads_in = apply_f(node, g, False)
                if any(gi is not None and type(gi) is not float for gi in grads_in):
                    applied = grads_in, g  # (passed on there, as _run passes them)
                    limit = node._seq
                    break
                release = free
            else:
                limit = node._seq
                break
            limit = None
            for child, nr, gi in zip(fns, node._next_nrs, grads_in):
                if child is None:
                    continue
                if type(child) is AccumulateGrad:
                    old = buffer_get(child)
                    if type(old) is float and type(gi) is float:
                        buffers[child] = old + gi
                        continue
                    if child._hooked or (gi is not None and type(gi) is not float):
                        limit = node._seq - 1  # (node has run: carry on after it)
                    if gi is not None:
                        buffers[child] = gi if old is None else _sum_gradients(old, gi)
                    continue
                old = buffer_get(child, _UNSEEN)
                if old is _UNSEEN:  # reached first
                    if child.num_outputs == 1:
                        buffers[child] = gi
                    else:
                        _accumulate_buffer(buffers, child, nr, gi if type(gi) is not float
                                           else _tensor_gradient(gi))
                    if nxt is None and not ready:
                        nxt = child
                    else:
                        if nxt is not None:
                            heappush(ready, (-nxt._seq, nxt))
                            nxt = None
                        heappush(ready, (-child._seq, child))
                elif gi is not None:
                    if type(old) is list:
                        _accumulate_buffer(buffers, child, nr, gi if type(gi) is not float
                                           else _tensor_gradient(gi))
                    else:
                        buffers[child] = gi if old is None else _sum_gradients(old, gi)
            if release:
                node.release()
            if limit is not None:
                break
    except BaseException:
        if node is not None:  # store what PyTorch would have stored before the error
            _resume(root_nodes, buffers, counted, node._seq, retain_graph, True)
        raise
    if nxt is None and not ready and limit is None:  # (the pass has ended)
        for node, g in buffers.items():  # (the leaves' AccumulateGrads)
            if g is not None:
                _store_leaf_gradient(node, g, False)
        return
    if g is not None and limit == node._seq:  # (the gradient of the node that has not run)
        buffers[node] = g
    _resume(root_nodes, buffers, counted, limit, retain_graph, applied=applied)


def _sum_gradients(old, g):
    """The sum of two gradients for one node (float gradients added as floats)."""
    if type(old) is float:
        if type(g) is float:
            return old + g
        old = _tensor_gradient(old)
    elif type(g) is float:
        g = _tensor_gradient(g)
    return old + g


def _resume(root_nodes, buffers, counted, limit, retain_graph, error=False, applied=None):
    """Carry _run_by_sequence's pass on in PyTorch's way from where it stopped (the nodes of
    sequence numbers above limit have run): count the dependencies, and run the engine loop
    from the start, the nodes that have run only counting their children down (PyTorch's
    ready heap, as it is at that point), the AccumulateGrads as they become ready.  error: stop
    at the first node that has not run (whose error is raised); applied: that node's formulas
    have run (_run)."""
    _count_dependencies(root_nodes, counted)
    replayed = {}
    for node in itertools.chain(root_nodes, counted):
        if type(node) is not AccumulateGrad:
            if node._seq > limit:
                replayed[node] = None
            elif node._seq == limit and (error or applied is not None):
                replayed[node] = _STOP if error else applied
    _run(_initial_ready(root_nodes, None, None), None, None, buffers, None, None, retain_graph,
         False, replayed)


_STOP = object()  # (_resume: the node whose error is raised)
