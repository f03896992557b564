"""The plot's colours on a terminal: the output's line and legend mark in one, the derivative's
in another; plain text (piped, --no-color) has none."""

import io

from rich.console import Console

from gradcli.render.console import Renderer
from gradcli.render.plot import COLOURS

PLOT = "1e+05 ***+++---|\n* y   + dy/dx"


def test_a_terminal_gets_the_series_in_their_colours():
    out = io.StringIO()
    renderer = Renderer(mode="rich", out=out)
    renderer._console = Console(file=out, force_terminal=True, color_system="standard",
                                highlight=False)
    renderer.text(PLOT, highlights=COLOURS)
    text = out.getvalue()
    assert "\x1b[1;36m***\x1b[0m" in text and "\x1b[35m+++\x1b[0m" in text
    assert "\x1b[1;36m*\x1b[0m y" in text and "\x1b[35m+\x1b[0m dy/dx" in text
    assert "1e+05" in text  # a number's sign is not a derivative mark


def test_plain_output_has_no_colours():
    out = io.StringIO()
    Renderer(mode="plain", out=out).text(PLOT, highlights=COLOURS)
    assert out.getvalue() == PLOT + "\n"


def test_the_braille_panels_get_their_colours_on_a_terminal():
    import pytest
    pytest.importorskip("plotille")
    from gradcli.analysis.plot import Curve
    from gradcli.render.plot import render_plot
    xs = [i / 10 for i in range(-10, 11)]
    curve = Curve("x", "y", xs, [x * x for x in xs], [2 * x for x in xs])
    out = io.StringIO()
    renderer = Renderer(mode="rich", out=out)
    renderer._console = Console(file=out, force_terminal=True, color_system="standard",
                                highlight=False, width=120)
    renderer.text(render_plot(curve, 60, 20, color=True), ansi=True)
    text = out.getvalue()
    assert "\x1b[36m" in text and "\x1b[35m" in text  # cyan y, magenta dy/dx
    plain = io.StringIO()
    Renderer(mode="plain", out=plain).text(render_plot(curve, 60, 20), ansi=False)
    assert "\x1b[" not in plain.getvalue()
