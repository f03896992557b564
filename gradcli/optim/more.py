"""torch.optim's Adagrad, Adadelta, Adamax, NAdam, RAdam, Rprop and ASGD, stepping as PyTorch
2.13's single-tensor implementations (its choice on the CPU): the same in-place operations in
the same order, each `a + alpha * b` (add with alpha, lerp, addcmul) computed in float64 and
rounded once to the parameter's dtype (gradcli.optim's convention for PyTorch's fused
multiply-adds), the scalar state (NAdam's mu_product, ASGD's eta and mu) in PyTorch's scalar
dtype (float32, float64 under a float64 default dtype)."""

import numpy as np

from . import Optimizer, _addcmul, _rounded

__all__ = ["Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"]


def _check(*pairs):
    """PyTorch's `if not 0.0 <= value: raise ValueError(f"Invalid {what}: {value}")`."""
    for what, value in zip(pairs[::2], pairs[1::2]):
        if not 0.0 <= value:
            raise ValueError(f"Invalid {what}: {value}")


def _check_adam(lr, eps, betas, weight_decay):
    """The Adam family's checks, in its order."""
    _check("learning rate", lr, "epsilon value", eps)
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    _check("weight_decay value", weight_decay)


def _options(arguments, names):
    """The defaults of an optimizer's group: its arguments, in PyTorch's order (as state_dict()'s
    param_groups list them)."""
    return {name: arguments[name] for name in names.split()}


def _begin(p, grad, group, state, **fresh):
    """What each step starts with: the state made at the first step (`step` 0, then `fresh`'s
    values, 0 standing for zeros like the parameter), the step counted, the gradient negated
    under maximize.  The parameter's data, its dtype and the gradient."""
    data = p._data
    if not state:
        state["step"] = 0
        state.update({name: np.zeros_like(data) if isinstance(value, int) else value
                      for name, value in fresh.items()})
    state["step"] += 1
    return data, data.dtype, -grad if group["maximize"] else grad


def _scalar_dtype():
    from ..engine.dtypes import get_default_dtype
    return np.float64 if get_default_dtype().name == "float64" else np.float32


def _decayed(grad, data, decay, dtype):
    """grad.add(param, alpha=weight_decay)."""
    return _rounded(grad + np.float64(dtype.type(decay)) * data, dtype) if decay else grad


def _lerp_(start, end, weight, dtype):
    """start.lerp_(end, weight), PyTorch's two-sided formula."""
    w = dtype.type(weight)
    if abs(weight) < 0.5:
        start[...] = _rounded(start + np.float64(w) * (end - start).astype(dtype), dtype)
    else:
        start[...] = _rounded(end - np.float64(dtype.type(1 - weight))
                              * (end - start).astype(dtype), dtype)


def _mul_addcmul_(avg, factor, grad, value, dtype):
    """avg.mul_(factor).addcmul_(grad, grad, value=value)."""
    t = dtype.type
    avg *= t(factor)
    avg[...] = _addcmul(avg, t(value) * grad, grad, dtype)


class Adagrad(Optimizer):
    """sum += g * g; p -= lr / (1 + (step - 1) * lr_decay) * g / (sqrt(sum) + eps)."""

    _torch_name = "torch.optim.adagrad.Adagrad"
    _DEFAULTS = ("lr lr_decay eps weight_decay initial_accumulator_value foreach maximize "
                 "differentiable fused")

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check("learning rate", lr, "lr_decay value", lr_decay, "weight_decay value",
               weight_decay, "initial_accumulator_value value", initial_accumulator_value,
               "epsilon value", eps)
        super().__init__(params, _options(locals(), self._DEFAULTS))
        from . import _state_tensor
        for group in self.param_groups:   # (PyTorch makes Adagrad's state here, not at a step)
            for p in group["params"]:
                self.state[p] = {"step": _state_tensor("step", 0), "sum": _state_tensor(
                    "sum", np.full_like(p._data, initial_accumulator_value))}

    def _update(self, p, grad, group, state):
        data, dtype = p._data, p._data.dtype
        state["step"] += 1
        grad = -grad if group["maximize"] else grad
        grad = _decayed(grad, data, group["weight_decay"], dtype)
        clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        total = state["sum"]
        total[...] = _addcmul(total, grad, grad, dtype)
        std = np.sqrt(total) + dtype.type(group["eps"])
        data += dtype.type(-clr) * grad / std
        return {"step": 1, "sum": 1}


class Adadelta(Optimizer):
    """square_avg = rho * square_avg + (1 - rho) * g * g;
    delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g; p -= lr * delta;
    acc_delta = rho * acc_delta + (1 - rho) * delta * delta."""

    _torch_name = "torch.optim.adadelta.Adadelta"
    _DEFAULTS = "lr rho eps weight_decay maximize capturable foreach differentiable"

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check("learning rate", lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check("epsilon value", eps, "weight_decay value", weight_decay)
        super().__init__(params, _options(locals(), self._DEFAULTS))

    def _update(self, p, grad, group, state):
        data, dtype, grad = _begin(p, grad, group, state, square_avg=0, acc_delta=0)
        t = dtype.type
        grad = _decayed(grad, data, group["weight_decay"], dtype)
        rho, eps = group["rho"], t(group["eps"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        _mul_addcmul_(square_avg, rho, grad, 1 - rho, dtype)
        std = np.sqrt(square_avg + eps)
        delta = np.sqrt(acc_delta + eps)
        delta /= std
        delta *= grad
        _mul_addcmul_(acc_delta, rho, delta, 1 - rho, dtype)
        data[...] = _rounded(data + np.float64(t(-group["lr"])) * delta, dtype)
        return {"step": 1, "square_avg": 2, "acc_delta": 2}


class Adamax(Optimizer):
    """Adam with the infinity norm: exp_inf = max(beta2 * exp_inf, |g| + eps);
    p -= lr / (1 - beta1^t) * exp_avg / exp_inf."""

    _torch_name = "torch.optim.adamax.Adamax"
    _DEFAULTS = "lr betas eps weight_decay foreach maximize differentiable capturable"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam(lr, eps, betas, weight_decay)
        super().__init__(params, _options(locals(), self._DEFAULTS))

    def _update(self, p, grad, group, state):
        data, dtype, grad = _begin(p, grad, group, state, exp_avg=0, exp_inf=0)
        t = dtype.type
        grad = _decayed(grad, data, group["weight_decay"], dtype)
        beta1, beta2 = group["betas"]
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        _lerp_(exp_avg, grad, 1 - beta1, dtype)
        exp_inf *= t(beta2)
        np.maximum(exp_inf, np.abs(grad) + t(group["eps"]), out=exp_inf)
        clr = group["lr"] / (1 - beta1 ** state["step"])
        data += t(-clr) * exp_avg / exp_inf
        return {"step": 1, "exp_avg": 1, "exp_inf": 2}


def _adam_moments(grad, group, state, dtype):
    """exp_avg.lerp_(grad, 1 - beta1); exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)."""
    beta1, beta2 = group["betas"]
    _lerp_(state["exp_avg"], grad, 1 - beta1, dtype)
    _mul_addcmul_(state["exp_avg_sq"], beta2, grad, 1 - beta2, dtype)


def _adam_decay(data, grad, group, dtype):
    """Weight decay as NAdam and RAdam apply it: decoupled (param.mul_(1 - lr * wd)) or added
    to the gradient."""
    decay = group["weight_decay"]
    if decay and group["decoupled_weight_decay"]:
        data[...] = _rounded(data * np.float64(dtype.type(1 - group["lr"] * decay)), dtype)
        return grad
    return _decayed(grad, data, decay, dtype)


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat), its momentum schedule
    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))."""

    _torch_name = "torch.optim.nadam.NAdam"
    _DEFAULTS = ("lr betas eps weight_decay momentum_decay decoupled_weight_decay maximize foreach "
                 "capturable differentiable")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam(lr, eps, betas, weight_decay)
        _check("momentum_decay value", momentum_decay)
        super().__init__(params, _options(locals(), self._DEFAULTS))

    def _update(self, p, grad, group, state):
        data, dtype, grad = _begin(p, grad, group, state, mu_product=np.ones((), _scalar_dtype()),
                                   exp_avg=0, exp_avg_sq=0)
        t = dtype.type
        step, lr = state["step"], group["lr"]
        beta1, beta2 = group["betas"]
        bias_correction2 = 1 - beta2 ** step
        grad = _adam_decay(data, grad, group, dtype)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * group["momentum_decay"])))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * group["momentum_decay"])))
        mu_product = state["mu_product"]
        mu_product *= mu_product.dtype.type(mu)
        _adam_moments(grad, group, state, dtype)
        denom = np.sqrt(state["exp_avg_sq"] / t(bias_correction2))
        denom += t(group["eps"])
        product = float(mu_product)
        data += t(-lr * (1.0 - mu) / (1.0 - product)) * grad / denom
        data += t((-lr * mu_next) / (1.0 - product * mu_next)) * state["exp_avg"] / denom
        decoupled = bool(group["weight_decay"] and group["decoupled_weight_decay"])
        return {"step": 1, "mu_product": 1, "exp_avg": 1, "exp_avg_sq": 2, None: 2 + decoupled}


class RAdam(Optimizer):
    """Rectified Adam (Liu et al.): Adam's step scaled by the variance rectification term once
    rho_t > 5, plain momentum SGD before."""

    _torch_name = "torch.optim.radam.RAdam"
    _DEFAULTS = ("lr betas eps weight_decay maximize foreach capturable decoupled_weight_decay "
                 "differentiable")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam(lr, eps, betas, weight_decay)
        super().__init__(params, _options(locals(), self._DEFAULTS))

    def _update(self, p, grad, group, state):
        data, dtype, grad = _begin(p, grad, group, state, exp_avg=0, exp_avg_sq=0)
        t = dtype.type
        step, lr = state["step"], group["lr"]
        beta1, beta2 = group["betas"]
        grad = _adam_decay(data, grad, group, dtype)
        _adam_moments(grad, group, state, dtype)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        update = state["exp_avg"] / t(bias_correction1)
        update = update * t(lr)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            adaptive = np.sqrt(state["exp_avg_sq"])
            adaptive += t(group["eps"])
            adaptive = t(bias_correction2 ** 0.5) / adaptive
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            update = update * adaptive
            update = update * t(rect)
        data -= update
        decoupled = bool(group["weight_decay"] and group["decoupled_weight_decay"])
        return {"step": 1, "exp_avg": 1, "exp_avg_sq": 2, None: 1 + decoupled}


class Rprop(Optimizer):
    """Resilient backpropagation: each element's step size grows by etaplus while its gradient
    keeps its sign, shrinks by etaminus when it flips (that step then skipped)."""

    _torch_name = "torch.optim.rprop.Rprop"
    _DEFAULTS = "lr etas step_sizes foreach maximize differentiable capturable"

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check("learning rate", lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, _options(locals(), self._DEFAULTS))

    def _update(self, p, grad, group, state):
        data, dtype, grad = _begin(p, grad, group, state, prev=0,
                                   step_size=np.full_like(grad, group["lr"]))
        t = dtype.type
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        step_size, prev = state["step_size"], state["prev"]
        sign = np.sign(grad * prev)
        sign[sign > 0] = t(etaplus)
        sign[sign < 0] = t(etaminus)
        sign[sign == 0] = 1
        step_size *= sign
        np.clip(step_size, t(step_size_min), t(step_size_max), out=step_size)
        grad = grad.copy()
        grad[sign == t(etaminus)] = 0
        data[...] = _addcmul(data, -np.sign(grad), step_size, dtype)
        prev[...] = grad
        return {"step": 1, "step_size": 2, "prev": 1}


class ASGD(Optimizer):
    """Averaged SGD (Polyak and Juditsky): p = p * (1 - lambd * eta) - eta * g, and ax the
    running average of p from step t0 on; eta = lr / (1 + lambd * lr * t)^alpha."""

    _torch_name = "torch.optim.asgd.ASGD"
    _DEFAULTS = "lr lambd alpha t0 weight_decay foreach maximize differentiable capturable"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check("learning rate", lr, "weight_decay value", weight_decay)
        super().__init__(params, _options(locals(), self._DEFAULTS))

    def _update(self, p, grad, group, state):
        lr, lambd, scalar = group["lr"], group["lambd"], _scalar_dtype()
        data, dtype, grad = _begin(p, grad, group, state, eta=np.array(lr, scalar),
                                   mu=np.ones((), scalar), ax=0)
        t = dtype.type
        grad = _decayed(grad, data, group["weight_decay"], dtype)
        eta_value = float(state["eta"])
        data *= t(1 - lambd * eta_value)
        data[...] = _rounded(data + np.float64(t(-eta_value)) * grad, dtype)
        ax, writes = state["ax"], 1
        if float(state["mu"]) != 1:
            ax += (data - ax) * t(float(state["mu"]))
        else:
            ax[...] = data
        step = state["step"]
        state["eta"][...] = lr / ((1 + lambd * lr * step) ** group["alpha"])
        state["mu"][...] = 1 / max(1, step - group["t0"])
        return {"step": 1, "ax": writes, "eta": 1, "mu": 1, None: 2}

