"""torch.autograd.graph: graph node types, hooks on tensors saved for backward, and hooks on
the gradients of several tensors."""

from ..engine.graph import GradientEdge, Node, RemovableHandle, get_gradient_edge, gradient_edge
from ..engine.backward import RunningPasses, current_pass_id, will_execute
from ..engine.saved import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks
from ..engine.tensor import Tensor
from ..engine.torch_classes import torch_repr

__all__ = ["Node", "RemovableHandle", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks", "register_multi_grad_hook", "GradientEdge",
           "get_gradient_edge", "increment_version"]


def increment_version(tensor):
    """Count an in-place change of tensor (or of each tensor of an iterable) made behind
    autograd's back, so that backward through a saved copy of it raises PyTorch's error."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t._counter[0] += 1


class _MultiHandle(RemovableHandle):
    """The handle of a multi-grad hook: remove() removes the hook from every tensor."""

    _torch_name = "torch.autograd.graph._MultiHandle"

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    __repr__ = torch_repr


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call fn once per backward pass for the gradients of several tensors: with mode="all",
    fn(grads) after every one of them that the pass computes has its gradient (None for the
    others); with mode="any", fn(grad) with the first gradient computed.  Tensors that do not
    require grad are ignored.  Returns a handle whose remove() unregisters the hook."""
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    import threading  # (not at start-up: only a multi-grad hook needs it)
    tensors = tuple(tensors)
    lock = threading.Lock()
    if mode == "all":
        count, buffer = {}, {}
        expected = [None]
        nodes = [gradient_edge(t)[0] for t in tensors]
        if None in nodes:
            raise AssertionError("Expected gradient function to be set")

        def inner_hook(index):
            def hook(grad):
                task = current_pass_id()
                with lock:
                    seen = count.get(task, 0)
                    count[task] = seen + 1
                    grads = buffer.setdefault(task, [None] * len(tensors))
                    if seen == 0:  # the first of them this pass: how many it will compute
                        expected[0] = sum(map(will_execute, nodes))
                grads[index] = grad
                if seen == expected[0] - 1:
                    del count[task], buffer[task]
                    fn(grads)
            return hook
        handles = tuple(t.register_hook(inner_hook(i)) for i, t in enumerate(tensors)
                        if t.requires_grad)
    else:
        ran = set()  # the running passes in which fn has run

        def hook(grad):
            task = current_pass_id()
            with lock:
                ran.intersection_update(running[0] for running in RunningPasses.stack)
                if task in ran:
                    return
                ran.add(task)
            fn(grad)
        handles = tuple(t.register_hook(hook) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)
