"""A module's hooks, run as PyTorch's Module._call_impl runs them: forward pre-hooks and hooks
(with_kwargs, prepend, always_call), full backward (pre-)hooks through PyTorch's own
BackwardHookFunction, so that a module's inputs and outputs show `BackwardHookFunctionBackward`
in the graph and the hooks get grad_input/grad_output as PyTorch passes them, and the deprecated
(non-full) backward hooks on the node of the output's first tensor.  The global hooks of
torch.nn.modules.module (register_module_forward_hook, ...) run before every module's own."""

import warnings
from collections import OrderedDict

from ..autograd.function import Function
from ..engine import callables
from ..engine.grad_mode import GradMode
from ..engine.graph import RemovableHandle as _RemovableHandle
from ..engine.tensor import Tensor



_HOOK_REGISTRIES = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                    "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                    "_backward_hooks", "_backward_pre_hooks", "_state_dict_hooks",
                    "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                    "_load_state_dict_post_hooks")


class _GlobalHooks:
    """torch.nn.modules.module's hooks common to all modules (PyTorch's module globals);
    `is_full_backward_hook` is None until a global backward hook of either kind is registered."""
    forward_pre_hooks = OrderedDict()
    forward_hooks = OrderedDict()
    forward_hooks_with_kwargs = OrderedDict()
    forward_hooks_always_called = OrderedDict()
    backward_hooks = OrderedDict()
    backward_pre_hooks = OrderedDict()
    is_full_backward_hook = None

    @classmethod
    def any(cls):
        return bool(cls.forward_pre_hooks or cls.forward_hooks or cls.backward_hooks or
                    cls.backward_pre_hooks)

    @classmethod
    def clear(cls):
        """A fresh interpreter's (a replayed session starts with none)."""
        for registry in (cls.forward_pre_hooks, cls.forward_hooks, cls.forward_hooks_with_kwargs,
                         cls.forward_hooks_always_called, cls.backward_hooks,
                         cls.backward_pre_hooks):
            registry.clear()
        cls.is_full_backward_hook = None


def add_hook(hooks, hook, flags=(), prepend=False):
    """Register hook in hooks: flags are (registry, on) pairs, the registry holding the hook's
    id when on (with_kwargs, always_call); its handle removes it from all of them."""
    handle = RemovableHandle(hooks, extra_dict=[registry for registry, _ in flags])
    hooks[handle.id] = callables.checked(hook)
    for registry, on in flags:
        if on:
            registry[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook):
    """hook(module, args) runs before every module's forward (before its own pre-hooks)."""
    return add_hook(_GlobalHooks.forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """hook(module, args, output) runs after every module's forward (before its own hooks)."""
    return add_hook(_GlobalHooks.forward_hooks, hook,
                    [(_GlobalHooks.forward_hooks_with_kwargs, with_kwargs),
                     (_GlobalHooks.forward_hooks_always_called, always_call)])


def _register_global_backward_hook(hook, full):
    if _GlobalHooks.is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _GlobalHooks.is_full_backward_hook = full
    return add_hook(_GlobalHooks.backward_hooks, hook)


def register_module_backward_hook(hook):
    """The deprecated global backward hook (see Module.register_backward_hook)."""
    return _register_global_backward_hook(hook, False)


def register_module_full_backward_hook(hook):
    """hook(module, grad_input, grad_output) for every module, before its own."""
    return _register_global_backward_hook(hook, True)


def register_module_full_backward_pre_hook(hook):
    """hook(module, grad_output) for every module, before its own."""
    return add_hook(_GlobalHooks.backward_pre_hooks, hook)


def backward_hooks(module):
    """The module's full and non-full backward hooks, the global ones first."""
    full, non_full = [], []
    for is_full, hooks in ((_GlobalHooks.is_full_backward_hook, _GlobalHooks.backward_hooks),
                           (module._is_full_backward_hook, module._backward_hooks)):
        if is_full is not None:
            (full if is_full else non_full).extend(hooks.values())
    return full, non_full


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
        for where, hooks, always, with_kwargs in (
                ("global module", _GlobalHooks.forward_hooks,
                 _GlobalHooks.forward_hooks_always_called, ()),
                ("module", module._forward_hooks, module._forward_hooks_always_called,
                 module._forward_hooks_with_kwargs)):
            for hook_id, hook in list(hooks.items()):
                if hook_id not in always or hook_id in state["called"]:
                    continue
                try:
                    if hook_id in with_kwargs:
                        result = hook(module, args, kwargs, state["result"])
                    else:
                        result = hook(module, args, state["result"])
                    if result is not None:
                        state["result"] = result
                except Exception as e:
                    warnings.warn(f"{where} forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {str(e)}", stacklevel=2)
        raise


def _hooked_call(module, args, kwargs, state):
    full_hooks, non_full_hooks = backward_hooks(module)
    backward_pre_hooks = [*_GlobalHooks.backward_pre_hooks.values(),
                          *module._backward_pre_hooks.values()]
    for hook_id, hook in [*_GlobalHooks.forward_pre_hooks.items(),
                          *module._forward_pre_hooks.items()]:
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
    if full_hooks or backward_pre_hooks:
        hook = _BackwardHook(module, full_hooks, backward_pre_hooks)
        args = hook.setup_input_hook(args)
        state["args"] = args
    result = callables.checked(module.forward)(*args, **kwargs)
    state["result"] = result
    for hook_id, fn in [*_GlobalHooks.forward_hooks.items(), *module._forward_hooks.items()]:
        if hook_id in module._forward_hooks_always_called or \
                hook_id in _GlobalHooks.forward_hooks_always_called:
            state["called"].add(hook_id)
        if hook_id in module._forward_hooks_with_kwargs or \
                hook_id in _GlobalHooks.forward_hooks_with_kwargs:
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
    if non_full_hooks:
        _set_non_full_backward_hooks(module, non_full_hooks, args, result)
    return result


def _set_non_full_backward_hooks(module, hooks, args, result):
    """The deprecated backward hooks: hook(module, grad_input, grad_output) on the node of the
    output's first tensor, with that node's own gradients (grad_input is the gradients of the
    node's inputs, which are the module's only when forward is one op)."""
    var = result
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) \
            else var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(lambda grad_input, grad_output, hook=hook:
                              hook(module, grad_input, grad_output))
    message = _non_full_hook_warning(args, result, grad_fn)
    if message:
        warnings.warn(message, FutureWarning, stacklevel=4)


_ADVICE = "Please use register_full_backward_hook to get the documented behavior."


def _non_full_hook_warning(inputs, result, grad_fn):
    """PyTorch's Module._maybe_warn_non_full_backward_hook: the warning's text up to its advice
    (None: the hook sees what a full hook would)."""
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        return ("Using non-full backward hooks on a Module that does not return a single Tensor "
                "or a tuple of Tensors is deprecated and will be removed in future versions. "
                "This hook will be missing some of the grad_output. " + _ADVICE)
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        return ("Using non-full backward hooks on a Module that does not take as input a single "
                "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                "versions. This hook will be missing some of the grad_input. " + _ADVICE)
    out_grad_fn = {id(r.grad_fn) for r in result if r.grad_fn is not None}
    if not out_grad_fn or (len(out_grad_fn) == 1 and id(grad_fn) not in out_grad_fn):
        return ("Using a non-full backward hook when outputs are nested in python data structure "
                "is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_output.")
    if len(out_grad_fn) > 1:
        return ("Using a non-full backward hook when outputs are generated by different autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_output. " + _ADVICE)
    inputs_grad_fn = {id(i.grad_fn) for i in inputs if i.grad_fn is not None}
    if inputs_grad_fn != {id(node) for node, _ in grad_fn.next_functions}:
        return ("Using a non-full backward hook when the forward contains multiple autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_input. " + _ADVICE)
    return None


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
