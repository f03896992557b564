"""torch.func: JAX-style transforms (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
vmap, functional_call, linearize) on gradcli's eager autograd.

Each transform calls the function on stand-ins for its inputs (leaves that require grad, or
differentiable aliases of inputs that already do) and differentiates with autograd.grad; the
graph of the derivative is kept only where something outside can differentiate it again (a
transform around this one, or inputs that require grad), so that transforms nest:
`grad(grad(f))`, `jacfwd(jacrev(f))`.  jacfwd and jvp compute with reverse mode (the same
numbers, through a double backward for jvp); vmap maps by running the function on each slice
and stacking the results."""

import functools

from .engine import callables, messages
from .engine.autograd import grad as _autograd_grad
from .engine.grad_mode import enable_grad
from .engine.random import Vmap, VmapLevel
from .engine.tensor import BatchedSample, Tensor, check_numel, mark_batched, unmark_batched

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "linearize"]


class _Transforms:
    depth = 0          # transforms running around the current call


def _nested_call(func, *args, **kwargs):
    """func(*args, **kwargs) under enable_grad, as the program's own call of it would be."""
    func = callables.checked(func)
    _Transforms.depth += 1
    try:
        with enable_grad():
            return func(*args, **kwargs)
    finally:
        _Transforms.depth -= 1


# ---------------------------------------------------------------------- pytrees

def _flatten(tree):
    """(leaves, rebuild): the leaves of nested tuples, lists and dicts, and a function that
    builds the same structure from new leaves."""
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(t) for t in tree]
        leaves = [leaf for p in parts for leaf in p[0]]
        kind = type(tree)

        def rebuild(new):
            out, i = [], 0
            for sub_leaves, sub_rebuild in parts:
                out.append(sub_rebuild(new[i:i + len(sub_leaves)]))
                i += len(sub_leaves)
            return kind(out) if kind in (tuple, list) else kind(*out)
        return leaves, rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        values, rebuild_values = _flatten([tree[k] for k in keys])
        return values, lambda new: dict(zip(keys, rebuild_values(new)))
    return [tree], lambda new: new[0]


def _spec(tree):
    """The structure of a pytree as PyTorch's TreeSpec prints it (for messages)."""
    if isinstance(tree, (tuple, list)):
        return f"TreeSpec({type(tree).__name__}, None, [{', '.join(_spec(t) for t in tree)}])"
    if isinstance(tree, dict):
        return f"TreeSpec(dict, {list(tree)}, [{', '.join(_spec(v) for v in tree.values())}])"
    return "*"


def _same_structure(a, b):
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b) and
                all(_same_structure(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b) and
                all(_same_structure(a[k], b[k]) for k in a))
    return True


# ---------------------------------------------------------------------- inputs

def _stand_in(t):
    """What the function is called on in place of t: a leaf that requires grad, or (if t
    already does, for an outer transform or the user's autograd) a differentiable alias."""
    if not isinstance(t, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    if t.requires_grad:
        return t.view_as(t)
    if not t.dtype.is_floating_point and not t.dtype.is_complex:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return t.detach().requires_grad_(True)


def _argnums(argnums, args):
    """(is a tuple, the positions) of argnums, checked as PyTorch checks them."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        positions, is_tuple = (argnums,), False
    elif isinstance(argnums, tuple) and argnums and all(
            isinstance(a, int) and not isinstance(a, bool) for a in argnums):
        positions, is_tuple = argnums, True
    elif isinstance(argnums, tuple) and not argnums:
        raise RuntimeError("argnums must be non-empty")
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    checked = []
    for a in positions:
        if not -len(args) <= a < len(args):
            raise RuntimeError(f"Got argnum={a}, but only {len(args)} positional inputs")
        checked.append(a % len(args))
    if len(set(checked)) != len(checked):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return is_tuple, checked


def _prepare(args, positions):
    """args with stand-ins for the trees at positions; the stand-in leaves, per position, and
    whether the caller's inputs require grad."""
    args = list(args)
    leaves, rebuilds, tracked = [], [], False
    for p in positions:
        flat, rebuild = _flatten(args[p])
        tracked = tracked or any(isinstance(t, Tensor) and t.requires_grad for t in flat)
        new = [_stand_in(t) for t in flat]
        args[p] = rebuild(new)
        leaves.append(new)
        rebuilds.append(rebuild)
    return args, leaves, rebuilds, tracked


def _keeps_graph(tracked):
    """Whether derivatives keep their graph: a transform runs around this one, or the inputs
    require grad."""
    return tracked or _Transforms.depth > 0


def _finish(t, keep):
    return t if keep or not isinstance(t, Tensor) else t.detach()


def _gradients(outputs, inputs, grad_outputs, keep):
    """autograd.grad with zeros for inputs that the outputs do not depend on."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if pairs:
        found = _autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs],
                               retain_graph=True, create_graph=keep, allow_unused=True)
    else:
        found = [None] * len(inputs)
    return [x.new_zeros(x.shape) if g is None else g for g, x in zip(found, inputs)]


def _split_aux(output, has_aux, name):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{name}: output of function f should be a tuple: (output, aux) if "
                           f"has_aux is True")
    return output


# ---------------------------------------------------------------------- grad

def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (the gradient of func's scalar output with respect to the
    arguments at argnums, func's output)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        name = "grad_and_value(f)(*args)"
        is_tuple, positions = _argnums(argnums, args)
        args, leaves, rebuilds, tracked = _prepare(args, positions)
        keep = _keeps_graph(tracked)
        output = _nested_call(func, *args, **kwargs)
        output, aux = _split_aux(output, has_aux, name)
        if not isinstance(output, Tensor):
            raise RuntimeError(f"{name}: Expected f(*args) to return a Tensor, got "
                               f"{type(output)}")
        if output.dim() != 0:
            raise RuntimeError(f"{name}: Expected f(*args) to return a scalar Tensor, got tensor "
                               f"with {output.dim()} dims. Maybe you wanted to use the vjp or "
                               f"jacrev APIs instead?")
        flat = [leaf for group in leaves for leaf in group]
        found = _gradients([output], flat, [output.new_ones(())], keep or _Transforms.depth > 0)
        grads, i = [], 0
        for group, rebuild in zip(leaves, rebuilds):
            grads.append(rebuild([_finish(g, keep) for g in found[i:i + len(group)]]))
            i += len(group)
        result = tuple(grads) if is_tuple else grads[0]
        value = _finish(output, keep)
        if has_aux:
            return result, (value, _aux(aux, keep))
        return result, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning the gradient of func's scalar output with respect to the arguments
    at argnums (and func's auxiliary output, with has_aux=True)."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradients, value = both(*args, **kwargs)
        return (gradients, value[1]) if has_aux else gradients
    return wrapper


# ---------------------------------------------------------------------- vjp, jvp, linearize

def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn): vjp_fn(cotangents) is the tuple of vector-Jacobian products,
    one per primal."""
    args, leaves, rebuilds, tracked = _prepare(primals, range(len(primals)))
    keep = _keeps_graph(tracked)
    output = _nested_call(func, *args)
    output, aux = _split_aux(output, has_aux, "vjp(f, *primals)")
    outputs, _ = _flatten(output)
    for o in outputs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f(*primals) to return only tensors, "
                               f"got unsupported type {type(o)}")

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        if not _same_structure(cotangents, output):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as "
                               f"pytree structure of outputs to the function. cotangents: "
                               f"{_structure_text(cotangents)}, primal output: "
                               f"{_structure_text(output)}")
        flat_cotangents, _ = _flatten(cotangents)
        graph = keep or _Transforms.depth > 0 or any(
            isinstance(c, Tensor) and c.requires_grad for c in flat_cotangents)
        flat = [leaf for group in leaves for leaf in group]
        found = _gradients(outputs, flat, flat_cotangents, graph)
        grads, i = [], 0
        for group, rebuild in zip(leaves, rebuilds):
            grads.append(rebuild([_finish(g, graph) for g in found[i:i + len(group)]]))
            i += len(group)
        return tuple(grads)

    result = _rebuild_like(output, keep)
    if has_aux:
        return result, vjp_fn, _aux(aux, keep)
    return result, vjp_fn


def _structure_text(tree):
    """A pytree's structure as PyTorch's vjp error prints it: `*` for a leaf."""
    if isinstance(tree, tuple):
        inner = ", ".join(_structure_text(t) for t in tree)
        return f"({inner},)" if len(tree) == 1 else f"({inner})"
    if isinstance(tree, list):
        return "[" + ", ".join(_structure_text(t) for t in tree) + "]"
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {_structure_text(v)}" for k, v in tree.items()) + "}"
    return "*"


def _rebuild_like(tree, keep):
    leaves, rebuild = _flatten(tree)
    return rebuild([_finish(t, keep) for t in leaves])


def _aux(tree, keep):
    """A function's auxiliary output (has_aux=True) handed back: tensors only, as PyTorch's
    transforms unwrap it."""
    leaves, rebuild = _flatten(tree)
    for t in leaves:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(t)}")
    return rebuild([_finish(t, keep) for t in leaves])


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian-vector product with tangents)."""
    name = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{name}: Expected primals to be a tuple. E.g. it should be valid to "
                           f"call f(*primals).")
    if not isinstance(tangents, tuple) or not _same_structure(primals, tangents):
        raise RuntimeError(f"{name}: Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, "
                           f"tangents also must be. Got primals with structure {_spec(primals)} "
                           f"and tangents with structure {_spec(tangents)}")
    flat_primals, rebuild_primals = _flatten(primals)
    flat_tangents, _ = _flatten(tangents)
    for p, t in zip(flat_primals, flat_tangents):
        if isinstance(p, Tensor) and isinstance(t, Tensor) and p.shape != t.shape:
            raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                               f"that of the original Tensor, this is not supported. Tensor is "
                               f"of size {list(p.shape)} while the given forward gradient is of "
                               f"size {list(t.shape)}.")
    args, leaves, _, tracked = _prepare(primals, range(len(primals)))
    keep = _keeps_graph(tracked) or any(isinstance(t, Tensor) and t.requires_grad
                                        for t in flat_tangents)
    flat = [leaf for group in leaves for leaf in group]
    if _forward_mode_applies(keep):
        from .autograd import forward_ad
        with forward_ad.dual_level():
            duals = [forward_ad.make_dual(p, t) for p, t in zip(flat, flat_tangents)]
            output, aux, outputs = _call_checked(func, rebuild_primals(duals), {}, has_aux,
                                                 name)
            unpacked = [forward_ad.unpack_dual(o) for o in outputs]
            outputs = [u.primal for u in unpacked]
            products = [o.new_zeros(o.shape) if u.tangent is None else u.tangent
                        for o, u in zip(outputs, unpacked)]
            aux = _rebuild_primals(aux, forward_ad.unpack_dual)
    else:
        output, aux, outputs = _call_checked(func, args, {}, has_aux, name)
        products = _forward_products(outputs, flat, flat_tangents, keep)
    rebuild = _flatten(output)[1]
    # (PyTorch hands the output back through an alias: AliasBackward0 where it needs a graph)
    from .ops.registry import OPS
    aliased = [OPS["alias"].apply((o,), ()) if keep and o.requires_grad else _finish(o, keep)
               for o in outputs]
    result = (rebuild(aliased), rebuild([_finish(p, keep) for p in products]))
    return (*result, _aux(aux, keep)) if has_aux else result


def _only_tensors(outputs, where):
    for o in outputs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{where}: Expected f(*args) to return only tensors, got "
                               f"unsupported type {type(o)}")


def _forward_products(outputs, inputs, tangents, keep):
    """The Jacobian-vector products J t of outputs with respect to inputs, by the double-vjp
    trick: u -> J^T u is linear in u, and its vjp with t is J t."""
    # (an output of integers or bools has no tangent of its own: PyTorch's forward AD gives it
    # zeros of its dtype)
    differentiable = [o for o in outputs if o.is_floating_point() or o.is_complex()]
    if not differentiable:
        return [o.new_zeros(o.shape) for o in outputs]
    dummies = [o.new_zeros(o.shape).requires_grad_(True) for o in differentiable]
    with enable_grad():
        transposed = _gradients(differentiable, inputs, dummies, True)
    pairs = [(g, t) for g, t in zip(transposed, tangents) if g.requires_grad]
    if not pairs:
        return [o.new_zeros(o.shape) for o in outputs]
    found = iter(_autograd_grad([g for g, _ in pairs], dummies, [t for _, t in pairs],
                                retain_graph=True, create_graph=keep, allow_unused=True))
    products = []
    for o in outputs:
        p = next(found) if o.is_floating_point() or o.is_complex() else None
        products.append(o.new_zeros(o.shape) if p is None else p)
    return products


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is the Jacobian-vector product at primals."""
    output = callables.checked(func)(*primals)

    def jvp_fn(*tangents):
        for i, (p, t) in enumerate(zip(primals, tangents)):
            if isinstance(p, Tensor) and isinstance(t, Tensor) and t.shape != p.shape:
                raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree "
                                   f"doesn't match the shape {p.shape} of the corresponding "
                                   f"primal.")
        return jvp(func, primals, tangents)[1]
    return output, jvp_fn


# ---------------------------------------------------------------------- Jacobians

def _jacobian(func, argnums, has_aux, name):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        is_tuple, positions = _argnums(argnums, args)
        args, leaves, rebuilds, tracked = _prepare(args, positions)
        keep = _keeps_graph(tracked)
        flat = [leaf for group in leaves for leaf in group]
        if name == "jacfwd" and _forward_mode_applies(keep):
            def substitute(new_flat):
                new, i = list(args), 0
                for p, group, rebuild in zip(positions, leaves, rebuilds):
                    new[p] = rebuild(new_flat[i:i + len(group)])
                    i += len(group)
                return new
            output, aux, blocks = _forward_blocks(func, substitute, kwargs, flat, has_aux, name)
        else:
            output, aux, blocks = _reverse_blocks(func, args, kwargs, flat, has_aux, name, keep)
        outputs, rebuild_outputs = _flatten(output)
        per_output = []
        for o, row in zip(outputs, blocks):
            columns = [_finish(block, keep) for block in row]
            grouped, i = [], 0
            for group, rebuild in zip(leaves, rebuilds):
                grouped.append(rebuild(columns[i:i + len(group)]))
                i += len(group)
            per_output.append(tuple(grouped) if is_tuple else grouped[0])
        result = rebuild_outputs(per_output)
        return (result, _aux(aux, keep)) if has_aux else result
    return wrapper


def _call_checked(func, args, kwargs, has_aux, where):
    """(output, aux, output's tensors) of func called as a transform calls it, its output
    checked (where: the transform's name in the messages)."""
    output = _nested_call(func, *args, **kwargs)
    output, aux = _split_aux(output, has_aux, where)
    outputs, _ = _flatten(output)
    _only_tensors(outputs, where)
    return output, aux, outputs


def _reverse_blocks(func, args, kwargs, flat, has_aux, name, keep):
    """(output, aux, blocks[i][j] = d output i / d flat j), row by row in reverse mode."""
    from .autograd.functional import check_jacobian_blocks, reverse_jacobian_rows
    from .ops import stack
    output, aux, outputs = _call_checked(func, args, kwargs, has_aux, f"{name}(f, ...)(*args)")
    check_jacobian_blocks(outputs, flat)
    blocks = []
    for o in outputs:
        if keep:  # (the rows' graphs start at one-hot gradients of o, as vmap's vjp's do)
            rows = []
            basis = o.new_zeros((o.numel(),))
            for i in range(o.numel()):
                e = basis.clone()
                e[i] = 1
                rows.append(_gradients([o], flat, [e.reshape(o.shape)], keep))
            rows = [[r[j] for r in rows] for j in range(len(flat))]
        else:  # (autograd.functional.jacobian's rows, which share one pass's counts)
            rows = reverse_jacobian_rows(o, flat, False)
        blocks.append([(stack(rows[j]) if rows[j] else x.new_zeros((0, *x.shape)))
                       .reshape((*o.shape, *x.shape)) for j, x in enumerate(flat)])
    return output, aux, blocks


def _forward_mode_applies(keep):
    """Whether jacfwd and jvp compute in forward mode, as PyTorch does: when no forward level
    is open already (gradcli's forward AD has one level) and the result need not be
    differentiable (gradcli's tangents carry no graph); else the same numbers come from
    reverse mode."""
    from .engine.tangents import ForwardAD
    return not keep and ForwardAD.level is None


def _forward_blocks(func, substitute, kwargs, flat, has_aux, name):
    """(output, aux, blocks[i][j] = d output i / d flat j), column by column in forward mode
    (all columns at once where the ops batch their tangents); substitute(duals) gives the
    arguments with the duals in place of the leaves flat."""
    from .autograd.functional import forward_jacobian
    from .autograd.forward_ad import unpack_dual
    called = {}

    def on_duals(*duals):
        output, aux, outputs = _call_checked(func, substitute(duals), kwargs, has_aux,
                                              f"{name}(f, ...)(*args)")
        called["output"] = _rebuild_primals(output, unpack_dual)
        called["aux"] = _rebuild_primals(aux, unpack_dual)
        return tuple(outputs)

    _, blocks = forward_jacobian(on_duals, tuple(flat))
    return called["output"], called["aux"], blocks


def _rebuild_primals(tree, unpack_dual):
    leaves, rebuild = _flatten(tree)
    return rebuild([unpack_dual(t).primal if isinstance(t, Tensor) else t for t in leaves])


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """A function returning the Jacobian of func with respect to the arguments at argnums
    (shape: output's shape + input's shape), row by row in reverse mode."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """A function returning the Jacobian of func with respect to the arguments at argnums, as
    jacrev does (gradcli computes it in reverse mode)."""
    return _jacobian(func, argnums, has_aux, "jacfwd")


def hessian(func, argnums=0):
    """The Hessian of a scalar function: jacfwd(jacrev(func, argnums), argnums)."""
    return jacfwd(jacrev(func, argnums), argnums)


# ---------------------------------------------------------------------- vmap

def _function_name(func):
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) else repr(func)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over a dimension of its inputs (in_dims: an int, None, or a tuple matching
    the arguments) and its results stacked along out_dims.

    gradcli runs func once per sample.  As in PyTorch, reading the value of a tensor that
    depends on the mapped inputs (.item(), float(), bool() and `if` on a tensor, .tolist(),
    .numpy()) is refused there (other tensors' values may be read), and so are random draws unless randomness is 'different' (each sample
    gets its row of one batched draw, as PyTorch draws it) or 'same' (every sample gets the one
    draw)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(messages.VMAP_RANDOMNESS.format(randomness=randomness))
    for dim in (out_dims if isinstance(out_dims, tuple) else (out_dims,)):
        if dim is not None and type(dim) is not int and not isinstance(dim, (list, dict)):
            raise ValueError(f"vmap({_function_name(func)}, ..., out_dims={out_dims}): "
                             f"`out_dims` must be an int, None or a python collection of ints "
                             f"representing where in the outputs the vmapped dimension should "
                             f"appear.")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        name = _function_name(func)
        where = f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>)"
        if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
            raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                             f"tuple matching the structure of inputs, got: {type(in_dims)}.")
        if isinstance(in_dims, tuple) and len(in_dims) != len(args):
            raise ValueError(f"{where}: in_dims is not compatible with the structure of "
                             f"`inputs`. in_dims has structure {_spec(in_dims)} but inputs has "
                             f"structure {_spec(args)}.")
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        flat_args, flat_dims, rebuilds = [], [], []
        for arg, dim in zip(args, dims):
            leaves, rebuild = _flatten(arg)
            leaf_dims = _broadcast_dims(dim, arg, where)
            flat_args.append(leaves)
            flat_dims.append(leaf_dims)
            rebuilds.append(rebuild)
        size = None
        sizes = []
        for leaves, leaf_dims in zip(flat_args, flat_dims):
            for leaf, dim in zip(leaves, leaf_dims):
                if dim is None:
                    continue
                if not isinstance(leaf, Tensor):
                    raise ValueError(f"{where}: Got in_dim={dim} for an input but the input is "
                                     f"of type {type(leaf)}. We cannot vmap over non-Tensor "
                                     f"arguments, please use None as the respective in_dim")
                if not -max(leaf.dim(), 1) <= dim < max(leaf.dim(), 1) or leaf.dim() == 0:
                    raise ValueError(f"{where}: Got in_dim={dim} for some input, but that input "
                                     f"is a Tensor of dimensionality {leaf.dim()} so expected "
                                     f"in_dim to satisfy -{leaf.dim()} <= in_dim < "
                                     f"{leaf.dim()}.")
                sizes.append(leaf.shape[dim])
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if len(set(sizes)) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        size = sizes[0]
        results, call = [], callables.checked(func)
        level = VmapLevel(randomness, size)
        Vmap.levels.append(level)
        try:
            for i in range(size):
                sample = [rebuild([leaf if dim is None else _sample(leaf, dim, i)
                                   for leaf, dim in zip(leaves, leaf_dims)])
                          for leaves, leaf_dims, rebuild in zip(flat_args, flat_dims, rebuilds)]
                level.start_sample(i)
                results.append(call(*sample, **kwargs))
                if i == 0:
                    _check_stacked(results[0], out_dims, name, size)
        finally:
            Vmap.levels.remove(level)
        stacked = _stack_results(results, out_dims, name)
        if not Vmap.levels:  # (outside every vmap, no tensor is batched)
            unmark_batched(_flatten(stacked)[0])
        return stacked
    return wrapper


def _sample(leaf, dim, i):
    """Sample i of a mapped input: a tensor that depends on the mapped inputs, whose value the
    function may not read (PyTorch's BatchedTensor)."""
    sample = leaf.select(dim, i)
    mark_batched((sample,))
    return sample


def _broadcast_dims(dim, arg, where):
    """The in_dim of each leaf of arg, from an int/None or a tree matching arg."""
    leaves, _ = _flatten(arg)
    if dim is None or isinstance(dim, int):
        return [dim] * len(leaves)
    if not _same_structure(dim, arg):
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`.")
    return _flatten(dim)[0]


def _output_dims(first, out_dims, name):
    """(the leaves of the first sample's result, their rebuild, the out_dim of each)."""
    leaves, rebuild = _flatten(first)
    if isinstance(out_dims, tuple):
        if not (isinstance(first, tuple) and len(first) == len(out_dims)):
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims!r})(<inputs>): out_dims is not "
                             f"compatible with the structure of `outputs`. out_dims has structure "
                             f"{_spec(out_dims)} but outputs has structure {_spec(first)}.")
        dims = [d for d, out in zip(out_dims, first) for d in [d] * len(_flatten(out)[0])]
    else:
        dims = [out_dims] * len(leaves)
    return leaves, rebuild, dims


def _check_stacked(first, out_dims, name, size):
    """The stacks of `size` samples like the first within the element limit, before the other
    samples are computed (their results are kept until the stack)."""
    leaves, _, dims = _output_dims(first, out_dims, name)
    for leaf, dim in zip(leaves, dims):
        if dim is not None and isinstance(leaf, Tensor):
            check_numel((size,) + tuple(leaf.shape))


def _stack_results(results, out_dims, name):
    from .ops import stack
    leaves, rebuild, dims = _output_dims(results[0], out_dims, name)
    stacked = []
    for j, dim in enumerate(dims):
        column = [_flatten(r)[0][j] for r in results]
        if dim is None:   # (PyTorch's: no out_dim for a result that depends on the inputs)
            if type(column[0]) is BatchedSample:
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 f"when out_dim is None")
            stacked.append(column[0])
            continue
        if not all(isinstance(c, Tensor) for c in column):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(column[0])}. Did you mean to set out_dims= to None for "
                             f"output?")
        stacked.append(stack(column, dim=dim))
    return rebuild(stacked)


# ---------------------------------------------------------------------- modules

def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with some of its parameters replaced by the given tensors (by
    dotted name), the module itself left as it was."""
    from .nn.module import Module
    if not isinstance(module, Module):
        raise TypeError(f"functional_call: expected a torch.nn.Module, got {type(module)}")
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (tuple, list)):
        merged, repeated = {}, []
        for d in dicts:
            repeated += [key for key in d if key in merged and key not in repeated]
            merged.update(d)
        if repeated:   # (all of them, as PyTorch names them)
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             f"functional call is ambiguous")
        dicts = merged
    if strict:   # (the parameters' and buffers' names, as PyTorch's check_keys)
        own = {name for name, _ in module.named_parameters(remove_duplicate=False)} | \
            {name for name, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(own - set(dicts)), sorted(set(dicts) - own)
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "\n\t".join(errors))
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    saved = []
    try:
        for dotted, value in dicts.items():
            owner = module
            *path, attr = _parameter_path(dotted)
            for part in path:   # (a Sequential's children are named "0", "1", ...)
                children = owner.__dict__.get("_modules", {})
                owner = children[part] if part in children else getattr(owner, part)
                if not isinstance(owner, Module):
                    raise AttributeError(f"{type(owner).__name__} has no submodule `{part}`")
            previous = owner.__dict__.get(attr, _MISSING)
            _check_swap(owner, attr, value, previous)
            saved.append((owner, attr, previous))
            object.__setattr__(owner, attr, value)
        return module(*args, **(kwargs or {}))
    finally:
        for owner, attr, previous in reversed(saved):
            if previous is _MISSING:
                object.__delattr__(owner, attr)
            else:
                object.__setattr__(owner, attr, previous)


_MISSING = object()


def _check_swap(owner, attr, value, previous):
    """PyTorch's swap_tensor: a tensor (or None) takes the place of a tensor, a None or an
    attribute the module has not (a method, `training`, a program's number stay as they are:
    `functional_call(m, {"forward": f})` is refused)."""
    from .engine.tensor import Tensor
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{_text(value)} is not an instance of torch.Tensor")
    if previous is _MISSING:
        previous = getattr(owner, attr, None)
    if previous is not None and not isinstance(previous, Tensor):
        raise TypeError(f"attribute `{attr}`: {_text(previous)} is not an instance of "
                        f"torch.Tensor")


def _text(value):
    """str(value) for PyTorch's message (a number too long for str(): its type's name)."""
    try:
        return str(value)
    except ValueError:
        return f"<{type(value).__name__} object>"


def stack_module_state(models):
    """(params, buffers) of models of one class, each name's tensors stacked along a new first
    dimension (leaves that require grad when the models' do): for vmap over an ensemble."""
    from .ops import stack
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(members):
        tables = [dict(members(m)) for m in models]
        out = {}
        for name in tables[0]:
            tensors = [table[name] for table in tables]
            wanted = {t.requires_grad for t in tensors}
            if len(wanted) > 1:
                raise RuntimeError(f"Expected {name} from each model to have the same "
                                   f".requires_grad")
            result = stack(tensors)
            out[name] = result.detach().requires_grad_() if wanted == {True} else result
        return out
    return stacked(lambda m: m.named_parameters()), stacked(lambda m: m.named_buffers())


def _parameter_path(dotted):
    """The parts of a parameter's dotted name: public names only (a program gives them)."""
    parts = dotted.split(".") if isinstance(dotted, str) else [None]
    if not all(isinstance(p, str) and (p.isdigit() or p.isidentifier() and not p.startswith("_"))
               for p in parts):
        raise AttributeError(f"functional_call: {dotted!r} does not name a parameter or a "
                             f"buffer of the module")
    return parts
