"""torch.autograd.graph: the node type of the backward graph."""

from ..engine.graph import Node, RemovableHandle

__all__ = ["Node", "RemovableHandle"]
