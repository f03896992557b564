"""The bottom toolbar: grad mode and default dtype, read live from the engine."""

from ..engine import dtypes
from ..engine.grad_mode import GradMode


def toolbar_fragments(width=80):
    """Formatted-text fragments for the toolbar, shortened to fit `width` columns."""
    grad = "enabled" if GradMode.enabled else "no_grad"
    dtype = dtypes.get_default_dtype().name
    grad_style = "class:toolbar.on" if GradMode.enabled else "class:toolbar.off"
    full = [("class:toolbar", " grad: "), (grad_style, grad),
            ("class:toolbar", "  dtype: "), ("class:toolbar.value", dtype),
            ("class:toolbar", "   :help  Ctrl-R search  Ctrl-D exit ")]
    if sum(len(text) for _, text in full) <= width:
        return full
    short = [("class:toolbar", " "), (grad_style, grad), ("class:toolbar", " "),
             ("class:toolbar.value", dtype)]
    return short if sum(len(text) for _, text in short) <= width else [(grad_style, grad[:width])]


def bottom_toolbar():
    """The PromptSession bottom_toolbar callable (sized to the current terminal)."""
    from prompt_toolkit.application import get_app_or_none
    app = get_app_or_none()
    width = app.output.get_size().columns if app is not None else 80
    return toolbar_fragments(width)
