"""The bottom toolbar: grad mode and default dtype, read live from the engine."""

from ..engine import dtypes
from ..engine.grad_mode import GradMode


def toolbar_fragments(width=80, enabled=None, dtype=None):
    """Formatted-text fragments for the toolbar, shortened to fit `width` columns: grad mode
    and default dtype as given (the REPL's evaluator reports them), else this process's."""
    enabled = GradMode.enabled if enabled is None else enabled
    grad = "enabled" if enabled else "no_grad"
    dtype = dtype or dtypes.get_default_dtype().name
    grad_style = "class:toolbar.on" if enabled else "class:toolbar.off"
    full = [("class:toolbar", " grad: "), (grad_style, grad),
            ("class:toolbar", "  dtype: "), ("class:toolbar.value", dtype),
            ("class:toolbar", "   :help  Ctrl-R search  Ctrl-D exit ")]
    if sum(len(text) for _, text in full) <= width:
        return full
    short = [("class:toolbar", " "), (grad_style, grad), ("class:toolbar", " "),
             ("class:toolbar.value", dtype)]
    return short if sum(len(text) for _, text in short) <= width else [(grad_style, grad[:width])]
