"""Saved tensors: what a node keeps for its backward (SavedTensor, SavedOutput, checked against
the version counter as PyTorch checks it), and torch.autograd.graph's saved_tensors_hooks,
save_on_cpu and disable_saved_tensors_hooks with the PackedTensor a pack hook's result lives in."""

from . import messages
from .grad_mode import INFERENCE_SAVED, GradMode, InferenceCounter, InferenceMode
from .torch_classes import TorchClass, torch_repr


def version_error(tensor_type, shape, node, nr, current, saved):
    """PyTorch's error for a saved tensor modified in place (node, nr: the tensor's grad_fn)."""
    origin = "" if node is None else messages.INPLACE_ORIGIN.format(
        output_nr=nr, node=node.short_name())
    return RuntimeError(messages.INPLACE_MODIFIED.format(
        tensor_type="torch." + tensor_type, sizes=", ".join(map(str, shape)), origin=origin,
        current=current, saved=saved))


class SavedTensor:
    """A tensor saved for backward, with its version at the time it was saved (custom
    Functions; the op table's nodes keep the same information in flat tuples)."""

    __slots__ = ("tensor", "version", "saved_version", "origin")

    def __init__(self, tensor):
        self.tensor = tensor
        self.version = tensor._counter
        if type(self.version) is InferenceCounter and not InferenceMode.enabled:
            raise RuntimeError(INFERENCE_SAVED)
        self.saved_version = tensor._counter[0]
        self.origin = None  # PyTorch names the tensor's grad_fn at the time of the error

    def check_version(self):
        if self.version[0] != self.saved_version:
            t = self.tensor
            node, nr = self.origin or (t.grad_fn, t._output_nr)
            raise version_error(t.dtype.tensor_type, t._data.shape, node, nr, self.version[0],
                                self.saved_version)

    def unpack(self):
        self.check_version()
        return self.tensor


class SavedOutput(SavedTensor):
    """An output saved by the node that made it; rebuilt on unpack so the node does not keep its
    own output alive (that would be a reference cycle)."""

    __slots__ = ("data", "output_nr")

    def __init__(self, tensor):
        SavedTensor.__init__(self, tensor)
        self.data = tensor._data
        self.output_nr = tensor._output_nr
        self.tensor = None
        self.origin = None, 0

    def unpack_for(self, node):
        from .tensor import Tensor
        if self.version[0] != self.saved_version:
            self.tensor = Tensor._make(self.data, None, 0, False)
            self.origin = node, self.output_nr
            self.check_version()
        t = Tensor._make(self.data, node, self.output_nr, True)
        t._vc = self.version
        return t


class _SavedTensorsHooks:
    """The pack/unpack hook pairs of open `saved_tensors_hooks` contexts, innermost last (the
    one that applies), and the message of an open `disable_saved_tensors_hooks` (a slotted
    instance, as GradMode)."""
    __slots__ = ("stack", "disabled")

    def __init__(self):
        self.stack = []
        self.disabled = None


SavedHooks = _SavedTensorsHooks()


class saved_tensors_hooks(metaclass=TorchClass):
    """Context manager: every tensor saved for backward while it is open is handed to
    pack_hook(tensor), and what that returns is kept instead; the backward pass (or reading
    `grad_fn._saved_*`) gets the tensor back from unpack_hook(packed).  A tensor restored so
    keeps the saved tensor's place in the graph; in-place changes are not checked for it."""

    _torch_name = "torch.autograd.graph.saved_tensors_hooks"

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    __repr__ = torch_repr

    def __enter__(self):
        if SavedHooks.disabled is not None:
            raise RuntimeError(SavedHooks.disabled)
        SavedHooks.stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc):
        SavedHooks.stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """saved_tensors_hooks that keep saved tensors on the CPU (where gradcli's tensors always
    are: the tensor itself, or with pin_memory=True a copy of it)."""

    _torch_name = "torch.autograd.graph.save_on_cpu"

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return tensor.device, (tensor.detach().clone() if pin_memory else tensor)

        def unpack_from_cpu(packed):
            return packed[1]
        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks(metaclass=TorchClass):
    """Context manager (or decorator) during which opening saved_tensors_hooks raises
    RuntimeError(error_message)."""

    _torch_name = "torch.autograd.graph.disable_saved_tensors_hooks"

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self._previous = SavedHooks.disabled
        SavedHooks.disabled = self.error_message

    def __exit__(self, *exc):
        SavedHooks.disabled = self._previous

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)
        return wrapper


class PackedTensor:
    """A tensor saved for backward through saved_tensors_hooks: what pack_hook returned, the
    unpack_hook that turns it back into a tensor, and the saved tensor's autograd place
    (grad_fn and output number; the leaf, for a leaf that requires grad)."""

    __slots__ = ("value", "unpack_hook", "grad_fn", "output_nr", "requires_grad", "leaf",
                 "output")

    def __init__(self, tensor, output=False, hooks=None, place=None):
        """tensor: what pack_hook gets; hooks: (pack_hook, unpack_hook), by default those of
        the innermost saved_tensors_hooks; place: the tensor whose place in the graph the
        unpacked tensor takes (default: tensor itself)."""
        self.output = output
        pack_hook, self.unpack_hook = hooks or SavedHooks.stack[-1]
        vc = tensor._vc
        before = vc[0] if vc is not None else 0
        previous = GradMode.enabled
        GradMode.enabled = False
        try:
            self.value = pack_hook(tensor)
        finally:
            GradMode.enabled = previous
        vc = tensor._vc
        if (vc[0] if vc is not None else 0) != before:
            raise RuntimeError(messages.PACK_HOOK_INPLACE)
        if output:  # its grad_fn is the node that keeps this (given to unpack: no cycle)
            self.grad_fn, self.output_nr, self.requires_grad, self.leaf = (
                None, tensor._output_nr, True, None)
        else:
            place = tensor if place is None else place
            self.grad_fn, self.output_nr = place.grad_fn, place._output_nr
            self.requires_grad = place.requires_grad_flag
            self.leaf = place if place.grad_fn is None and place.requires_grad_flag else None

    def unpack(self, node=None):
        """The tensor unpack_hook gives back, in the saved tensor's place in the graph (node:
        the grad_fn of a saved output)."""
        from .tensor import Tensor
        data = self.unpack_hook(self.value)
        if not isinstance(data, Tensor):
            raise TypeError(messages.UNPACK_HOOK_NOT_TENSOR.format(type=type(data).__name__))
        fn = node if node is not None else self.grad_fn
        if data is self.leaf or (fn is not None and data.grad_fn is fn
                                 and data._output_nr == self.output_nr):
            return data
        t = Tensor._make(data._data, fn, self.output_nr if fn is not None else 0,
                         self.requires_grad)
        if self.leaf is not None:  # gradients through it reach the leaf's .grad
            t._accum_ref = self.leaf._accum_ref
        return t

    def unpack_for(self, node):
        """(custom Functions) node: the node that saved this."""
        return self.unpack(node if self.output else None)
