"""gradcli.lang.program_text: what a program's text says at a place, read from its tree (for the
`hint:` lines: tests/cli/test_hints.py checks the hints themselves)."""

from gradcli.lang.program_text import failing, program_fragments


def test_the_failing_statement_is_the_one_at_the_column():
    stmt, expr = failing("y = x*2; x.add_(1)", column=10)
    assert [c.text for c in stmt.calls()] == ["x.add_(1)"]
    assert stmt.names() == ["x"]
    stmt, expr = failing("y = x*2; x.add_(1)")          # no column: the whole line
    assert stmt.names() == ["y", "x", "x"]


def test_the_failing_expression_is_what_starts_at_the_column():
    stmt, expr = failing("z = a.sum().backward() + b.backward(g)", column=26)
    assert [c.receiver for c in stmt.calls({"backward"})] == ["a.sum()", "b"]
    assert [c.receiver for c in expr.calls({"backward"})] == ["b"]


def test_calls_read_receiver_method_and_arguments_as_written():
    stmt, _ = failing("g = torch.autograd.grad((a*b).sum(), [x, w], grad_outputs=o)")
    grad, total = stmt.calls()
    assert (grad.receiver, grad.method, grad.args) == \
        ("torch.autograd", "grad", "(a*b).sum(), [x, w], grad_outputs=o")
    assert [p.text for p in grad.positional] == ["(a*b).sum()", "[x, w]"]
    assert grad.positional[1].elements == ["x", "w"]
    assert grad.keywords["grad_outputs"].text == "o"
    assert (total.receiver, total.receiver_root, total.text) == ("(a*b)", "a", "(a*b).sum()")


def test_assignments_in_place_keep_the_operator_as_written():
    stmt, _ = failing("h ^= 2")
    (change,) = stmt.assignments_in_place()
    assert (change.root, change.target, change.text, change.replacement) == \
        ("h", "h", "h ^= 2", "h = h ^ 2")
    stmt, _ = failing("w.data[0] *= (a + b)")
    (change,) = stmt.assignments_in_place()
    assert (change.root, change.target, change.replacement) == ("w", "w.data[0]", None)
    stmt, _ = failing("x[0] = 5")
    assert [(c.root, c.target) for c in stmt.assignments_in_place()] == [("x", "x[0]")]


def test_a_statement_of_several_lines_is_read_whole_from_the_program():
    program = "y = x.exp()\nz = torch.autograd.grad(y.sum(),\n                        [x, w])\n"
    stmt, _ = failing("                        [x, w])", 25, program, 3)
    assert [c.args for c in stmt.calls({"grad"})] == ["y.sum(),\n                        [x, w]"]
    stmt, _ = failing("                        [x, w])", 25)   # alone, the line says nothing
    assert stmt.calls() == []


def test_a_compound_header_and_its_body_on_one_line():
    stmt, _ = failing("with torch.no_grad(): w -= 0.1 * w.grad")
    assert [c.target for c in stmt.assignments_in_place()] == ["w"]
    assert [c.method for c in stmt.calls()] == ["no_grad"]


def test_program_fragments_up_to_a_line_and_line_by_line_when_it_does_not_parse():
    program = "a = x.exp()\nfor i in r:\n    a.mul_(2)\nb = a.sum()\nb.add_(1)\n"
    texts = [c.text for f in program_fragments(program, 4) for c in f.calls()]
    assert texts == ["x.exp()", "a.mul_(2)", "a.sum()"]
    broken = "a = x.exp()\nif (:\n    a.mul_(2)\n"
    assert [c.text for f in program_fragments(broken) for c in f.calls()] == \
        ["x.exp()", "a.mul_(2)"]
