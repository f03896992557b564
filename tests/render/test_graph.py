"""ASCII, DOT and Mermaid drawings of backward graphs built with the Python API."""

import gradcli as torch
from gradcli.analysis.record import Recording
from gradcli.analysis.trace import traced_grad
from gradcli.render.graph import GraphView, draw_ascii, draw_dot, draw_mermaid


def _view(with_values=True):
    x = torch.tensor(3., requires_grad=True)
    with Recording() as rec:
        a = x * x
        z = a + x
    grads, steps = traced_grad(z, [x])
    names = {id(x): "x", (a.grad_fn, 0): "a", (z.grad_fn, 0): "z"}
    return GraphView([("z", z)], names, rec, steps, with_values=with_values), grads


def test_ascii_tree_draws_a_shared_leaf_once_and_references_it():
    view, _ = _view(with_values=False)
    lines = draw_ascii(view).splitlines()
    assert lines[0] == "z"
    assert lines[1].endswith("AddBackward0  z")
    assert sum("x (leaf, AccumulateGrad)" in line for line in lines) == 1
    assert any("(see [1])" in line for line in lines)


def test_ascii_values_show_value_and_gradient_on_every_node():
    view, grads = _view()
    text = draw_ascii(view)
    assert "AddBackward0  z  value=12.  grad=1." in text
    assert "MulBackward0  a  value=9.  grad=1." in text
    assert "x (leaf, AccumulateGrad)  value=3.  grad=7." in text
    assert grads[0].item() == 7.0


def test_ascii_only_uses_no_box_drawing_characters():
    view, _ = _view()
    assert all(ord(c) < 128 for c in draw_ascii(view, ascii_only=True))


def test_dot_and_mermaid_name_every_node_and_edge_deterministically():
    view, _ = _view()
    dot = draw_dot(view)
    assert dot.startswith("digraph backward {") and dot.rstrip().endswith("}")
    assert dot.count("->") == 5  # x->mul twice (x*x), x->add, mul->add, add->output
    assert draw_dot(_view()[0]) == dot
    mermaid = draw_mermaid(view)
    assert mermaid.startswith("flowchart BT")
    assert "AddBackward0" in mermaid and "-->" in mermaid
