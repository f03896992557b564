"""The composite losses (cosine_similarity, kl_div, margin_ranking_loss, poisson_nll_loss,
gaussian_nll_loss, hinge_embedding_loss, cosine_embedding_loss) differentiate as their
ops do: gradcheck and gradgradcheck in float64 (their values, graphs and messages against
PyTorch: the pytorch_code_losses_more transcript)."""

import pytest

import gradcli as torch
import gradcli.nn.functional as F

CASES = {
    "cosine_similarity": lambda a, b: F.cosine_similarity(a, b, dim=1),
    "cosine_similarity_dim0": lambda a, b: F.cosine_similarity(a, b, dim=0, eps=1e-3),
    "kl_div_batchmean": lambda a, b: F.kl_div(F.log_softmax(a, 1), F.softmax(b, 1),
                                              reduction="batchmean"),
    "kl_div_log_target": lambda a, b: F.kl_div(a, b, reduction="sum", log_target=True),
    "margin_ranking": lambda a, b: F.margin_ranking_loss(
        a[:, 0], b[:, 0], torch.tensor([1., -1., 1.], dtype=torch.float64), margin=0.1),
    "poisson": lambda a, b: F.poisson_nll_loss(a, b.abs() * 3, full=True),
    "poisson_counts": lambda a, b: F.poisson_nll_loss(a.abs() + 0.1, b.abs() * 3,
                                                      log_input=False, full=True),
    "gaussian": lambda a, b: F.gaussian_nll_loss(a, b, a.abs() + b.abs(), full=True),
    "hinge": lambda a, b: F.hinge_embedding_loss(a * b, (a > 0).double() * 2 - 1, margin=0.3),
    "cosine_embedding": lambda a, b: F.cosine_embedding_loss(
        a, b, torch.tensor([1., -1., -1.], dtype=torch.float64), margin=-0.5),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_check(name):
    torch.manual_seed(0)
    a = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(CASES[name], (a, b))
    assert torch.autograd.gradgradcheck(CASES[name], (a, b))
