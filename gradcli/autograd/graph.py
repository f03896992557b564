"""torch.autograd.graph: graph node types, and the hooks on tensors saved for backward."""

from ..engine.graph import (Node, RemovableHandle, disable_saved_tensors_hooks, save_on_cpu,
                            saved_tensors_hooks)

__all__ = ["Node", "RemovableHandle", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks"]
