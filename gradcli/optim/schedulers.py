"""More of torch.optim.lr_scheduler (gradcli.optim.lr_scheduler shows them): MultiplicativeLR,
ConstantLR, LinearLR, PolynomialLR, CosineAnnealingLR, CosineAnnealingWarmRestarts, CyclicLR,
OneCycleLR, SequentialLR, ChainedScheduler and ReduceLROnPlateau, with PyTorch 2.13's chainable
formulas and closed forms, in its order of operations (so that the float results are its own).
What a program gave (learning rates, factors, eta_min, a lambda's result) is combined through
the program's own metered operators (gradcli.engine.callables), as the schedulers there do."""

import bisect
import math
import warnings

from ..engine.callables import add, checked, divide, multiply, power, subtract
from .lr_scheduler import EPOCH_DEPRECATION_WARNING, LRScheduler

__all__ = ["MultiplicativeLR", "ConstantLR", "LinearLR", "PolynomialLR", "CosineAnnealingLR",
           "CosineAnnealingWarmRestarts", "CyclicLR", "OneCycleLR", "SequentialLR",
           "ChainedScheduler", "ReduceLROnPlateau"]


def _format_param(name, optimizer, param):
    groups = len(optimizer.param_groups)
    if isinstance(param, (list, tuple)):
        if len(param) != groups:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has {groups}.")
        return list(param)
    return [param] * groups


def _check_optimizer(optimizer):
    from . import Optimizer
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


class MultiplicativeLR(LRScheduler):
    """lr * lr_lambda(epoch) at each step (one function, or one a parameter group)."""

    _torch_name = "torch.optim.lr_scheduler.MultiplicativeLR"

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        groups = len(optimizer.param_groups)
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * groups
        else:
            if len(lr_lambda) != groups:
                raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        self.lr_lambdas = [checked(fn) for fn in self.lr_lambdas]
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return self._lrs()
        return [multiply(lr, fn(self.last_epoch)) for fn, lr in zip(self.lr_lambdas, self._lrs())]

    def state_dict(self):
        return {key: value for key, value in vars(self).items()
                if key not in ("optimizer", "lr_lambdas")} | {
                    "lr_lambdas": [None] * len(self.lr_lambdas)}


class ConstantLR(LRScheduler):
    """lr * factor until total_iters epochs, then lr."""

    _torch_name = "torch.optim.lr_scheduler.ConstantLR"

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [multiply(lr, self.factor) for lr in self._lrs()]
        if self.last_epoch != self.total_iters:
            return self._lrs()
        return [multiply(lr, divide(1.0, self.factor)) for lr in self._lrs()]

    def _get_closed_form_lr(self):
        factor = add(self.factor, multiply(self.last_epoch >= self.total_iters,
                                           subtract(1, self.factor)))
        return [multiply(base, factor) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """lr from start_factor * lr to end_factor * lr linearly over total_iters epochs."""

    _torch_name = "torch.optim.lr_scheduler.LinearLR"

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [multiply(lr, self.start_factor) for lr in self._lrs()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._lrs()
        span = subtract(self.end_factor, self.start_factor)
        factor = 1.0 + span / (self.total_iters * self.start_factor
                               + (self.last_epoch - 1) * span)
        return [multiply(lr, factor) for lr in self._lrs()]

    def _get_closed_form_lr(self):
        factor = self.start_factor + (self.end_factor - self.start_factor) * min(
            self.total_iters, self.last_epoch) / self.total_iters
        return [multiply(base, factor) for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr * (1 - epoch / total_iters) ** power, reaching 0 at total_iters."""

    _torch_name = "torch.optim.lr_scheduler.PolynomialLR"

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._lrs()
        factor = power((1.0 - self.last_epoch / self.total_iters)
                       / (1.0 - (self.last_epoch - 1) / self.total_iters), self.power)
        return [multiply(lr, factor) for lr in self._lrs()]

    def _get_closed_form_lr(self):
        factor = power(1.0 - min(self.total_iters, self.last_epoch) / self.total_iters,
                       self.power)
        return [multiply(base, factor) for base in self.base_lrs]


def _cosine(base, eta_min, numerator, denominator):
    """eta_min + (base - eta_min) * (1 + cos(pi * numerator / denominator)) / 2."""
    return add(eta_min, divide(multiply(subtract(base, eta_min),
                                        1 + math.cos(math.pi * numerator / denominator)), 2))


class CosineAnnealingLR(LRScheduler):
    """lr from its initial value down to eta_min along half a cosine over T_max epochs (and
    back up over the next T_max)."""

    _torch_name = "torch.optim.lr_scheduler.CosineAnnealingLR"

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        eta_min, t_max, epoch = self.eta_min, self.T_max, self.last_epoch
        if self._is_initial:
            return self._lrs()
        if self._step_count == 1 and epoch > 0:
            return [_cosine(base, eta_min, epoch, t_max) for base in self.base_lrs]
        if (epoch - 1 - t_max) % (2 * t_max) == 0:
            return [add(lr, divide(multiply(subtract(base, eta_min),
                                            1 - math.cos(math.pi / t_max)), 2))
                    for base, lr in zip(self.base_lrs, self._lrs())]
        ratio = (1 + math.cos(math.pi * epoch / t_max)) / (
            1 + math.cos(math.pi * (epoch - 1) / t_max))
        return [add(multiply(ratio, subtract(lr, eta_min)), eta_min) for lr in self._lrs()]

    def _get_closed_form_lr(self):
        return [_cosine(base, self.eta_min, self.last_epoch, self.T_max)
                for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs, T_i = T_0 * T_mult ** restarts."""

    _torch_name = "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts"

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min, self.T_cur = T_mult, eta_min, last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [_cosine(base, self.eta_min, self.T_cur, self.T_i) for base in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = multiply(self.T_i, self.T_mult)
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    grown = power(self.T_mult, n)
                    self.T_cur = epoch - self.T_0 * (grown - 1) / (self.T_mult - 1)
                    self.T_i = multiply(self.T_0, grown)
            else:
                self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = self._lrs()


def _cycle_momentum(scheduler, optimizer, base_momentum, max_momentum, last_epoch):
    """CyclicLR's and OneCycleLR's momentum (or Adam's beta1) cycling: the groups start at
    max_momentum and remember both bounds."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    scheduler.use_beta1 = "betas" in optimizer.defaults
    maxima = _format_param("max_momentum", optimizer, max_momentum)
    bases = _format_param("base_momentum", optimizer, base_momentum)
    if last_epoch == -1:
        for top, bottom, group in zip(maxima, bases, optimizer.param_groups):
            _set_momentum(scheduler, group, top)
            group["max_momentum"], group["base_momentum"] = top, bottom
    return bases, maxima


def _set_momentum(scheduler, group, momentum):
    if scheduler.use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


class CyclicLR(LRScheduler):
    """lr cycling between base_lr and max_lr (triangular, triangular2, exp_range or a program's
    scale_fn), momentum the other way; one step a batch."""

    _torch_name = "torch.optim.lr_scheduler.CyclicLR"

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = None if scale_fn is None else checked(scale_fn)
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _cycle_momentum(
                self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is None and self.mode in ("triangular", "triangular2"):
            self.scale_mode = "cycle"
        elif self._scale_fn_custom is None and self.mode == "exp_range":
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / 2.0 ** (x - 1)
        return power(self.gamma, x)

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [add(base, multiply(multiply(subtract(top, base), scale_factor), scale))
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base, top in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):
                height = multiply(subtract(top, base), scale_factor)
                _set_momentum(self, group, subtract(top, multiply(height, scale)))
        return lrs

    def state_dict(self):
        state = super().state_dict()
        state["_scale_fn_custom"] = None
        return state


class OneCycleLR(LRScheduler):
    """The one-cycle policy (Smith): lr from max_lr / div_factor up to max_lr over pct_start
    of total_steps, then annealed (cosine or linear) to initial_lr / final_div_factor;
    momentum the other way.  One step a batch; a step past total_steps is an error."""

    _torch_name = "torch.optim.lr_scheduler.OneCycleLR"

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = multiply(epochs, steps_per_epoch)
        else:
            raise ValueError("You must define either total_steps OR (epochs AND "
                             "steps_per_epoch)")
        ends = [float(pct_start * self.total_steps) - 1]
        names = [("initial_lr", "max_lr", "max_momentum", "base_momentum")]
        if three_phase:
            ends.append(float(2 * pct_start * self.total_steps) - 2)
            names += [("max_lr", "initial_lr", "base_momentum", "max_momentum"),
                      ("initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            names.append(("max_lr", "min_lr", "base_momentum", "max_momentum"))
        ends.append(self.total_steps - 1)
        self._schedule_phases = [
            dict(end_step=end, start_lr=a, end_lr=b, start_momentum=c, end_momentum=d)
            for end, (a, b, c, d) in zip(ends, names)]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = divide(top, div_factor)
                group["max_lr"] = top
                group["min_lr"] = divide(group["initial_lr"], final_div_factor)
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _cycle_momentum(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return add(end, multiply(divide(subtract(start, end), 2.0),
                                     math.cos(math.pi * pct) + 1))
        return add(multiply(subtract(end, start), pct), start)

    def get_lr(self):
        lrs, step_num = [], self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        phases = self._schedule_phases
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]],
                                            pct))
                    if self.cycle_momentum:
                        _set_momentum(self, group, self._anneal(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct))
                    break
                start_step = phase["end_step"]
        return lrs


def _check_schedulers(owner, optimizer, schedulers):
    name = type(owner).__name__
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it "
                             f"requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(scheduler).__name__} at index {i} has "
                             f"{scheduler.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Schedulers(LRScheduler):
    """SequentialLR's and ChainedScheduler's state_dict: their schedulers' states."""

    def state_dict(self):
        state = {key: value for key, value in vars(self).items()
                 if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        schedulers = state_dict.pop("_schedulers")
        vars(self).update(state_dict)
        for scheduler, state in zip(self._schedulers, schedulers):
            scheduler.load_state_dict(state)


class SequentialLR(_Schedulers):
    """Each scheduler in turn, the next from each milestone epoch on."""

    _torch_name = "torch.optim.lr_scheduler.SequentialLR"

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got "
                             f"no scheduler.")
        _check_schedulers(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"Sequential Schedulers expects number of schedulers provided to "
                             f"be one more than the number of milestone points, but got number "
                             f"of schedulers {len(schedulers)} and the number of milestones to "
                             f"be equal to {len(milestones)}")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in schedulers:   # (recursive_undo)
            _undo(scheduler)
        idx = bisect.bisect_right(self._milestones, 0)
        schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def step(self):
        self.last_epoch += 1
        idx = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


def _undo(scheduler):
    if hasattr(scheduler, "_schedulers"):
        for inner in scheduler._schedulers:
            _undo(inner)
    elif hasattr(scheduler, "last_epoch"):
        scheduler.last_epoch -= 1


class ChainedScheduler(_Schedulers):
    """Every scheduler stepped at each step, in order."""

    _torch_name = "torch.optim.lr_scheduler.ChainedScheduler"

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be "
                             f"chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, optimizer, schedulers)
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = self._schedulers[-1]._lrs()

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._schedulers[-1]._lrs()


class ReduceLROnPlateau(LRScheduler):
    """lr * factor once the metric given to step() has not improved for patience epochs."""

    _torch_name = "torch.optim.lr_scheduler.ReduceLROnPlateau"

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        groups = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != groups:
                raise ValueError(f"expected {groups} min_lrs, got {len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * groups
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = self._lrs()
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = self._lrs()

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` "
                                   f"({len(groups)}) differs from when `ReduceLROnPlateau` was "
                                   f"initialized ({len(self.min_lrs)}), usually due to a new "
                                   f"param group being added to the optimizer. Please modify "
                                   f"the `min_lrs` field to match the length of the `optimizer` "
                                   f"param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old_lr = float(group["lr"])
            new_lr = max(multiply(old_lr, self.factor), self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def load_state_dict(self, state_dict):
        vars(self).update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
