"""torch.optim.lr_scheduler: StepLR, MultiStepLR, ExponentialLR and LambdaLR, in PyTorch's
chainable form (each step scales the groups' current lr), the first step taken on creation."""

from ..engine.torch_classes import TorchClass

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR"]


class LRScheduler(metaclass=TorchClass):
    """Sets the optimizer's learning rates at each step(); get_last_lr() gives them."""

    _torch_name = "torch.optim.lr_scheduler.LRScheduler"

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
                               f"when resuming scheduler with last_epoch >= 0.")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def get_lr(self):
        raise NotImplementedError

    def get_last_lr(self):
        return list(self._last_lr)

    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
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
        return [lr * self.gamma for lr in self._lrs()]


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
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._lrs()]


class ExponentialLR(LRScheduler):
    """lr * gamma every epoch."""

    _torch_name = "torch.optim.lr_scheduler.ExponentialLR"

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]


class LambdaLR(LRScheduler):
    """initial lr * lr_lambda(epoch) (one function, or one a parameter group)."""

    _torch_name = "torch.optim.lr_scheduler.LambdaLR"

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * groups
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * fn(self.last_epoch) for base, fn in zip(self.base_lrs, self.lr_lambdas)]

    def state_dict(self):
        return {key: value for key, value in vars(self).items()
                if key not in ("optimizer", "lr_lambdas")} | {"lr_lambdas": [None] * len(
                    self.lr_lambdas)}
