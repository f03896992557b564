"""torch.nn's Module and the few modules autograd snippets build small models from: Linear,
Sequential, activations and losses.  A program's `class Net(torch.nn.Module)` registers its
parameters and submodules by assigning them, as in PyTorch."""

import math
import warnings
from collections import OrderedDict

from ..autograd.function import Function
from ..engine import callables
from ..engine.grad_mode import GradMode, no_grad
from ..engine.graph import RemovableHandle as _RemovableHandle
from ..engine.tensor import Tensor
from ..engine.torch_classes import TorchClass
from . import functional as F
from . import init
from .parameter import Parameter

__all__ = ["Module", "Buffer", "Linear", "Identity", "Sequential", "ReLU", "Tanh", "Sigmoid",
           "Softplus", "LeakyReLU", "GELU", "SiLU", "ELU", "Softmax", "LogSoftmax", "MSELoss",
           "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "ModuleList"]


def _add_indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module(metaclass=TorchClass):
    """Base class of models: assigning a Parameter or a Module to an attribute registers it;
    calling the module runs its forward."""

    _torch_name = "torch.nn.modules.module.Module"

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        state = {"_parameters": {}, "_buffers": {}, "_non_persistent_buffers_set": set(),
                 "_modules": {}, "training": True}
        for registry in _HOOK_REGISTRIES:
            state[registry] = OrderedDict()
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        parameters = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, (Parameter, Module)):
            if parameters is None:
                kind = "parameters" if isinstance(value, Parameter) else "module"
                raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
            parameters.pop(name, None)
            modules.pop(name, None)
            buffers.pop(name, None)
            self._non_persistent_buffers_set.discard(name)
            (parameters if isinstance(value, Parameter) else modules)[name] = value
        elif parameters is not None and name in parameters:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                f"(torch.nn.Parameter or None expected)")
            parameters[name] = None
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                f"(torch.nn.Module or None expected)")
            modules[name] = None
        elif isinstance(value, Tensor) and _is_buffer(value):
            persistent = getattr(value, "persistent", True)
            self.register_buffer(name, value, persistent)
            return
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                f"(torch.nn.Buffer, torch.Tensor or None expected)")
            buffers[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        self.__dict__.get("_parameters", {}).pop(name, None)
        self.__dict__.get("_modules", {}).pop(name, None)
        self.__dict__.get("_buffers", {}).pop(name, None)
        self.__dict__.get("_non_persistent_buffers_set", set()).discard(name)
        object.__delattr__(self, name)

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or
                self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return _call_with_hooks(self, args, kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  f'"forward" function')

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name(self, name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            f"(torch.nn.Parameter or None required)")
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        _check_member_name(self, name, "module", self._modules)
        self._modules[name] = module
        object.__setattr__(self, name, module)

    register_module = add_module

    def register_buffer(self, name, tensor, persistent=True):
        """A tensor that belongs to the module's state but is no parameter (a running mean):
        in state_dict() unless persistent is False, moved by .to()/.double()/.float()."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if (hasattr(self, name) and name not in self._buffers) or name.startswith("__"):
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            f"(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)
        object.__setattr__(self, name, tensor)

    def get_buffer(self, target):
        *path, name = target.split(".")
        module = self.get_submodule(".".join(path))
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return module._buffers[name]

    def get_parameter(self, target):
        *path, name = target.split(".")
        module = self.get_submodule(".".join(path))
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        if name not in module._parameters:
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return module._parameters[name]

    def get_submodule(self, target):
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) (with_kwargs: hook(module, args, kwargs)) runs before forward;
        what it returns (not None) replaces the arguments."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = callables.checked(hook)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """hook(module, args, output) (with_kwargs: hook(module, args, kwargs, output)) runs
        after forward; what it returns (not None) replaces the output."""
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs,
                                             self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = callables.checked(hook)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) runs when the gradients of the module's outputs are known;
        what it returns (not None) replaces them."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = callables.checked(hook)
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) runs when the gradients of the module's inputs
        are known; what it returns (not None) replaces grad_input."""
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = callables.checked(hook)
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    # ------------------------------------------------------------------ walking the tree
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        if id(self) in memo and remove_duplicate:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                                remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        walk = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in walk:
            for name, p in module._parameters.items():
                if p is None or (remove_duplicate and id(p) in seen):
                    continue
                seen.add(id(p))
                yield (f"{module_prefix}.{name}" if module_prefix else name), p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        walk = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in walk:
            for name, b in module._buffers.items():
                if b is None or (remove_duplicate and id(b) in seen):
                    continue
                seen.add(id(b))
                yield (f"{module_prefix}.{name}" if module_prefix else name), b

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # (PyTorch's deprecated positional form)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars]
                                              [len(args):])[:3]
        out = OrderedDict() if destination is None else destination
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                out[prefix + name] = b if keep_vars else b.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=out, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for name, p in own.items():
            if name not in state_dict:
                continue
            value = state_dict[name]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{name}", expected '
                              f"torch.Tensor or Tensor-like object from checkpoint but received "
                              f"{type(value)}")
                continue
            if p.dim() == 0 and value.dim() == 1:  # (PyTorch's allowance for old checkpoints)
                value = value[0]
            if value.shape != p.shape:
                errors.append(f"size mismatch for {name}: copying a param with shape "
                              f"{value.shape} from checkpoint, the shape in current model is "
                              f"{p.shape}.")
                continue
            with no_grad():   # (copied as it goes: an error leaves the others loaded)
                p.copy_(value)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------------ modes and gradients
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.detach_().zero_() if p.grad.grad_fn is not None else p.grad.zero_()

    def apply(self, fn):
        fn = callables.checked(fn)
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _convert(self, convert):
        with no_grad():
            for module in self.modules():
                for name, p in module._parameters.items():
                    if p is not None:
                        new = Parameter(convert(p.detach()), p.requires_grad)
                        module._parameters[name] = new
                        object.__setattr__(module, name, new)
                for name, b in module._buffers.items():
                    if b is not None:
                        new = convert(b)
                        module._buffers[name] = new
                        object.__setattr__(module, name, new)
        return self

    def double(self):
        return self._convert(lambda t: t.double() if t.is_floating_point() else t)

    def float(self):
        return self._convert(lambda t: t.float() if t.is_floating_point() else t)

    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype", next((a for a in args if not isinstance(a, str) and
                                          type(a).__name__ == "dtype"), None))
        if dtype is None:
            return self
        return self._convert(lambda t: t.to(dtype) if t.is_floating_point() or t.is_complex()
                             else t)

    def cpu(self):
        return self

    # ------------------------------------------------------------------ printing
    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({name}): {_add_indent(repr(module), 2)}"
                    for name, module in self._modules.items()]
        lines += children
        text = type(self).__name__ + "("
        if lines:
            if len(lines) == 1 and not children:
                text += extra
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


class _IncompatibleKeys:
    def __init__(self, missing_keys, unexpected_keys):
        self.missing_keys = missing_keys
        self.unexpected_keys = unexpected_keys

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")


_HOOK_REGISTRIES = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                    "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                    "_backward_hooks", "_backward_pre_hooks")


class RemovableHandle(_RemovableHandle):
    """A module hook's handle: remove() takes the hook out of its registry and of the
    registries of its flags (with_kwargs, always_call), as torch.utils.hooks' does."""

    _torch_name = "torch.utils.hooks.RemovableHandle"

    def __init__(self, hooks, *, extra_dict=None):
        super().__init__(hooks)
        self._extra = [extra_dict] if isinstance(extra_dict, dict) else list(extra_dict or ())

    def remove(self):
        super().remove()
        for extra in self._extra:
            extra.pop(self.id, None)


class _BufferMeta(TorchClass):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and _is_buffer(obj)


class Buffer(Tensor, metaclass=_BufferMeta):
    """nn.Buffer(data, persistent=True): a tensor that, assigned to a module's attribute,
    registers as a buffer (PyTorch's gives back a plain tensor, marked)."""

    _torch_name = "torch.nn.parameter.Buffer"

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from ..ops import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t.__dict__["_gradcli_buffer_persistent"] = persistent
        return t

    def __init__(self, *args, **kwargs):
        pass


def _is_buffer(t):
    return "_gradcli_buffer_persistent" in t.__dict__


def _call_with_hooks(module, args, kwargs):
    """Module.__call__ when hooks are registered, in PyTorch's order (Module._call_impl):
    forward pre-hooks, the backward hooks' node on the inputs, forward, forward hooks, the
    backward hooks' node on the outputs; forward hooks with always_call also run when forward
    (or a hook) raised."""
    state = {"result": None, "called": set()}
    try:
        return _hooked_call(module, args, kwargs, state)
    except Exception:
        args, kwargs = state.get("args", args), state.get("kwargs", kwargs)
        for hook_id, hook in list(module._forward_hooks.items()):
            if hook_id in module._forward_hooks_always_called and \
                    hook_id not in state["called"]:
                try:
                    if hook_id in module._forward_hooks_with_kwargs:
                        result = hook(module, args, kwargs, state["result"])
                    else:
                        result = hook(module, args, state["result"])
                    if result is not None:
                        state["result"] = result
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {str(e)}", stacklevel=2)
        raise


def _hooked_call(module, args, kwargs, state):
    backward_hooks = list(module._backward_hooks.values())
    backward_pre_hooks = list(module._backward_pre_hooks.values())
    for hook_id, hook in list(module._forward_pre_hooks.items()):
        if hook_id in module._forward_pre_hooks_with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        state["args"], state["kwargs"] = args, kwargs
    hook = None
    if backward_hooks or backward_pre_hooks:
        hook = _BackwardHook(module, backward_hooks, backward_pre_hooks)
        args = hook.setup_input_hook(args)
        state["args"] = args
    result = module.forward(*args, **kwargs)
    state["result"] = result
    for hook_id, fn in list(module._forward_hooks.items()):
        if hook_id in module._forward_hooks_always_called:
            state["called"].add(hook_id)
        if hook_id in module._forward_hooks_with_kwargs:
            new = fn(module, args, kwargs, result)
        else:
            new = fn(module, args, result)
        if new is not None:
            result = state["result"] = new
    if hook is not None:
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn(f"For backward hooks to be called, module output should be a Tensor "
                          f"or a tuple of Tensors but received {_python_type(result)}",
                          stacklevel=3)
        result = hook.setup_output_hook(result)
    return result


def _python_type(value):
    """type(value) as PyTorch's message prints it: `<class 'list'>`, `<class 'torch.Tensor'>`."""
    return repr(type(value))


class BackwardHookFunction(Function):
    """The identity that PyTorch's full backward hooks put on a module's inputs and outputs:
    its node (BackwardHookFunctionBackward) sees their gradients."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class _BackwardHookNode(BackwardHookFunction._backward_cls):
    """BackwardHookFunctionBackward: the gradients it passes on are the materialised ones it
    received, for every input (PyTorch's node keeps them where an input has no edge, and its
    hooks see them)."""

    def apply(self, grads):
        return [_zeros_like_meta(meta) if g is None else g
                for g, meta in zip(grads, self._output_meta)]


def _zeros_like_meta(meta):
    import numpy as np
    shape, dtype = meta
    return Tensor._make(np.zeros(shape, dtype), None, 0, False)


_BackwardHookNode.__name__ = _BackwardHookNode.__qualname__ = "BackwardHookFunctionBackward"
BackwardHookFunction._backward_cls = _BackwardHookNode


class _BackwardHook:
    """PyTorch's torch.utils.hooks.BackwardHook: a module's full backward (pre-)hooks, called
    from the hooks of the BackwardHookFunctionBackward nodes on its outputs (grad_output) and
    inputs (grad_input); non-tensor arguments and outputs are None there."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                return None  # (the gradient reached the inputs without passing the outputs)
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)
        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx, tensors, requires_grad = [], [], False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and GradMode.enabled):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None and
                    t.grad_fn.name() == "BackwardHookFunctionBackward"]
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                         self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        new = user_pre_hook(self.module, self.grad_outputs)
                        if new is None:
                            continue
                        if len(new) != expected_len:
                            raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                               f"grad_output, got {len(new)}, but expected "
                                               f"{expected_len}")
                        self.grad_outputs = new
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect "
                        "to module outputs since no inputs require gradients. See "
                        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                        "#torch.nn.Module.register_full_backward_hook for more details.",
                        UserWarning, stacklevel=2)
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and
                                                    all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input "
                                               "requires gradient should always return None or "
                                               "None for all gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None
            grad_fn.register_hook(hook)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]


def _typename(obj):
    if isinstance(obj, Tensor):
        return "torch." + {"float32": "FloatTensor", "float64": "DoubleTensor"}.get(
            obj.dtype.name, "Tensor")
    return type(obj).__name__


# ---------------------------------------------------------------------- layers

class Identity(Module):
    _torch_name = "torch.nn.modules.linear.Identity"

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x @ weight.T + bias, with PyTorch's initialisation (kaiming_uniform_ with a=sqrt(5)
    for the weight, uniform in +-1/sqrt(in_features) for the bias)."""

    _torch_name = "torch.nn.modules.linear.Linear"

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        from ..ops import empty
        self.weight = Parameter(empty((out_features, in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Sequential(Module):
    """Modules run one after the other; named "0", "1", ... (or by an OrderedDict's keys)."""

    _torch_name = "torch.nn.modules.container.Sequential"

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (dict, OrderedDict)):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules.values()))

    def __getitem__(self, index):
        modules = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(OrderedDict(modules[index]))
        return modules[index][1]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    _torch_name = "torch.nn.modules.container.ModuleList"

    def __init__(self, modules=None):
        super().__init__()
        for module in modules or ():
            self.append(module)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules.values()))

    def __getitem__(self, index):
        return list(self._modules.values())[index]


def _check_member_name(module, name, kind, members):
    """A parameter's or child module's name, checked as PyTorch checks it (and, gradcli's own,
    never a `__` name: the attribute is set on the object itself)."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\", got: {name}" if kind == "module"
                       else f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if (hasattr(module, name) and name not in members) or name.startswith("__"):
        raise KeyError(f"attribute '{name}' already exists")


def _activation(name, function, torch_module, arguments=(), repr_of=None):
    """A module class applying F.<function> with the keyword arguments it was made with."""
    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        values = dict(arguments)
        if len(args) > len(arguments):
            raise TypeError(f"{name}.__init__() takes from 1 to {len(arguments) + 1} positional "
                            f"arguments but {len(args) + 1} were given")
        values.update(zip([k for k, _ in arguments], args))
        for key in kwargs:
            if key not in values:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument "
                                f"'{key}'")
        values.update(kwargs)
        for key, value in values.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_arguments", values)

    def forward(self, input):
        return function(input, **self._arguments)

    def extra_repr(self):
        return repr_of(self) if repr_of else ""

    return TorchClass(name, (Module,), {"__init__": __init__, "forward": forward,
                                        "extra_repr": extra_repr, "__module__": __name__,
                                        "__qualname__": name,
                                        "_torch_name": f"torch.nn.modules.{torch_module}.{name}"})


def _inplace_repr(m):
    return "inplace=True" if m.inplace else ""


ReLU = _activation("ReLU", F.relu, "activation", (("inplace", False),), _inplace_repr)
Tanh = _activation("Tanh", F.tanh, "activation")
Sigmoid = _activation("Sigmoid", F.sigmoid, "activation")
SiLU = _activation("SiLU", F.silu, "activation", (("inplace", False),), _inplace_repr)
GELU = _activation("GELU", F.gelu, "activation", (("approximate", "none"),),
                   lambda m: f"approximate='{m.approximate}'")
Softplus = _activation("Softplus", F.softplus, "activation", (("beta", 1.0), ("threshold", 20.0)),
                       lambda m: f"beta={m.beta}, threshold={m.threshold}")
LeakyReLU = _activation("LeakyReLU", F.leaky_relu, "activation",
                        (("negative_slope", 0.01), ("inplace", False)),
                        lambda m: f"negative_slope={m.negative_slope}" +
                        (", inplace=True" if m.inplace else ""))
ELU = _activation("ELU", F.elu, "activation", (("alpha", 1.0), ("inplace", False)),
                  lambda m: f"alpha={m.alpha}" + (", inplace=True" if m.inplace else ""))
Softmax = _activation("Softmax", F.softmax, "activation", (("dim", None),),
                      lambda m: f"dim={m.dim}")
LogSoftmax = _activation("LogSoftmax", F.log_softmax, "activation", (("dim", None),),
                         lambda m: f"dim={m.dim}")


def _loss(name, function, arguments):
    cls = _activation(name, None, "loss", arguments)

    def forward(self, input, target):
        return function(input, target, **self._arguments)
    cls.forward = forward
    return cls


MSELoss = _loss("MSELoss", F.mse_loss, (("size_average", None), ("reduce", None),
                                        ("reduction", "mean")))
L1Loss = _loss("L1Loss", F.l1_loss, (("size_average", None), ("reduce", None),
                                     ("reduction", "mean")))
CrossEntropyLoss = _loss("CrossEntropyLoss", F.cross_entropy,
                         (("weight", None), ("size_average", None), ("ignore_index", -100),
                          ("reduce", None), ("reduction", "mean"), ("label_smoothing", 0.0)))
NLLLoss = _loss("NLLLoss", F.nll_loss, (("weight", None), ("size_average", None),
                                        ("ignore_index", -100), ("reduce", None),
                                        ("reduction", "mean")))
BCELoss = _loss("BCELoss", F.binary_cross_entropy, (("weight", None), ("size_average", None),
                                                    ("reduce", None), ("reduction", "mean")))
BCEWithLogitsLoss = _loss("BCEWithLogitsLoss", F.binary_cross_entropy_with_logits,
                          (("weight", None), ("size_average", None), ("reduce", None),
                           ("reduction", "mean"), ("pos_weight", None)))
