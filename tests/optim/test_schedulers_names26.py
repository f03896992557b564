"""The lr_scheduler classes of gradcli.optim.schedulers against PyTorch 2.13: 30 steps of two
parameter groups under SGD (momentum) and Adam (beta1), the learning rates (and the momentum or
beta1 that CyclicLR and OneCycleLR cycle) compared exactly; the deprecated step(epoch) closed
forms; a program's lambdas held to the program's metered operators."""

import pytest

import gradcli
from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session

CASES = {
    "cosine": lambda t, o: t.optim.lr_scheduler.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "cosine_to_zero": lambda t, o: t.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10),
    "linear": lambda t, o: t.optim.lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=6),
    "linear_down": lambda t, o: t.optim.lr_scheduler.LinearLR(o, start_factor=1.0,
                                                              end_factor=0.1, total_iters=9),
    "constant": lambda t, o: t.optim.lr_scheduler.ConstantLR(o, factor=0.3, total_iters=4),
    "polynomial": lambda t, o: t.optim.lr_scheduler.PolynomialLR(o, total_iters=8, power=2.0),
    "multiplicative": lambda t, o: t.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95),
    "warm_restarts": lambda t, o: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=4, T_mult=2, eta_min=0.01),
    "warm_restarts_1": lambda t, o: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=5),
    "cyclic": lambda t, o: t.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1,
                                                         step_size_up=4),
    "cyclic_triangular2": lambda t, o: t.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5,
        mode="triangular2"),
    "cyclic_exp_range": lambda t, o: t.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.9),
    "one_cycle": lambda t, o: t.optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=30),
    "one_cycle_three_phase": lambda t, o: t.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[0.5, 0.2], epochs=5, steps_per_epoch=6, three_phase=True,
        anneal_strategy="linear"),
    "sequential": lambda t, o: t.optim.lr_scheduler.SequentialLR(o, [
        t.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=5),
        t.optim.lr_scheduler.CosineAnnealingLR(o, T_max=20)], milestones=[5]),
    "chained": lambda t, o: t.optim.lr_scheduler.ChainedScheduler([
        t.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3),
        t.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)]),
    "plateau": lambda t, o: t.optim.lr_scheduler.ReduceLROnPlateau(o, patience=2, factor=0.5,
                                                                   cooldown=1),
    "plateau_max_abs": lambda t, o: t.optim.lr_scheduler.ReduceLROnPlateau(
        o, mode="max", threshold_mode="abs", threshold=0.1, patience=1, min_lr=[0.01, 0.02]),
}
METRICS = [5, 4, 4, 4, 4, 3, 3, 3, 3, 3]


def schedule(lib, name, optimizer, epochs=None):
    w, b = lib.nn.Parameter(lib.ones(1)), lib.nn.Parameter(lib.ones(1))
    options = dict(lr=0.1, momentum=0.9) if optimizer == "SGD" else dict(lr=0.1)
    opt = getattr(lib.optim, optimizer)([{"params": [w]}, {"params": [b], "lr": 0.05}],
                                        **options)
    scheduler = CASES[name](lib, opt)
    out = [scheduler.get_last_lr()]
    for i in range(30):
        opt.step()
        if name.startswith("plateau"):
            scheduler.step(METRICS[i % 10])
        elif epochs:
            scheduler.step(epochs[i])
        else:
            scheduler.step()
        group = opt.param_groups[0]
        momentum = group["momentum"] if "momentum" in group else group["betas"][0]
        out.append(scheduler.get_last_lr() + [momentum])
    return out


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_learning_rates_are_pytorchs(name, optimizer, oracle):
    expected = oracle(lambda torch: schedule(torch, name, optimizer))
    assert schedule(gradcli, name, optimizer) == expected


EPOCHS = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2,
          7]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", ["cosine", "linear", "constant", "polynomial",
                                  "warm_restarts", "warm_restarts_1"])
def test_closed_forms_at_given_epochs_are_pytorchs(name, oracle):
    expected = oracle(lambda torch: schedule(torch, name, "SGD", EPOCHS))
    assert schedule(gradcli, name, "SGD", EPOCHS) == expected


@pytest.mark.parametrize("make", [
    "s = torch.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 'x' * 10)\n"
    "for i in range(2000):\n    s.step()\n",
    "s = torch.optim.lr_scheduler.CyclicLR(opt, 1, 2, step_size_up=1, mode='exp_range', "
    "gamma=3, cycle_momentum=False)\nfor i in range(2000):\n    s.step()\n",
    "s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=1, T_mult=2 ** 300)\n"
    "s.step(1e200)\n",
])
def test_a_programs_values_grow_no_more_than_its_operators_let_them(make, monkeypatch):
    """A lambda's string times an int learning rate, `gamma ** n` and `T_mult ** n` of ints:
    the program's metered `*` and `**` (the item and int-size limits), as for StepLR and
    LambdaLR (tests/kernel/test_redteam_round13.py)."""
    from gradcli.lang import limits
    monkeypatch.setattr(limits, "MAX_ITEMS", 1000)
    monkeypatch.setattr(limits, "MAX_INT_BITS", 500)
    source = ("import torch\np = torch.nn.Parameter(torch.ones(1))\n"
              "opt = torch.optim.SGD([p], lr=100)\n" + make)
    with pytest.raises(ProgramError) as info:
        Session().run(source)
    assert info.value.headline().startswith(("MemoryError: sequence too long",
                                              "OverflowError: integer too large")), \
        info.value.headline()
