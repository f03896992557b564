"""torch.optim: SGD, Adam, AdamW and RMSprop (LBFGS: gradcli.optim.lbfgs; Adagrad, Adadelta,
Adamax, NAdam, RAdam, Rprop and ASGD: gradcli.optim.more), stepping as PyTorch's single-tensor
implementations step: each `a + alpha * b` (add with alpha, lerp, addcmul) computed in float64
and rounded once to the parameter's dtype, as PyTorch's fused multiply-add rounds it.  SGD's
steps are PyTorch's bit for bit; Adam's and RMSprop's may differ in the last bit where PyTorch's
vectorised sqrt (SLEEF's, within 0.5001 ulp) rounds differently from the correctly rounded one.
lr_scheduler holds the schedulers."""

import math

import numpy as np

from ..engine.grad_mode import no_grad
from ..engine.torch_classes import TorchClass

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "LBFGS", "lr_scheduler", "Adagrad",
           "Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"]


class Optimizer(metaclass=TorchClass):
    """Holds parameter groups and per-parameter state; step() updates the parameters."""

    _torch_name = "torch.optim.optimizer.Optimizer"

    def __init__(self, params, defaults):
        from ..engine.tensor import Tensor
        if isinstance(params, Tensor):
            raise TypeError(f"params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.defaults = defaults
        self.state = {}
        self.param_groups = []
        for group in groups:
            group = dict(group)
            group["params"] = [group["params"]] if isinstance(group["params"], Tensor) \
                else list(group["params"])
            for p in group["params"]:
                if not isinstance(p, Tensor):
                    raise TypeError(f"optimizer can only optimize Tensors, but one of the "
                                    f"params is {_qualname(p)}")
                if not (p.is_leaf or p.retains_grad):
                    raise ValueError("can't optimize a non-leaf Tensor")
            for key, value in defaults.items():
                group.setdefault(key, value)
            self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad.zero_()

    def step(self, closure=None):
        _stepped(self)
        loss = None
        if closure is not None:
            from ..engine.grad_mode import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._step_one(p, group)
        return loss

    def _step_one(self, p, group):
        """_update on the parameter's state as NumPy arrays (and the step count a number); the
        state keeps tensors on those arrays, as PyTorch's holds tensors (`opt.state[p]`).  What
        _update wrote in place has its version counter bumped as PyTorch's in-place ops bump it
        (the parameter's, and its state's: `exp_avg.lerp_(...)`, `step_t += 1`), so that a graph
        that saved one of them refuses to use it after the step."""
        from ..engine.tensor import Tensor
        state = self.state.setdefault(p, {})
        arrays = {name: _state_value(name, value, p) if isinstance(value, Tensor) else value
                  for name, value in state.items()}
        writes = self._update(p, p.grad._data, group, arrays)
        p._counter[0] += writes.pop(None, 1)
        for name, value in arrays.items():
            kept = state.get(name)
            if isinstance(kept, Tensor) and name == "step" and not isinstance(value, np.ndarray):
                kept.fill_(value)   # (PyTorch's `step_t += 1` on the state's tensor)
                continue
            if not (isinstance(kept, Tensor) and kept._data is value):
                kept = state[name] = _state_tensor(name, value)
            if isinstance(kept, Tensor):
                kept._counter[0] += writes.get(name, 0)

    def state_dict(self):
        """PyTorch's form: {'state': {index: {name: tensor}}, 'param_groups': [group with its
        parameters' indices]}, the parameters numbered in their groups' order; the tensors
        share the optimizer's state (its NumPy arrays), as PyTorch's are its state's own."""
        from ..engine.tensor import Tensor
        index, groups = {}, []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {}
        for p, values in self.state.items():
            if not values:   # (a step that keeps nothing, as SGD without momentum: no entry)
                continue
            state[index[id(p)] if isinstance(p, Tensor) else p] = {
                name: _state_tensor(name, value) for name, value in values.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """The state and hyperparameters of state_dict (from state_dict(), saved and loaded),
        its tensors cast to their parameters' dtypes (but `step`), as PyTorch's are (_loaded)."""
        from ..engine.tensor import Tensor
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        params = {}
        for group, saved in zip(groups, saved_groups):
            params.update(zip(saved["params"], group["params"]))
        state = {}
        for key, values in state_dict["state"].items():
            p = params.get(key)
            if p is None:
                state[key] = values
                continue
            state[p] = {name: _loaded(name, value, p) if isinstance(value, Tensor) else value
                        for name, value in values.items()}
        self.state = state
        self.param_groups = [dict(saved, params=group["params"])
                             for group, saved in zip(groups, saved_groups)]

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):   # (a blank line between groups)
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _stepped(optimizer):
    """A step of an optimizer that a scheduler steps: PyTorch's wrapper of its step() notes it
    (`_opt_called`), and the scheduler's first step warns when it is missing."""
    if getattr(optimizer, "_wrapped_by_lr_sched", False):
        optimizer._opt_called = True


def _state_tensor(name, value):
    """A state value as state_dict() shows it: a NumPy array as a tensor on its memory, Adam's
    step count as the float tensor PyTorch counts it in."""
    from ..engine.dtypes import get_default_dtype
    from ..engine.tensor import Tensor
    if isinstance(value, np.ndarray):
        return Tensor._make(value, None, 0, False)
    if name == "step" and isinstance(value, int):
        dtype = np.float64 if get_default_dtype().name == "float64" else np.float32
        return Tensor._make(np.array(value, dtype), None, 0, False)
    return value


def _loaded(name, tensor, p):
    """A loaded state tensor as PyTorch's load_state_dict keeps it: the tensor itself (the
    program's, whose version counter the steps then bump), cast to a floating parameter's
    dtype but for `step`."""
    if name != "step" and p.is_floating_point() and tensor.dtype != p.dtype:
        return tensor.to(p.dtype)
    return tensor


# (the state PyTorch keeps as a scalar tensor of its scalar dtype, whatever the parameter's:
# NAdam's mu_product, ASGD's eta and mu)
SCALAR_STATE = frozenset(("mu_product", "eta", "mu"))


def _state_value(name, tensor, p):
    """A state tensor as the optimizer steps it: the step count a number (PyTorch's
    `step_t.item()`), other tensors the parameter's dtype (a NumPy array, shared with the
    tensor when it is)."""
    if name == "step":
        return tensor.item()
    data = tensor._data
    if p.is_floating_point() and data.dtype != p._data.dtype and name not in SCALAR_STATE:
        data = data.astype(p._data.dtype)
    return data


def _qualname(value):
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def _typename(t):
    return "torch." + {"float32": "FloatTensor", "float64": "DoubleTensor"}.get(
        t.dtype.name, "Tensor")


def _rounded(values, dtype):
    return np.asarray(values, np.float64).astype(dtype)


def _addcmul(base, scaled, other, dtype):
    """base + value * t1 * t2 as PyTorch's addcmul computes it, given scaled = value * t1 (in
    the tensors' dtype): one fused multiply-add of scaled and t2 onto base."""
    return _rounded(base + scaled.astype(np.float64) * other, dtype)


class SGD(Optimizer):
    """p -= lr * g, where g = grad + weight_decay * p, through a momentum buffer (buf = momentum
    * buf + (1 - dampening) * g; nesterov: g + momentum * buf) when momentum is given."""

    _torch_name = "torch.optim.sgd.SGD"

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    def _update(self, p, grad, group, state):
        data, dtype = p._data, p._data.dtype
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"]:
            grad = _rounded(grad + np.float64(dtype.type(group["weight_decay"])) * data, dtype)
        momentum, writes = group["momentum"], {}
        if momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.copy()
            else:   # (buf.mul_(momentum).add_(grad, alpha=1 - dampening))
                buf[...] = _rounded(buf * np.float64(dtype.type(momentum)), dtype)
                buf[...] = _rounded(buf + np.float64(dtype.type(1 - group["dampening"])) * grad,
                                    dtype)
                writes["momentum_buffer"] = 2
            if group["nesterov"]:
                grad = _rounded(grad + np.float64(dtype.type(momentum)) * buf, dtype)
            else:
                grad = buf
        data[...] = _rounded(data + np.float64(dtype.type(-group["lr"])) * grad, dtype)
        return writes


class Adam(Optimizer):
    """Adam (Kingma and Ba) as PyTorch steps it: moments by lerp and addcmul, bias corrections,
    p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)."""

    _torch_name = "torch.optim.adam.Adam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused, decoupled_weight_decay=decoupled_weight_decay))

    def _update(self, p, grad, group, state):
        data, dtype = p._data, p._data.dtype
        t = dtype.type
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(data)
            state["exp_avg_sq"] = np.zeros_like(data)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = np.zeros_like(data)
        if group["maximize"]:
            grad = -grad
        beta1, beta2 = group["betas"]
        lr, eps, decay = group["lr"], group["eps"], group["weight_decay"]
        state["step"] += 1
        step = state["step"]
        if decay:
            if group["decoupled_weight_decay"]:
                data[...] = _rounded(data * np.float64(t(1 - lr * decay)), dtype)
            else:
                grad = _rounded(grad + np.float64(t(decay)) * data, dtype)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m[...] = _rounded(m + np.float64(t(1 - beta1)) * (grad - m).astype(dtype), dtype)
        v *= t(beta2)
        v[...] = _rounded(v + np.float64(t(1 - beta2)) * grad * grad.astype(np.float64), dtype)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        root = math.sqrt(bias_correction2)
        if group["amsgrad"]:
            peak = state["max_exp_avg_sq"]
            np.maximum(peak, v, out=peak)
            v = peak
        denom = np.sqrt(v) / t(root) + t(eps)
        data += t(-step_size) * m / denom         # (addcdiv: value * t1 / t2, then the sum)
        # (step_t += 1, exp_avg.lerp_, exp_avg_sq.mul_().addcmul_(), maximum(out=), and the
        # parameter's mul_ (decoupled decay) and addcdiv_)
        return {"step": 1, "exp_avg": 1, "exp_avg_sq": 2, "max_exp_avg_sq": int(group["amsgrad"]),
                None: 2 if decay and group["decoupled_weight_decay"] else 1}


class AdamW(Adam):
    """Adam with decoupled weight decay (p *= 1 - lr * weight_decay before the step), 0.01 by
    default: PyTorch's AdamW is its Adam with decoupled_weight_decay=True."""

    _torch_name = "torch.optim.adamw.AdamW"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


class RMSprop(Optimizer):
    """RMSprop as PyTorch steps it: square_avg = alpha * square_avg + (1 - alpha) * g * g,
    avg = sqrt(square_avg) + eps (centered: sqrt(square_avg - grad_avg^2) + eps),
    p -= lr * g / avg, through a momentum buffer when momentum is given."""

    _torch_name = "torch.optim.rmsprop.RMSprop"

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        for what, value in (("learning rate", lr), ("epsilon value", eps),
                            ("momentum value", momentum), ("weight_decay value", weight_decay),
                            ("alpha value", alpha)):
            if not value >= 0.0:
                raise ValueError(f"Invalid {what}: {value}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, p, grad, group, state):
        data, dtype = p._data, p._data.dtype
        t = dtype.type
        if not state:   # (the step count, then buffers of zeros like the parameter)
            state.update(step=0, square_avg=np.zeros_like(data))
            state.update({name: np.zeros_like(data) for name, wanted in (
                ("momentum_buffer", group["momentum"] > 0), ("grad_avg", group["centered"]))
                if wanted})
        if group["maximize"]:
            grad = -grad
        state["step"] += 1
        alpha, decay = group["alpha"], group["weight_decay"]
        if decay:
            grad = _rounded(grad + np.float64(t(decay)) * data, dtype)
        square_avg = state["square_avg"]
        square_avg *= t(alpha)
        square_avg[...] = _addcmul(square_avg, t(1 - alpha) * grad, grad, dtype)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg[...] = _rounded(grad_avg + np.float64(t(1 - alpha))
                                     * (grad - grad_avg).astype(dtype), dtype)
            avg = np.sqrt(_addcmul(square_avg, -grad_avg, grad_avg, dtype))
        else:
            avg = np.sqrt(square_avg)
        avg = avg + t(group["eps"])
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf *= t(group["momentum"])
            buf += grad / avg
            data[...] = _rounded(data + np.float64(t(-group["lr"])) * buf, dtype)
        else:
            data += t(-group["lr"]) * grad / avg
        # (step += 1, square_avg.mul_().addcmul_(), grad_avg.lerp_, buf.mul_().addcdiv_())
        return {"step": 1, "square_avg": 2, "grad_avg": int(bool(group["centered"])),
                "momentum_buffer": 2 if group["momentum"] > 0 else 0}


from . import lr_scheduler  # noqa: E402  (its schedulers step these optimizers)
from .lbfgs import LBFGS  # noqa: E402  (an Optimizer)
from .more import ASGD, Adadelta, Adagrad, Adamax, NAdam, RAdam, Rprop  # noqa: E402,F401
