"""Tensor values as text (the engine's: gradcli.engine.values), as the renderers use them."""

from ..engine.values import short_value, to_json, value_text, wrt  # noqa: F401

__all__ = ["value_text", "short_value", "to_json", "wrt"]
