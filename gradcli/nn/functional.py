"""torch.nn.functional: activations and losses from the op table."""

__all__ = []
