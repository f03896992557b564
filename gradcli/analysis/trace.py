"""A backward pass observed node by node: what each node received and what it passed on, in the
order the engine ran them (for explain, graph --values and `why`)."""

import contextlib

from ..engine.autograd import grad as autograd_grad
from ..engine.graph import AccumulateGrad, GradientEdge
from ..engine.graph import reachable_nodes  # (reachable_nodes: for the CLI too)
from ..engine.records import Record


class Step(Record):
    _fields = ("node", "grad_outputs", "grad_inputs")

    def __init__(self, node, grad_outputs, grad_inputs):
        self.node = node
        self.grad_outputs = grad_outputs
        self.grad_inputs = grad_inputs


@contextlib.contextmanager
def tracing(roots, steps):
    """Append a Step to steps for each node a backward pass from the tensors roots runs."""
    handles = []
    for node in reachable_nodes([t.node if type(t) is GradientEdge else t.grad_fn
                                 for t in roots]):
        if type(node) is AccumulateGrad:
            continue

        def hook(grad_inputs, grad_outputs, node=node):
            steps.append(Step(node, tuple(grad_outputs), tuple(grad_inputs)))
        handles.append(node.register_hook(hook))
    try:
        yield steps
    finally:
        for h in handles:
            h.remove()


def traced_grad(output, inputs, grad_output=None, create_graph=False):
    """autograd.grad(output, inputs) that also returns the Steps of the pass."""
    with tracing([output], []) as steps:
        grads = autograd_grad(output, inputs, grad_outputs=grad_output, retain_graph=True,
                              create_graph=create_graph, allow_unused=True)
    return grads, steps


class PassTracer:
    """The program's own backward passes, traced as they run: (roots, steps) for each, while
    installed as the engine's pass observer.  Only the last `limit` passes are kept: their
    steps hold the nodes and gradients of a whole graph, and a training loop makes one pass per
    iteration."""

    def __init__(self, limit=8):
        self.passes = []
        self.limit = limit

    def __call__(self, roots):
        steps = []
        self.passes.append((tuple(roots), steps))
        del self.passes[:-self.limit]
        return tracing(roots, steps)

    def steps_from(self, output):
        """The steps of the passes that started from output (of all passes when None)."""
        return [s for roots, steps in self.passes
                if output is None or any(r is output for r in roots) for s in steps]
