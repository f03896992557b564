"""torch functions that are not ops of the table: the function forms of in-place methods
(`torch.sin_(x)` is `x.sin_()`), result_type and tensor_split (composed of slices, as PyTorch
composes it)."""

from .engine.tensor import Tensor, check_pieces

# PyTorch's torch.<name>_ functions whose Tensor method gradcli has
INPLACE_FUNCTION_NAMES = (
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "celu_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_",
    "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "log10_", "log1p_", "log2_", "log_",
    "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_",
    "round_", "rsqrt_", "selu_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_",
    "tan_", "tanh_", "threshold_", "trunc_", "xlogy_", "zero_")


def _inplace_function(name):
    def function(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.{name}(input, ...) is input.{name}(...)."
    return function


# (looked up in the class dicts: reading Tensor.<name> would make the method, which the op
# table does at first use only)
INPLACE_FUNCTIONS = {name: _inplace_function(name) for name in INPLACE_FUNCTION_NAMES
                     if any(name in vars(c) for c in Tensor.__mro__)}


def result_type(tensor1, tensor2):
    """The dtype PyTorch's type promotion gives an operation on the two (tensors or numbers):
    that of their sum, computed on one element of each (a dimensioned tensor, a zero-dim one
    and a number weigh differently in promotion, so each keeps its kind)."""
    def sample(x):
        if isinstance(x, Tensor) and x.dim() > 0:
            return x.reshape(-1)[:1].detach() if x.numel() else x.detach()
        return x.detach() if isinstance(x, Tensor) else x
    from .ops import tensor
    a, b = sample(tensor1), sample(tensor2)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        return tensor(a).dtype if not isinstance(b, (int, float, bool, complex)) else \
            (tensor(a) + b).dtype
    if a.dtype.name == "bool" and (not isinstance(b, Tensor) or b.dtype.name == "bool"):
        return (a | b).dtype if isinstance(b, (bool, Tensor)) else (a + b).dtype
    return (a + b).dtype


def tensor_split(input, indices_or_sections, dim=0):
    """Views of input split along dim: into n nearly equal parts (the first ones one longer),
    or at the given indices."""
    size = input.shape[dim]
    if isinstance(indices_or_sections, Tensor):
        given = indices_or_sections
        if given.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-"
                               f"dimensional or one-dimensional tensor, but got a tensor with "
                               f"{given.dim()} dims")
        if given.dtype.name != "int64":
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {given.dtype.short}")
        if given.dim() == 1:   # (indices: a piece more than there are of them)
            check_pieces(given.numel() + 1)
        indices_or_sections = given.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        check_pieces(n)  # (a tensor a section, as list(t) makes them: the item limit)
        base, extra = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            end = start + base + (1 if i < extra else 0)
            bounds.append((start, end))
            start = end
    else:
        if not isinstance(indices_or_sections, (list, tuple)) or not all(
                isinstance(i, int) for i in indices_or_sections):
            raise TypeError("tensor_split() received an invalid combination of arguments - got "
                            f"(Tensor, {type(indices_or_sections).__name__}), but expected one "
                            "of:")
        check_pieces(len(indices_or_sections) + 1)
        # (each piece from the index before to its own, as slices take them: a negative index
        # counts from the end, `[7, -2, 1]` of 5 elements is [0:7], [7:-2], [-2:1], [1:])
        cuts = [0] + [int(i) for i in indices_or_sections] + [None]
        bounds = list(zip(cuts, cuts[1:]))
    index = [slice(None)] * input.dim()
    parts = []
    for start, end in bounds:
        index[dim] = slice(start, end)
        parts.append(input[tuple(index)])
    return tuple(parts)
