"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp.

Same structure, nesting of results and messages as PyTorch's: a single Tensor input/output gives
Tensors, tuples give tuples (jacobian[i][j] is d output i / d input j).  `vectorize=True` is
accepted and computes the same result row by row; forward mode computes column by column with
dual tensors.
"""

import numpy as np

from . import forward_ad as fwAD
from ..engine.autograd import _graph_options, grad as _grad
from ..engine.backward import run_backward
from ..engine.grad_mode import enable_grad, set_grad_enabled, GradMode
from ..engine.graph import AccumulateGrad, _edges
from ..engine.tangents import ForwardAD, Unbatchable
from ..engine.tensor import Tensor, check_numel

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(inp, arg_name=None, fn_name=None):
    if arg_name is None and fn_name is None:
        return inp if isinstance(inp, tuple) else tuple(inp) if isinstance(inp, list) else (inp,)
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            where = (f"the value at index {i} has type {type(el)}" if is_tuple
                     else f"the given {arg_name} has type {type(el)}")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh inputs to differentiate with respect to (views keeping the graph with
    create_graph, detached copies otherwise)."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view(tuple(inp.shape)))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got "
                               f"{el_v.size()}.")


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if inp.requires_grad:
            continue
        if input_type == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs.")
        if input_type == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).")
        if input_type == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in strict "
            "mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad; None for every input if none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad(tuple(o for o, _ in pairs), inputs, tuple(g for _, g in pairs),
                 allow_unused=True, create_graph=create_graph, retain_graph=retain_graph)


def _one_hot_row(out, inputs, one_hot, counts):
    """_autograd_grad((out,), inputs, (one_hot,), retain_graph=True) for a row gradient the
    caller made (out's shape and dtype: autograd.grad's checks of its arguments hold), the
    pass sharing counts with the other rows' (run_backward)."""
    if not out.requires_grad:
        return (None,) * len(inputs)
    retain_graph, create_graph = _graph_options(True, False)
    return tuple(run_backward((out,), (one_hot,), retain_graph, create_graph, inputs=inputs,
                              accumulate=False, allow_unused=True, counts=counts))


def _past_reshapes(out, inputs):
    """The root a one-hot row of out's may start its pass at: past the ViewBackward0 and
    one-tensor StackBackward0 nodes over out (the `stack([row]).view(shape)` of a one-row
    jacobian block: hessian's inner jacobian), whose gradient for their input is the row
    reshaped, the same bits, so the rows' passes run two nodes fewer.  A tensor of the input's
    shape with the input's node, standing for it; out itself when it has no such nodes.  Not
    past a node with hooks or retained gradients, nor an input's own node."""
    node, nr, shape = out.grad_fn, out._output_nr, None
    own = {inp.grad_fn for inp in inputs}
    while not node._hooked and node not in own and getattr(node, "num_outputs", 0) == 1:
        name = getattr(getattr(node, "op", None), "name", None)
        fns = _edges(node)
        if not (name == "view" or name == "stack" and len(fns) == 1):
            break
        child = fns[0]
        if child is None or type(child) is AccumulateGrad:
            break
        node, nr, shape = child, node._next_nrs[0], node._meta[0]
    if shape is None:
        return out
    return Tensor._make(np.broadcast_to(np.zeros((), out._data.dtype), shape), node, nr, True)


_STRICT_NONE = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    from ..ops import zeros_like
    res = ()
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_NONE[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res += (g,)
    return res


def _prepare_v(v, against, is_tuple, create_graph, fn_name, none_message):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, against, is_tuple)
    elif len(against) != 1 or against[0].nelement() != 1:
        raise RuntimeError(none_message)
    return v


_V_NONE_OUTPUT = ("The vector v can only be None if the user-provided function returns a single "
                  "Tensor with a single element.")
_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a "
                 "single Tensor with a single element.")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp", _V_NONE_OUTPUT)
    with set_grad_enabled(True if create_graph else GradMode.enabled):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product (by the double-backward trick)."""
    from ..ops import zeros_like
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp", _V_NONE_INPUT)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else GradMode.enabled):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_outputs_tuple))


def check_jacobian_blocks(outputs, inputs):
    """Every Jacobian block (an output's shape, then an input's) within the element limit,
    before its rows or columns are computed one by one (a block of 10 ** 5 by 10 ** 5 was
    10 ** 5 gradients kept, 40 GB, before the stack that makes it was refused)."""
    for out in outputs:
        for inp in inputs:
            check_numel(tuple(out.shape) + tuple(inp.shape))


def _block(rows, out, inp):
    """Jacobian block d out / d inp from its rows (one gradient per element of out)."""
    from ..ops import stack, zeros
    shape = tuple(out.shape) + tuple(inp.shape)
    if not rows:
        return zeros(shape, dtype=inp.dtype)
    return stack(rows, 0).view(shape)


def _block_from_columns(columns, out, inp):
    """Jacobian block d out / d inp from its columns (one tangent per element of inp)."""
    from ..ops import stack, zeros
    shape = tuple(out.shape) + tuple(inp.shape)
    if not columns:
        return zeros(shape, dtype=out.dtype)
    return stack(columns, out.dim()).reshape(shape)


def _jacfwd(func, inputs, strict=False, vectorize=False):
    """The Jacobian column by column with forward-mode AD."""
    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
            'not supported together (yet). Please either set `strict=False` or '
            '`strategy="reverse-mode"`.')
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`.")
    is_outputs_tuple, result = forward_jacobian(func, inputs)
    return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def forward_jacobian(func, inputs):
    """(whether func returned a tuple, blocks): blocks[i][j] is d output i / d input j, by
    forward-mode AD: all columns in one call of func where every op can batch its tangents,
    else one call per column.  func returns a Tensor or a tuple of them."""
    from ..ops import zeros, zeros_like
    batched = _jacfwd_batched(func, inputs)
    if batched is not None:
        return batched
    columns = None  # columns[i][j]: list of tangents of output i, one per element of input j
    is_outputs_tuple = False
    primals = None
    for j, inp in enumerate(inputs):
        for k in range(inp.numel()):
            with fwAD.dual_level():
                duals = []
                for jj, other in enumerate(inputs):
                    tangent = zeros(other.numel(), dtype=other.dtype)
                    if jj == j:
                        tangent._data[k] = 1
                    duals.append(fwAD.make_dual(other, tangent.reshape(tuple(other.shape))))
                is_outputs_tuple, outs = _as_tuple(func(*duals), "outputs")
                unpacked = [fwAD.unpack_dual(o) for o in outs]
                if columns is None:
                    check_jacobian_blocks(outs, inputs)
                    columns = [[[] for _ in inputs] for _ in outs]
                    primals = [u.primal for u in unpacked]
                for i, u in enumerate(unpacked):
                    columns[i][j].append(u.tangent if u.tangent is not None
                                         else zeros_like(u.primal))
    result = [[_block_from_columns(columns[i][j], out, inp) for j, inp in enumerate(inputs)]
              for i, out in enumerate(primals)]  # lists, as PyTorch returns them here
    return is_outputs_tuple, result


def _jacfwd_batched(func, inputs):
    """The forward-mode Jacobian in one call of func: each input's tangent holds all the
    columns at once (a leading batch dimension over the elements of every input), as
    PyTorch's vmap over jvp does.  None when an op met cannot be batched (the caller then
    computes the columns one by one)."""
    from ..ops import zeros_like
    batch = sum(inp.numel() for inp in inputs)
    try:
        with fwAD.dual_level():
            ForwardAD.batch = batch
            try:
                duals = []
                offset = 0
                for inp in inputs:
                    n = inp.numel()
                    dual = fwAD.make_dual(inp, zeros_like(inp))  # make_dual's checks
                    check_numel((batch,) + inp._data.shape)  # (before NumPy makes it)
                    eye = np.zeros((batch, n), inp._data.dtype)
                    eye[np.arange(offset, offset + n), np.arange(n)] = 1
                    dual._fw = Tensor._make(eye.reshape((batch,) + inp._data.shape), None, 0,
                                            False)
                    duals.append(dual)
                    offset += n
                is_outputs_tuple, outs = _as_tuple(func(*duals), "outputs")
                tangents = []
                for out in outs:
                    t = out._fw
                    if t is not None and t._data.shape != (batch,) + out._data.shape:
                        raise Unbatchable("output")
                    tangents.append(t)
                result = []
                for out, t in zip(outs, tangents):
                    if t is None:
                        t = Tensor._make(np.zeros((batch,) + out._data.shape, out._data.dtype),
                                         None, 0, False)
                    row = []
                    offset = 0
                    for inp in inputs:  # PyTorch's split, movedim and reshape of vmap's result
                        n = inp.numel()
                        block = t[offset:offset + n] if len(inputs) > 1 else t
                        row.append(block.movedim(0, -1).reshape(out._data.shape +
                                                                inp._data.shape))
                        offset += n
                    result.append(row)
            finally:
                ForwardAD.batch = None
    except Unbatchable:
        return None
    return is_outputs_tuple, result


def _rows(out, inputs, create_graph):
    """The gradients of each element of out (flattened) with respect to inputs, one tuple a
    row (None where an input is unused)."""
    flat = out.reshape(-1)
    n = out.nelement()
    # the one-hot rows start at out itself, when it has a node: the gradient flat's view node
    # would give it is the one-hot row reshaped, so each row's pass runs one node fewer
    root = _past_reshapes(out, inputs) if out.grad_fn is not None else flat
    counts = {}  # (the one-hot rows' passes share one graph's dependency counts)
    for k in range(n):
        if create_graph:  # the rows' graphs start at flat[k] (SelectBackward0)
            yield _autograd_grad((flat[k],), inputs, retain_graph=True, create_graph=True)
        else:  # the same row from a one-hot gradient, without the select
            one_hot = np.zeros(n, out._data.dtype)
            one_hot[k] = 1
            yield _one_hot_row(root, inputs, Tensor._make(one_hot.reshape(root._data.shape),
                                                          None, 0, False), counts)


def reverse_jacobian_rows(out, inputs, create_graph):
    """[rows of d out / d input j for each input j]: the gradient of each element of out
    (zeros where out does not depend on an input), as jacobian computes them."""
    from ..ops import zeros_like
    rows = [[] for _ in inputs]
    for vj in _rows(out, inputs, create_graph):
        for row, g, inp in zip(rows, vj, inputs):
            row.append(zeros_like(inp) if g is None else g)
    return rows


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of func at inputs: jacobian[i][j][out_index + in_index]."""
    from ..ops import zeros_like
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and '
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        check_jacobian_blocks(outputs, inputs)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                "supported together. Please either set `strict=False` or `vectorize=False`.")
        jacobian = ()
        for i, out in enumerate(outputs):
            rows = tuple([] for _ in inputs)
            for vj in _rows(out, inputs, create_graph):
                for j, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when "
                                "create_graph=True.")
                        row.append(g)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {j}. This is not allowed in strict mode.")
                        row.append(zeros_like(inp))
            jacobian += (tuple(_block(row, out, inputs[j]) for j, row in enumerate(rows)),)
        jacobian = _grad_postprocess(jacobian, create_graph)
        return _tuple_postprocess(jacobian, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: hessian[i][j] = d2 f / d input_i d input_j."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _single_scalar_output(outputs, is_outputs_tuple, name):
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain "
                           "a single element")


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H): vector-Hessian product of a scalar function."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "vhp", _V_NONE_INPUT)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "vhp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        _single_scalar_output(outputs, is_outputs_tuple, "vhp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    with set_grad_enabled(True if create_graph else GradMode.enabled):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): Hessian-vector product of a scalar function."""
    from ..ops import zeros_like
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "hvp", _V_NONE_INPUT)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "hvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        _single_scalar_output(outputs, is_outputs_tuple, "hvp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(zeros_like(inp).requires_grad_(True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else GradMode.enabled):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple))
