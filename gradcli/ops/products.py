"""More products: addmm, addmv, addr, baddbmm, addbmm (beta * self + alpha * product, each one
node as in PyTorch), einsum, tensordot, kron, inner, vdot, dist."""


import numpy as np

from ..engine import messages
from ..engine.dtypes import short_name
from ..engine.tensor import Tensor, check_numel
from .arith import check_broadcast
from .elementwise import TensorsOnly
from .linalg import _vector_norm, _vector_norm_vjp
from .matmul import check_product, check_vectors
from .derivatives import helper
from .registry import OPS, Composed, Op, Plain, Sample, register, wrap_dim


def _expand_error(shape, target):
    return (f"The expanded size of the tensor ({target[-1] if len(shape) else target[0]}) must "
            f"match the existing size ({shape[-1] if shape else 1}) at non-singleton dimension "
            f"{len(target) - 1}.  Target sizes: {list(target)}.  Tensor sizes: {list(shape)}")


def _check_input(a, target):
    try:
        if np.broadcast_shapes(a.shape, target) == tuple(target):
            return
    except ValueError:
        pass
    n = len(target)
    padded = (1,) * (n - a.ndim) + tuple(a.shape) if a.ndim <= n else tuple(a.shape)
    for i in range(n - 1, -1, -1):
        if i < len(padded) and padded[i] not in (1, target[i]):
            raise RuntimeError(
                f"The expanded size of the tensor ({target[i]}) must match the existing size "
                f"({padded[i]}) at non-singleton dimension {i}.  Target sizes: {list(target)}.  "
                f"Tensor sizes: {list(a.shape)}")
    raise RuntimeError(f"expand: the requested shape {list(target)} has fewer dimensions than "
                       f"the tensor {list(a.shape)}")


def _combine(a, product, beta, alpha):
    product = product if alpha == 1 else product * alpha
    if beta == 0:
        return np.broadcast_to(np.zeros((), product.dtype), product.shape) + product
    return (a if beta == 1 else a * beta) + product


@helper
def _scaled(g, factor):
    return g if factor == 1 else g * factor


def _same_dtype(name, *arrays):
    first = arrays[0]
    for a in arrays[1:]:
        if a.dtype != first.dtype:
            raise RuntimeError(f"{name} must have the same dtype, but got {short_name(a)} and "
                               f"{short_name(first)}")


# ------------------------------------------------------------------ addmm, addmv, addr

def _addmm(a, m1, m2, beta, alpha):
    for name, m in (("mat1", m1), ("mat2", m2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    if m1.shape[1] != m2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m1.shape[0]}x"
                           f"{m1.shape[1]} and {m2.shape[0]}x{m2.shape[1]})")
    if m1.dtype != m2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {short_name(m1)} and "
                           f"{short_name(m2)}")
    if a.dtype != m1.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {short_name(a)} and "
                           f"{short_name(m2)}")
    _check_input(a, (m1.shape[0], m2.shape[1]))
    check_product(m1, m2)
    return _combine(a, m1 @ m2, beta, alpha)


BETA_ALPHA = (("beta", 1), ("alpha", 1))
register(TensorsOnly(
    "addmm", _addmm,
    ("self: _scaled(grad, beta)",
     "mat1: _scaled(grad.mm(mat2.t()), alpha)",
     "mat2: _scaled(mat1.t().mm(grad), alpha)"),
    jvp=("self: _scaled(self_t, beta)",
         "mat1: _scaled(mat1_t.mm(mat2), alpha)",
         "mat2: _scaled(mat1.mm(mat2_t), alpha)"),
    inputs=("self", "mat1", "mat2"), attrs=BETA_ALPHA, inplace=True, kind="linalg", dtype="same",
    doc="beta * self + alpha * (mat1 @ mat2)",
    samples=[Sample((2, 4), (2, 3), (3, 4)),
             Sample((4,), (2, 3), (3, 4), attrs={"beta": 0.5, "alpha": 2.0})]))


def _addmv(a, mat, vec, beta, alpha):
    if mat.ndim != 2 or vec.ndim != 1 or mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0] if a.ndim else 1}), mat "
                           f"({mat.shape[0]}x{mat.shape[1] if mat.ndim > 1 else 1}), vec "
                           f"({vec.shape[0] if vec.ndim else 1})")
    _check_input(a, (mat.shape[0],))
    return _combine(a, mat @ vec, beta, alpha)


register(TensorsOnly(
    "addmv", _addmv,
    ("self: _scaled(grad, beta)",
     "mat: _scaled(grad.outer(vec), alpha)",
     "vec: _scaled(mat.t().mv(grad), alpha)"),
    jvp=("self: _scaled(self_t, beta)",
         "mat: _scaled(mat_t.mv(vec), alpha)",
         "vec: _scaled(mat.mv(vec_t), alpha)"),
    inputs=("self", "mat", "vec"), attrs=BETA_ALPHA, inplace=True, kind="linalg", dtype="same",
    doc="beta * self + alpha * (mat @ vec)",
    samples=[Sample((2,), (2, 3), (3,)), Sample((), (2, 3), (3,), attrs={"beta": 2.0,
                                                                         "alpha": -1.0})]))


def _addr(a, v1, v2, beta, alpha):
    for name, v in (("vec1", v1), ("vec2", v2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    _check_input(a, (v1.shape[0], v2.shape[0]))
    check_numel((v1.shape[0], v2.shape[0]))
    return _combine(a, np.outer(v1, v2), beta, alpha)


register(TensorsOnly(
    "addr", _addr,
    ("self: _scaled(grad, beta)",
     "vec1: _scaled(grad.mv(vec2), alpha)",
     "vec2: _scaled(grad.t().mv(vec1), alpha)"),
    jvp=("self: _scaled(self_t, beta)",
         "vec1: _scaled(vec1_t.outer(vec2), alpha)",
         "vec2: _scaled(vec1.outer(vec2_t), alpha)"),
    inputs=("self", "vec1", "vec2"), attrs=BETA_ALPHA, inplace=True, kind="linalg", dtype="same",
    doc="beta * self + alpha * outer(vec1, vec2)",
    samples=[Sample((2, 3), (2,), (3,)), Sample((3,), (2,), (3,), attrs={"beta": 0.5,
                                                                        "alpha": 3.0})]))


def _check_batches(b1, b2):
    if b1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b2.shape[:2] != (b1.shape[0], b1.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b1.shape[0]}, {b1.shape[2]}] but got: [{b2.shape[0]}, "
                           f"{b2.shape[1]}].")


def _baddbmm(a, b1, b2, beta, alpha):
    _check_batches(b1, b2)
    _check_input(a, (b1.shape[0], b1.shape[1], b2.shape[2]))
    check_product(b1, b2)
    return _combine(a, np.matmul(b1, b2), beta, alpha)


register(TensorsOnly(
    "baddbmm", _baddbmm,
    ("self: _scaled(grad, beta)",
     "batch1: _scaled(grad.bmm(batch2.transpose(1, 2)), alpha)",
     "batch2: _scaled(batch1.transpose(1, 2).bmm(grad), alpha)"),
    jvp=("self: _scaled(self_t, beta)",
         "batch1: _scaled(batch1_t.bmm(batch2), alpha)",
         "batch2: _scaled(batch1.bmm(batch2_t), alpha)"),
    inputs=("self", "batch1", "batch2"), attrs=BETA_ALPHA, inplace=True, kind="linalg", dtype="same",
    doc="beta * self + alpha * (batch1 @ batch2), per batch",
    samples=[Sample((2, 2, 4), (2, 2, 3), (2, 3, 4)),
             Sample((4,), (2, 2, 3), (2, 3, 4), attrs={"beta": 0.5, "alpha": 2.0})]))


def _addbmm(a, b1, b2, beta, alpha):
    _check_batches(b1, b2)
    _check_input(a, (b1.shape[1], b2.shape[2]))
    check_product(b1, b2)  # (every batch's product is made before the sum)
    return _combine(a, np.matmul(b1, b2).sum(0), beta, alpha)


@helper
def _batched(g, batch):
    return g.unsqueeze(0).expand((batch,) + tuple(g.shape))


register(TensorsOnly(
    "addbmm", _addbmm,
    ("self: _scaled(grad, beta)",
     "batch1: _scaled(_batched(grad, batch2.shape[0]).bmm(batch2.transpose(1, 2)), alpha)",
     "batch2: _scaled(batch1.transpose(1, 2).bmm(_batched(grad, batch1.shape[0])), alpha)"),
    jvp=("self: _scaled(self_t, beta)",
         "batch1: _scaled(batch1_t.bmm(batch2).sum(0), alpha)",
         "batch2: _scaled(batch1.bmm(batch2_t).sum(0), alpha)"),
    inputs=("self", "batch1", "batch2"), attrs=BETA_ALPHA, inplace=True, kind="linalg", dtype="same",
    doc="beta * self + alpha * (sum over the batch of batch1 @ batch2)",
    samples=[Sample((2, 4), (3, 2, 3), (3, 3, 4)),
             Sample((4,), (2, 2, 3), (2, 3, 4), attrs={"beta": -1.0, "alpha": 0.5})]))


# ------------------------------------------------------------------ einsum

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # string.ascii_letters


def _parse(equation, shapes):
    """(input subscripts, output subscripts, ellipsis letters): the ellipsis expanded to
    letters the equation does not use (right-aligned, as each operand's ellipsis covers its
    last dimensions before its named ones); PyTorch's errors for a malformed equation."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    spare = [c for c in LETTERS if c not in eq]
    counts = []
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        labels = term.replace("...", "")
        for c in labels:
            if c not in LETTERS:
                raise RuntimeError(f"einsum(): invalid subscript given at index "
                                   f"{eq.index(c)} in the equation string, subscripts must be "
                                   "in [a-zA-Z]")
        n = len(shape) - len(labels)
        if "..." in term and n < 0:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({len(labels)}) is more than the number of dimensions "
                               f"({len(shape)}) for operand {k}")
        if "..." not in term and n:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({len(labels)}) does not match the number of dimensions "
                               f"({len(shape)}) for operand {k} and no ellipsis was given")
        counts.append(n)
    ellipsis_dims = max(counts, default=0)
    dots = spare[:ellipsis_dims]
    inputs = [term.replace("...", "".join(dots[ellipsis_dims - n:]))
              for term, n in zip(terms, counts)]
    if arrow:
        out = rhs.replace("...", "".join(dots))
        for c in out:
            if out.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in "
                                   "the output")
            if not any(c in t for t in inputs):
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   "equation for any input operand")
    else:
        counts = {}
        for t in inputs:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = "".join(dots) + "".join(sorted((c for c in counts if counts[c] == 1
                                              and c not in dots), key=_label_order))
    return inputs, out, dots


def _label_order(letter):
    """PyTorch numbers subscripts A-Z then a-z: the order of implicit outputs and of the
    dimensions summed out."""
    return letter.islower(), letter


@helper
def _einsum_compose(operands, equation):
    """torch.einsum as PyTorch's einsum (aten/src/ATen/native/Linear.cpp) runs it: each
    operand's repeated subscripts to diagonals, its missing ones unsqueezed, and the whole
    permuted to one order (the output's subscripts, then those summed out); then, left to
    right, each pair summed and multiplied (sumproduct_pair: a mul, or a bmm between
    permutes and reshapes), so the graph holds PyTorch's nodes and they differentiate it."""
    inputs, out, dots = _parse(equation, [tuple(x.shape) for x in operands])
    largest = {}
    for x, term in zip(operands, inputs):
        for c, n in zip(term, x.shape):
            largest[c] = max(largest.get(c, 1), n)
    check_numel([largest[c] for c in out])  # (the output, before any product is made)
    order = list(out) + [d for d in dots if d not in out]
    order += sorted({c for t in inputs for c in t} - set(order), key=_label_order)
    position = {c: k for k, c in enumerate(order)}
    sizes, counts, aligned = {}, [0] * len(order), []
    for i, (op, term) in enumerate(zip(operands, inputs)):
        permutation, dim = [-1] * len(order), 0
        for c in term:
            p = position[c]
            if permutation[p] != -1:  # a repeated subscript: its diagonal
                before = permutation[p]
                if op.shape[dim] != op.shape[before]:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} "
                                       f"but the sizes don't match, {op.shape[dim]} != "
                                       f"{op.shape[before]}")
                op = op.diagonal(0, before, dim).movedim(-1, before)
                continue
            size = op.shape[dim]
            if size != 1:
                seen = sizes.get(c, 1)
                if seen not in (1, size):
                    if c in dots:
                        raise RuntimeError(
                            f"einsum(): dimension {dim} covered by ellipsis in operand {i}has "
                            f"size {size} which does not broadcast with previously seen "
                            f"ellipsis with size {seen} for the respective dimension")
                    raise RuntimeError(f"einsum(): subscript {c} has size {size} for operand "
                                       f"{i} which does not broadcast with previously seen "
                                       f"size {seen}")
                sizes[c] = size
                counts[p] += 1
            permutation[p] = dim
            dim += 1
        for p, at in enumerate(permutation):
            if at == -1:
                op = op.unsqueeze(dim)
                permutation[p] = dim
                dim += 1
        aligned.append(op.permute(permutation))
    kept = len(out)
    while len(aligned) > 1:
        a, b = aligned.pop(0), aligned.pop(0)
        summed, a_only, b_only = [], [], []
        for d in range(kept, len(order)):
            if a.shape[d] != 1 and b.shape[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:  # no later operand has it: summed in this product
                    summed.append(d)
                    counts[d] = 0
            elif counts[d] == 1:  # only one of the two has it: summed before the product
                if a.shape[d] != 1:
                    a_only.append(d)
                    counts[d] = 0
                elif b.shape[d] != 1:
                    b_only.append(d)
                    counts[d] = 0
        if a_only:
            a = a.sum(a_only, True)
        if b_only:
            b = b.sum(b_only, True)
        aligned.insert(0, _sumproduct_pair(a, b, summed))
    result = aligned[0]
    if len(order) > kept:
        if len(operands) > 1:  # (what was summed out is of size 1 now)
            return result.view(tuple(result.shape[:kept]))
        return result.sum(list(range(kept, len(order))))
    return result


@helper
def _sumproduct_pair(left, right, summed):
    """left * right summed over the dimensions `summed` (kept, of size 1), both of one rank:
    a mul, or permutes and reshapes around one bmm (PyTorch's sumproduct_pair)."""
    if not summed:
        return left * right
    both, left_only, right_only = [], [], []
    both_size = left_size = right_size = summed_size = 1
    for i in range(left.dim()):
        in_left, in_right = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if in_left and in_right:
                summed_size *= left.shape[i]
            elif in_left:
                left = left.sum(i, True)
            elif in_right:
                right = right.sum(i, True)
        elif in_left and in_right:
            both.append(i)
            both_size *= left.shape[i]
        elif in_left:
            left_only.append(i)
            left_size *= left.shape[i]
        else:
            right_only.append(i)
            right_size *= right.shape[i]
    out_size = ([left.shape[d] for d in both] + [left.shape[d] for d in left_only] +
                [1] * len(summed) + [right.shape[d] for d in right_only])
    layout = both + left_only + summed + right_only
    back = [0] * len(layout)
    for k, d in enumerate(layout):
        back[d] = k
    left = left.permute(layout).reshape(both_size, left_size, summed_size)
    right = right.permute(both + summed + right_only + left_only).reshape(
        both_size, summed_size, right_size)
    return left.bmm(right).view(out_size).permute(back)


EINSUM = Composed(
    "_einsum", _einsum_compose,
    via=("diagonal", "movedim", "unsqueeze", "permute", "sum.dim_IntList", "mul",
         "_reshape_alias", "bmm", "view"),
    inputs=("*operands",), attrs=("equation",), dtype="same", method=False, public=False,
    kind="linalg", doc="Einstein summation over the operands (the op behind torch.einsum)",
    samples=[Sample((2, 3), (3, 4), attrs={"equation": "ij,jk->ik"}),
             Sample((3, 3), attrs={"equation": "ii"}),
             Sample((3, 3), attrs={"equation": "ii->i"}),
             Sample((2, 3), attrs={"equation": "ij->ji"}),
             Sample((3,), (2,), attrs={"equation": "i,j->ij"}),
             Sample((2, 2, 3), (2, 3, 2), attrs={"equation": "bij,bjk->bik"}),
             Sample((2, 3), (3,), attrs={"equation": "...j,j"}),
             Sample((2, 3), (3, 4), (4,), attrs={"equation": "ij,jk,k->i"}),
             Sample((2, 3), (2, 3), attrs={"equation": "ij,ij->"}),
             Sample((2, 1), (3, 4), attrs={"equation": "ij,jk->ik"})])
register(EINSUM)


def einsum(*args):
    """torch.einsum(equation, *operands) (or the operands as one list)."""
    if not args or not isinstance(args[0], str):
        raise TypeError("einsum(): argument 'equation' (position 1) must be str")
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, x in enumerate(operands):
        if not isinstance(x, Tensor):
            raise TypeError(messages.NOT_TENSOR_ELEMENT.format(index=i, argument=1,
                                                               type=messages.type_name(x)))
    return EINSUM.apply(tuple(operands), (equation,))


register(Plain("einsum", einsum, "Einstein summation: einsum('ij,jk->ik', a, b)",
               kind="linalg"))


# ------------------------------------------------------------------ tensordot, inner, kron

def _tensordot_dims(a_ndim, b_ndim, dims):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a_ndim, b_ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(a_ndim - dims, a_ndim)), list(range(dims))
    first, second = dims
    first = [first] if isinstance(first, int) else list(first)
    second = [second] if isinstance(second, int) else list(second)
    if len(first) != len(second):
        raise RuntimeError(f"both dimension lists should have same length")
    return [wrap_dim(d, a_ndim) for d in first], [wrap_dim(d, b_ndim) for d in second]


@helper
def _tensordot_compose(a, b, dims=2):
    da, db = _tensordot_dims(a.dim(), b.dim(), dims)
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {x} and second has size {b.shape[y]} in "
                               f"dim {y}")
    free_a = [i for i in range(a.dim()) if i not in da]
    free_b = [i for i in range(b.dim()) if i not in db]
    k = int(np.prod([a.shape[i] for i in da])) if da else 1
    left = a.permute(tuple(free_a + da)).reshape(-1, k) if a.dim() else a.reshape(1, 1)
    right = b.permute(tuple(db + free_b)).reshape(k, -1) if b.dim() else b.reshape(1, 1)
    shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return left.mm(right).reshape(shape)


register(Composed(
    "tensordot", _tensordot_compose,
    via=("permute", "_reshape_alias", "mm", "view"),
    inputs=("self", "other"), attrs=(("dims", 2),), method=False, dtype="same", kind="linalg",
    doc="the sum of products over dims of self and other (an int: the last/first dims)",
    samples=[Sample((2, 3), (3, 4), attrs={"dims": 1}), Sample((2, 3), (2, 3)),
             Sample((3, 2), (3, 4), attrs={"dims": ([0], [0])})]))


@helper
def _inner_compose(self, other):
    if not self.dim() or not other.dim():
        return self * other
    if self.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(self.shape)} and {list(other.shape)}")
    return _tensordot_compose(self, other, ([-1], [-1]))


register(Composed(
    "inner", _inner_compose, via=("permute", "_reshape_alias", "mm", "view"),
    inputs=("self", "other"), dtype="same", kind="linalg",
    doc="the sum of products over the last dimensions of self and other",
    samples=[Sample((3,), (3,)), Sample((2, 3), (4, 3))]))


@helper
def _kron_compose(self, other):
    n = max(self.dim(), other.dim())
    a = self.reshape((1,) * (n - self.dim()) + tuple(self.shape))
    b = other.reshape((1,) * (n - other.dim()) + tuple(other.shape))
    a_view = a.reshape(tuple(s for d in a.shape for s in (d, 1)))
    b_view = b.reshape(tuple(s for d in b.shape for s in (1, d)))
    shape = tuple(x * y for x, y in zip(a.shape, b.shape))
    return OPS["_unsafe_view"].apply((a_view * b_view,), (shape,))


register(Composed(
    "kron", _kron_compose, via=("view", "mul", "_unsafe_view"),
    inputs=("self", "other"), dtype="same", kind="linalg",
    doc="the Kronecker product of self and other",
    samples=[Sample((2, 2), (2, 3)), Sample((3,), (2,)), Sample((2, 3), (2,))]))


# ------------------------------------------------------------------ vdot, dist

def _vdot(a, b):
    check_vectors("vdot", a, b)
    return np.vdot(a, b)


register(Op(
    "vdot", _vdot, ("self: grad * other", "other: grad * self"),
    inputs=("self", "other"),
    jvp=("self: vdot(self_t, other)", "other: vdot(self, other_t)"),
    dtype="same", kind="linalg", doc="the inner product of two vectors (conjugating self)",
    samples=[Sample((3,), (3,)), Sample((1,), (1,))]))


def _dist(a, b, p):
    check_broadcast(a, b)  # (a number, from the difference as large as the broadcast)
    return _vector_norm(np.asarray(a - b), p)


@helper
def _dist_vjp(g, self, other, result, p):
    return _vector_norm_vjp(g, self - other, result, p, None, False)


register(TensorsOnly(
    "dist", _dist,
    ("self: _dist_vjp(grad, self, other, result, p)",
     "other: -_dist_vjp(grad, self, other, result, p)"),
    jvp=("self: (self_t * _dist_vjp(result * 0 + 1, self, other, result, p)).sum()",
         "other: -(other_t * _dist_vjp(result * 0 + 1, self, other, result, p)).sum()"),
    inputs=("self", "other"), attrs=(("p", 2),), dtype="promote", kind="linalg",
    doc="the p-norm of self - other (broadcast)",
    samples=[Sample((3,), (3,)), Sample((2, 3), (3,), attrs={"p": 1}),
             Sample((2, 3), (2, 3), attrs={"p": 3})]))
