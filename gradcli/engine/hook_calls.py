"""Calling the hooks of a backward pass: tensor hooks and retained gradients of a node's
outputs, a leaf's post-accumulate-grad hooks, and PyTorch's checks of what a hook returns (for
node hooks too).  The engine loop that calls them is gradcli.engine.backward's."""

from . import messages
from .graph import _fresh


def _hook_name(hook):
    """The hook's `__name__` if it is a string, else `<unknown>` (PyTorch's hook_name)."""
    try:
        name = hook.__name__
    except Exception:  # noqa: BLE001  (PyTorch's PyObject_HasAttrString swallows any error)
        return "<unknown>"
    return name if isinstance(name, str) else "<unknown>"


def _type_string(dtype):
    """A tensor's type as PyTorch's TensorOptions::toString prints it: `torch.FloatTensor`, or
    `CPUBoolType` for the types without a legacy tensor class (bool, complex)."""
    if dtype.category in (0, 3):
        return f"CPU{dtype.short}Type"
    return "torch." + dtype.tensor_type


def _check_hook_value(hook, old, new):
    """PyTorch's check of a gradient new (not None) that a hook returned in place of old."""
    from .tensor import Tensor
    if old is None:
        raise RuntimeError(messages.HOOK_REPLACED_NONE)
    if not isinstance(new, Tensor):
        raise TypeError(messages.HOOK_RETURNED_NOT_TENSOR.format(type=messages.type_name(new)))
    if new.dtype is not old.dtype:
        raise RuntimeError(messages.HOOK_CHANGED_TYPE.format(
            name=_hook_name(hook), was=_type_string(old.dtype), got=_type_string(new.dtype)))
    if new._data.shape != old._data.shape:
        raise RuntimeError(messages.HOOK_CHANGED_SIZE.format(name=_hook_name(hook)))
    return new


def _check_hook_values(hook, old, new):
    """The tuple of gradients new (not None) that a Node hook returned in place of the tuple
    old, checked as PyTorch checks it."""
    if not isinstance(new, tuple):
        raise TypeError(messages.HOOK_RETURNED_NOT_TUPLE.format(type=messages.type_name(new)))
    if len(new) != len(old):
        raise RuntimeError(messages.HOOK_RETURNED_WRONG_COUNT.format(
            name=_hook_name(hook), got=len(new), expected=len(old)))
    for o, n in zip(old, new):
        if n is not None:
            _check_hook_value(hook, o, n)
    return new


def _call_tensor_hooks(node, grads):
    """The hooks registered on the tensors node produced, then their retained gradients
    (PyTorch's tensor pre-hooks and retains_grad hooks): a hook sees None for an output that
    received no gradient, and may return None for it, not a tensor."""
    hooks = node._tensor_hooks
    if hooks:
        for nr, fns in hooks.items():
            for fn in list(fns.values()):
                new = fn(grads[nr])
                if new is not None:
                    grads[nr] = _check_hook_value(fn, grads[nr], new)
    retains = node._retains
    if retains:
        for nr, ref in list(retains.items()):
            t = ref()
            g = grads[nr]
            if t is None or g is None:
                continue
            if t._grad is None:
                t._grad = _fresh(g) if not g.requires_grad else g
            else:
                t._grad = t._grad + g
            t._grad_count = t._grad_count + 1


def _call_post_accumulate_hooks(variable):
    """Tensor.register_post_accumulate_grad_hook's hooks: each is called with the leaf; a value
    returned is checked and handed to the next hook as the tensor, then refused."""
    t = variable
    replaced = False
    for fn in list(variable._post_acc_hooks.values()):
        new = fn(t)
        if new is not None and new is not t:
            t = _check_hook_value(fn, t, new)
            replaced = True
    if replaced:
        raise RuntimeError(messages.POST_ACC_HOOK_RETURNED)
