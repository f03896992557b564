"""torch.optim.lr_scheduler: StepLR, MultiStepLR, ExponentialLR and LambdaLR (and those of
gradcli.optim.schedulers: CosineAnnealingLR, ReduceLROnPlateau, OneCycleLR, ...), in PyTorch's
chainable form (each step scales the groups' current lr), the first step taken on creation."""

import bisect
import warnings

from ..engine.callables import checked, multiply, power
from ..engine.torch_classes import TorchClass, torch_repr

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR"]

STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value "
    "of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")


class LRScheduler(metaclass=TorchClass):
    """Sets the optimizer's learning rates at each step(); get_last_lr() gives them."""

    _torch_name = "torch.optim.lr_scheduler.LRScheduler"
    __repr__ = torch_repr

    def __init__(self, optimizer, last_epoch=-1):
        from . import Optimizer
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                               f"when resuming scheduler with last_epoch >= 0.\nThis "
                               f"typically happens when:\n1. You're trying to resume training "
                               f"from a checkpoint but haven't properly loaded the optimizer "
                               f"state\n2. You're using last_epoch >= 0 for a fresh training "
                               f"run (not recommended)")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        optimizer._wrapped_by_lr_sched = True   # (its steps from now on are noted: _stepped)
        self._initial_step()

    def _initial_step(self):
        """The first step, taken on creation (`_is_initial` while it runs, as PyTorch's
        _initial_mode)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        raise NotImplementedError

    def get_last_lr(self):
        return list(self._last_lr)

    def step(self, epoch=None):
        """The next epoch's learning rates (the chainable form: from the current ones); at a
        given epoch (deprecated), the closed form from base_lrs where there is one.  The first
        step after creation warns if the optimizer has not stepped (its `_opt_called`)."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(STEP_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self):
        return {key: value for key, value in vars(self).items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        vars(self).update(state_dict)

    def _lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]


class StepLR(LRScheduler):
    """lr * gamma every step_size epochs."""

    _torch_name = "torch.optim.lr_scheduler.StepLR"

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return [multiply(lr, self.gamma) for lr in self._lrs()]

    def _get_closed_form_lr(self):
        factor = power(self.gamma, self.last_epoch // self.step_size)
        return [multiply(base, factor) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr * gamma at each milestone epoch (repeated milestones compound)."""

    _torch_name = "torch.optim.lr_scheduler.MultiStepLR"

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = {}
        for m in milestones:
            self.milestones[m] = self.milestones.get(m, 0) + 1
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._lrs()
        factor = power(self.gamma, self.milestones[self.last_epoch])
        return [multiply(lr, factor) for lr in self._lrs()]

    def _get_closed_form_lr(self):
        passed = bisect.bisect_right(sorted(m for m, n in self.milestones.items()
                                            for _ in range(n)), self.last_epoch)
        factor = power(self.gamma, passed)
        return [multiply(base, factor) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr * gamma every epoch."""

    _torch_name = "torch.optim.lr_scheduler.ExponentialLR"

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return self._lrs()
        return [multiply(lr, self.gamma) for lr in self._lrs()]

    def _get_closed_form_lr(self):
        factor = power(self.gamma, self.last_epoch)
        return [multiply(base, factor) for base in self.base_lrs]


class LambdaLR(LRScheduler):
    """initial lr * lr_lambda(epoch) (one function, or one a parameter group)."""

    _torch_name = "torch.optim.lr_scheduler.LambdaLR"

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = [checked(fn) for fn in lr_lambda]
        else:
            self.lr_lambdas = [checked(lr_lambda)] * groups
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [multiply(base, fn(self.last_epoch))
                for base, fn in zip(self.base_lrs, self.lr_lambdas)]

    def state_dict(self):
        return {key: value for key, value in vars(self).items()
                if key not in ("optimizer", "lr_lambdas")} | {"lr_lambdas": [None] * len(
                    self.lr_lambdas)}


# (the others, in their own module)
from .schedulers import (ChainedScheduler, ConstantLR, CosineAnnealingLR,  # noqa: E402
                         CosineAnnealingWarmRestarts, CyclicLR, LinearLR, MultiplicativeLR,
                         OneCycleLR, PolynomialLR, ReduceLROnPlateau, SequentialLR)
__all__ += [cls.__name__ for cls in (
    MultiplicativeLR, ConstantLR, LinearLR, PolynomialLR, CosineAnnealingLR,
    CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR, SequentialLR, ChainedScheduler,
    ReduceLROnPlateau)]
