"""autograd.grad's pass run first in sequence order, without the walk over the whole graph that
counts each node's dependencies and finds the nodes that lead to an input (backward._collect);
backward.run_backward carries the pass on in the usual way where this one stops.

PyTorch runs, of the nodes that are ready, the one of the highest sequence number, and in
autograd.grad only the nodes that lead to an input.  A node's children are made before it, so of
the nodes a pass has reached and not yet run, the one of the highest number is ready (see
backward._run_by_sequence, Tensor.backward's pass of one root); and when every input is a leaf
(its AccumulateGrad node) and every leaf the pass reaches is an input, every node it reaches
leads to one.  So the pass runs the reached nodes from a heap, in that order, until the first
sign that it may have run a node PyTorch would not have: a leaf that is not an input, a node
without children (a sink that is no input), and also before anything it does not handle (a
node with hooks or without an `apply_f`, several outputs, an error, a gradient outside
create_graph big enough for the engine loop to let a formula compute into it).  Nothing it runs is
released before the pass knows which nodes lead to an input (at the end, or after the walk the
caller makes where it stops), and a gradient of a node that does not lead to one goes no
further than the buffers of nodes that do not either."""

import heapq

from .graph import UNARY, AccumulateGrad, tensor_gradient

_UNSEEN = object()  # (a node the pass has not reached yet)


def grad_in_sequence(root, grad, targets, create_graph, big):
    """Run the pass of autograd.grad from root (a node, given the tensor grad) towards the
    AccumulateGrad nodes `targets`, in sequence order (see the module's text).  Returns None
    where it does not apply (a root of several outputs; a target that is not a leaf's node or
    has hooks), else (ended, ran, buffers): ended when the pass is over; ran the nodes that
    have run, their gradients passed on; buffers the gradients of the nodes reached and not
    run (the targets' too), as backward._run keeps them.  Outside create_graph, a gradient of
    `big` elements or more is left to the engine loop (which may let a formula compute into
    it, see backward.Donation); gradients are float gradients where they can be (backward._run)."""
    if root.num_outputs != 1:
        return None
    for node in targets:
        if type(node) is not AccumulateGrad or node._hooked:
            return None
    heappush, heappop = heapq.heappush, heapq.heappop
    buffers = {root: grad}
    buffer_get = buffers.get
    buffer_pop = buffers.pop
    ran = []
    ready = [(-root._seq, root)]  # (the nodes reached and not run, by sequence number)
    while ready:
        node = heappop(ready)[1]
        apply_f = node.apply_f
        if apply_f is None or node._hooked:  # (apply_f: a node of one output)
            return False, ran, buffers
        fns = node._next_fns
        if fns is None:  # (a _PairNode's edges, as in backward._count_dependencies)
            fb = node._fn_b
            fns = node._next_fns = (node._fn_a,) if fb is UNARY else (node._fn_a, fb)
        if fns[0] is None and not any(c is not None for c in fns):  # (a sink but no input's)
            return False, ran, buffers
        g = buffer_pop(node)
        if type(g) is not float and g is not None and not create_graph and (
                g._data.size >= big):  # (the engine loop's to offer: backward._run)
            buffers[node] = g
            return False, ran, buffers
        if g is None:
            grads_in = (None,) * len(fns)
        else:
            try:
                grads_in = apply_f(node, g, False)
            except Exception:  # (raised again by the engine loop if the node leads to an input)
                buffers[node] = g
                return False, ran, buffers
        ran.append(node)
        foreign = False  # (a child that is a leaf's node but no input's)
        for child, nr, gi in zip(fns, node._next_nrs, grads_in):
            if child is None:
                continue
            if type(child) is AccumulateGrad:
                if child not in targets:
                    foreign = True
                elif gi is not None:
                    old = buffer_get(child)
                    buffers[child] = gi if old is None else old + gi
                continue
            old = buffer_get(child, _UNSEEN)
            if old is _UNSEEN:  # reached first: run in sequence order
                if child.num_outputs == 1:
                    buffers[child] = gi
                else:  # (a buffer per output, as the engine loop's; the pass stops there)
                    old = buffers[child] = [None] * child.num_outputs
                    old[nr] = None if gi is None else tensor_gradient(gi)
                heappush(ready, (-child._seq, child))
            elif gi is not None:
                if type(old) is list:
                    gi = tensor_gradient(gi)
                    old[nr] = gi if old[nr] is None else old[nr] + gi
                else:
                    buffers[child] = gi if old is None else old + gi
        if foreign:
            return False, ran, buffers
    return True, ran, buffers
