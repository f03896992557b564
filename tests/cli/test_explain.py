"""`gradcli explain`: chain-rule labels that read as the right mathematics, kink notes that say
what PyTorch did, incoming gradients of nodes with several outputs."""

import pytest


def chain_lines(text, out):
    return [line.strip() for line in text.splitlines() if line.strip().startswith(f"d{out}/d")]


def test_compound_labels_are_bracketed(cli):
    r = cli("explain", "y = x*w + x/w", "--at", "x=2", "--at", "w=4")
    assert r.code == 0
    lines = chain_lines(r.stdout, "y")
    assert "dy/d(x * w) += 1. * 1 = 1." in lines
    assert "dy/d(x / w) += 1. * 1 = 1." in lines
    assert not any(line.startswith(("dy/dx * w", "dy/dx / w")) for line in lines)
    assert "dy/dx += 1. * 4 = 4." in lines  # plain names stay bare


def test_calls_and_differences_are_bracketed(cli):
    r = cli("explain", "y = (x.exp()-1).sum()", "--at", "x=[1.,2.]")
    lines = chain_lines(r.stdout, "y")
    assert "dy/d(exp(x) - 1) += [1., 1.]" in lines
    assert "dy/d(exp(x)) += [1., 1.]" in lines


def test_products_with_a_number_are_bracketed_and_keep_the_program_s_order(cli):
    # PyTorch computes 2*x as mul(x, 2); explain writes it as the program did
    r = cli("explain", "z=(2*x)**3", "--at", "x=3")
    assert "dz/d(2 * x) += 1. * 108 = 108." in chain_lines(r.stdout, "z")
    assert "z = (2 * x) ** 3  ->  216." in r.stdout
    r = cli("explain", "z = 2*x*3 + 1", "--at", "x=3")
    assert "z = 2 * x * 3 + 1  ->" in r.stdout
    assert "dz/d(2 * x * 3) += 1. * 1 = 1." in chain_lines(r.stdout, "z")


@pytest.mark.parametrize("program, shown", [
    ("y = 2*x + 3*x**2", "y = 2 * x + 3 * x ** 2"),     # no brackets Python does not need
    ("y = x - (x - 1)", "y = x - (x - 1)"),             # nor fewer than it needs
    ("y = (x - 1) - x", "y = x - 1 - x"),
    ("y = x / (x * 3)", "y = x / (x * 3)"),
    ("y = (x + 1) * (x - 1)", "y = (x + 1) * (x - 1)"),
    ("y = (x ** 2) ** 3", "y = (x ** 2) ** 3"),         # ** groups from the right
    ("y = x ** x ** 2", "y = x ** x ** 2"),
    ("y = (-x) ** 2", "y = (-x) ** 2"),
    ("y = -x ** 2", "y = -x ** 2"),
    ("y = -(x + 1)", "y = -(x + 1)"),
    ("y = (-2.) ** x", "y = (-2.0) ** x"),
    ("y = 1 - x", "y = 1 - x"),
    ("y = 1 + x", "y = 1 + x"),
    ("y = x + 1", "y = x + 1"),
    ("y = 2 / x", "y = reciprocal(x) * 2"),  # PyTorch's graph of a number over a tensor
])
def test_expressions_read_as_the_program_wrote_them(cli, program, shown):
    r = cli("explain", program, "--at", "x=0.5")
    assert r.code == 0, r.stdout + r.stderr
    assert any(line.strip().startswith(shown + "  ->") for line in r.stdout.splitlines()), \
        r.stdout


@pytest.mark.parametrize("program", ["y = x.max(0).values", "y = x.min(0)[0]",
                                     "y = x.max(dim=0).values"])
def test_max_with_dim_gives_the_whole_gradient_to_one_index(cli, program):
    r = cli("explain", program, "--at", "x=[2,2]")
    assert r.code == 0
    assert "dx += [1., 0.]" in r.stdout
    kink = next(line.strip() for line in r.stdout.splitlines() if "kink:" in line)
    assert "split" not in kink
    assert "the whole gradient went to the index" in kink


@pytest.mark.parametrize("program, kind", [("y = x.max()", "maximum"), ("y = x.amax(0)", "maximum"),
                                           ("y = x.amin()", "minimum")])
def test_max_over_all_elements_and_amax_split_ties_evenly(cli, program, kind):
    r = cli("explain", program, "--at", "x=[2,2]")
    assert "dx += [0.5000, 0.5000]" in r.stdout
    assert f"kink: ties for the {kind} value: the gradient was split evenly between them" in r.stdout


def test_a_tie_of_the_other_extreme_is_no_kink(cli):
    r = cli("explain", "y = x.max()", "--at", "x=[1,1,3]")
    assert "kink" not in r.stdout
    r = cli("explain", "y = x.max(1).values.sum()", "--at", "x=[[3,1,1],[2,0,0]]")
    assert "kink" not in r.stdout  # the ties in each row are of the minimum
    r = cli("explain", "y = x.max(1).values.sum()", "--at", "x=[[2,1],[3,3]]")
    assert "kink: ties for the maximum along dim 1" in r.stdout


def test_incoming_gradient_of_a_node_with_several_outputs(cli):
    r = cli("explain", "y = x.max(0).values * 3", "--at", "x=[2.,1.]")
    incoming = [line.strip() for line in r.stdout.splitlines() if "incoming gradient" in line]
    assert incoming[-1] == "incoming gradient dy/d(output) = 3. (values)"
    assert "None" not in r.stdout
    r = cli("explain", "a, b = x.split(2); y = b.sum()", "--at", "x=[1.,2.,3.,4.]")
    assert "incoming gradient dy/d(output) = [1., 1.] (b)" in r.stdout
    assert "None" not in r.stdout


def test_a_program_that_backpropagates_itself_is_explained_step_by_step(cli):
    # PyTorch: y = (x**2).sum(); y.backward() runs SumBackward0 then PowBackward0; x.grad = [2, 6]
    r = cli("explain", "y = (x**2).sum(); y.backward()", "--at", "x=[1.,3]")
    assert r.code == 0
    assert "no backward steps" not in r.stdout
    assert "[1] SumBackward0   y = sum(x ** 2)" in r.stdout
    assert "[2] PowBackward0   x ** 2" in r.stdout
    assert "dy/dx += [2., 6.]" in chain_lines(r.stdout, "y")


def test_two_backward_passes_of_the_program_both_show_and_accumulate(cli):
    r = cli("explain", "y = (x*w).sum(); y.backward(retain_graph=True); y.backward()",
            "--at", "x=[1.,3]", "--at", "w=2")
    assert r.code == 0
    assert chain_lines(r.stdout, "y").count("dy/dw += 4.") == 2
    assert "dy/dw = 8." in r.stdout  # w.grad after both passes, as PyTorch accumulates it


def test_a_norm_at_the_zero_vector_is_a_kink(cli):
    # torch: x.norm().backward() at x = [0, 0] gives x.grad = [0, 0] (the subgradient 0)
    r = cli("eval", "y = x.norm()", "--at", "x=[0.,0]")
    assert "dy/dx = [0., 0.]" in r.stdout
    assert "why: the gradient is zero at a kink: norm at the zero vector" in r.stdout
    r = cli("explain", "y = linalg.vector_norm(x, dim=1).sum()", "--at", "x=[[0.,0],[3,4]]")
    assert "kink: norm at the zero vector: the subgradient 0 was used" in r.stdout
    assert "kink" not in cli("explain", "y = x.norm()", "--at", "x=[3.,4]").stdout


@pytest.mark.parametrize("program, formula", [
    ("y = x + w", "d/dself = 1; d/dother = 1"),               # add's alpha, at its default
    ("y = x - w", "d/dself = 1; d/dother = -1"),
    ("y = x.sub(w, alpha=-3)", "d/dself = 1; d/dother = 3"),
    ("y = leaky_relu(x, 0.2)", "d/dself = 1 if self > 0 else 0.2"),
    ("y = elu(x, alpha=-0.5)", "self: elu_backward(grad, self, -0.5, 1, 1, False)"),
    ("y = clamp(x, min=0)", "d/dself = where(inside(self, 0, max), 1, 0)"),
])
def test_local_derivatives_show_the_attributes_the_node_used(cli, program, formula):
    r = cli("explain", program, "--at", "x=-1", "--at", "w=2")
    assert r.code == 0, r.stderr
    assert f"local derivative: {formula}" in r.stdout, r.stdout
