"""torch.nn.Module: parameters, buffers and submodules registered by assignment, hooks,
state_dict/load_state_dict, train/eval, `.to()`/`.double()`, and its printed form, as PyTorch
2.13's.  The modules built on it are gradcli.nn.modules'; its hooks run in gradcli.nn.hooks."""

import warnings
from collections import OrderedDict
from collections.abc import Mapping

from ..engine import callables
from ..engine.grad_mode import no_grad
from ..engine.tensor import Tensor
from ..engine.torch_classes import TorchClass
from .parameter import Parameter
from .hooks import _HOOK_REGISTRIES, _GlobalHooks, _call_with_hooks, add_hook
from .hooks import (register_module_backward_hook, register_module_forward_hook,  # noqa: F401
                    register_module_forward_pre_hook, register_module_full_backward_hook,
                    register_module_full_backward_pre_hook)

# (torch.nn.modules.module, as programs see it)
__all__ = ["Module", "Buffer", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_full_backward_hook"]


def _add_indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module(metaclass=TorchClass):
    """Base class of models: assigning a Parameter or a Module to an attribute registers it;
    calling the module runs its forward."""

    _torch_name = "torch.nn.modules.module.Module"
    _version = 1  # (what state_dict hooks get as local_metadata's version)

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        state = {"_parameters": {}, "_buffers": {}, "_non_persistent_buffers_set": set(),
                 "_modules": {}, "training": True, "_is_full_backward_hook": None}
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
                self._backward_pre_hooks or _GlobalHooks.any()):
            # (a program's `m.forward = f`: held to what the program's own call of f would be)
            return callables.checked(self.forward)(*args, **kwargs)
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
        _set_member(self, name, param)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        _check_member_name(self, name, "module", self._modules)
        self._modules[name] = module
        _set_member(self, name, module)

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
        _set_member(self, name, tensor)

    def get_buffer(self, target):
        return self._get_member(target, "_buffers", "a buffer")

    def get_parameter(self, target):
        return self._get_member(target, "_parameters", "an nn.Parameter")

    def _get_member(self, target, registry, kind):
        """The buffer or parameter at dotted `target`, with PyTorch's errors."""
        *path, name = target.split(".")
        module = self.get_submodule(".".join(path))
        members = getattr(module, registry)
        if name not in members:
            if not _has_member(module, name):
                raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
            raise AttributeError(f"`{name}` is not {kind}")
        return members[name]

    def get_submodule(self, target):
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if item not in module._modules:
                if not _has_member(module, item):
                    raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
                raise AttributeError(f"`{item}` is not an nn.Module")
            module = module._modules[item]
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) (with_kwargs: hook(module, args, kwargs)) runs before forward;
        what it returns (not None) replaces the arguments."""
        return add_hook(self._forward_pre_hooks, hook,
                        [(self._forward_pre_hooks_with_kwargs, with_kwargs)], prepend)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """hook(module, args, output) (with_kwargs: hook(module, args, kwargs, output)) runs
        after forward; what it returns (not None) replaces the output."""
        return add_hook(self._forward_hooks, hook,
                        [(self._forward_hooks_with_kwargs, with_kwargs),
                         (self._forward_hooks_always_called, always_call)], prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) runs when the gradients of the module's outputs are known;
        what it returns (not None) replaces them."""
        return add_hook(self._backward_pre_hooks, hook, prepend=prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) runs when the gradients of the module's inputs
        are known; what it returns (not None) replaces grad_input."""
        self._set_backward_hook_kind(True)
        return add_hook(self._backward_hooks, hook, prepend=prepend)

    def register_backward_hook(self, hook):
        """The deprecated backward hook: hook(module, grad_input, grad_output) with the
        gradients of the node that made the output's first tensor (see gradcli.nn.hooks)."""
        self._set_backward_hook_kind(False)
        return add_hook(self._backward_hooks, hook)

    def _set_backward_hook_kind(self, full):
        if self._is_full_backward_hook is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", full)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) runs before state_dict() collects the module."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) runs after state_dict() collected
        the module; it edits state_dict in place (returning something is an error)."""
        return add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) runs before load_state_dict() loads the module."""
        return add_hook(self._load_state_dict_pre_hooks, hook)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) runs after load_state_dict() loaded the module and
        its children; it edits the keys in place (returning something is an error)."""
        return add_hook(self._load_state_dict_post_hooks, hook)

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
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars]
                                              [len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in list(self._state_dict_hooks.values()):
            if hook(self, destination, prefix, local_metadata) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """PyTorch's: each module loads its own keys (after its pre-hooks), then its children,
        then its post-hooks run."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, missing,
                                         unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in list(module._load_state_dict_post_hooks.values()):
                if hook(module, keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")

        load(self, state_dict)
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

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, missing, unexpected,
                              errors):
        for hook in list(self._load_state_dict_pre_hooks.values()):
            hook(self, state_dict, prefix, local_metadata, True, missing, unexpected, errors)
        local_state = {k: v for k, v in [*self._parameters.items(), *(
            (k, b) for k, b in self._buffers.items()
            if k not in self._non_persistent_buffers_set)] if v is not None}
        for name, p in local_state.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected '
                              f"torch.Tensor or Tensor-like object from checkpoint but received "
                              f"{type(value)}")
                continue
            if p.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
                value = value[0]  # (PyTorch's allowance for old checkpoints)
            if value.shape != p.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{value.shape} from checkpoint, the shape in current model is "
                              f"{p.shape}.")
                continue
            with no_grad():   # (copied as it goes: an error leaves the others loaded)
                p.copy_(value)
        for key in state_dict:
            if key.startswith(prefix):
                first, *rest = key[len(prefix):].split(".", 1)
                if first not in (self._modules if rest else local_state):
                    unexpected.append(key)

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
                        _set_member(module, name, new)
                for name, b in module._buffers.items():
                    if b is not None:
                        new = convert(b)
                        module._buffers[name] = new
                        _set_member(module, name, new)
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


def _typename(obj):
    if isinstance(obj, Tensor):
        return "torch." + {"float32": "FloatTensor", "float64": "DoubleTensor"}.get(
            obj.dtype.name, "Tensor")
    return type(obj).__name__


def _set_member(module, name, value):
    """A registered parameter, buffer or child module as an attribute of its module too
    (`m.weight`), unless its name starts with `_`: PyTorch lets `register_buffer('_mask', t)`
    be, and its state_dict() and named_*() list it; here it lives in the module's registry
    only, so that no name a program gives becomes one of the `_` attributes the engine reads
    (which no program reaches: see README, "Safety and limits")."""
    if not name.startswith("_"):
        object.__setattr__(module, name, value)


def _has_member(module, name):
    """Whether `module.name` is something (never one of the engine's `_` attributes)."""
    return not name.startswith("_") and hasattr(module, name) or any(
        name in members for members in (module._parameters, module._buffers, module._modules))


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
