"""Every PyTorch error and warning text the engine emits, one wording each."""

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE


def type_name(value):
    """The C name of value's type (`tp_name`), as PyTorch's messages print it: `int`, `A` for
    a class defined in Python, `numpy.ndarray` for a type of a C extension."""
    cls = type(value)
    if cls.__flags__ & _HEAP_TYPE or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"



def not_implemented(kernel, dtype):
    """PyTorch's error for a kernel not compiled for a dtype: `"kernel" not implemented for
    'Float'` (dtype: a torch or NumPy dtype, an array or a tensor, or the name to print)."""
    if not isinstance(dtype, str):
        from . import dtypes
        d = getattr(dtype, "dtype", dtype)
        dtype = d.short if hasattr(d, "short") else dtypes.short_name(d)
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype}\'')


BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
NONLEAF_GRAD_ACCESS = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead."
)
MATERIALIZE_EDGE = "materialize_grads cannot be used when the given input is a GradientEdge"
EDGE_OUTPUT = ("gradcli knows the shape of a GradientEdge output of autograd.grad or backward "
               "only for an edge torch.autograd.graph.get_gradient_edge(tensor) made, a leaf's, "
               "an output of several, a pointwise op's or a reduction's: give that edge or the "
               "tensor itself")
NOT_TENSOR_ELEMENT = "expected Tensor as element {index} in argument {argument}, but got {type}"
IMPLICIT_GRAD_NOT_SCALAR = "grad can be implicitly created only for scalar outputs"
COMPLEX_GRADIENTS = ("gradcli computes no gradients for complex tensors (PyTorch's conjugate "
                     "Wirtinger derivatives are not implemented)")
IMPLICIT_GRAD_NOT_REAL = ("grad can be implicitly created only for real scalar outputs but got "
                          "torch.{dtype}")
SHAPE_MISMATCH = (
    "Mismatch in shape: grad_output[{index}] has a shape of {grad_shape} and output[{index}] "
    "has a shape of {out_shape}."
)
NO_GRAD_FN = "element {index} of tensors does not require grad and does not have a grad_fn"
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
_NO_GRAD_VIEW_TAIL = (
    " with grad mode enabled. Given that this use case is ambiguous and error-prone, it is "
    "forbidden. You can clarify your code by moving both the view and the inplace either both "
    "inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if "
    "you want the inplace to be tracked).")
NO_GRAD_VIEW_INPLACE = ("A view was created in no_grad mode and is being modified inplace"
                        + _NO_GRAD_VIEW_TAIL)
NO_GRAD_VIEW_OF_VIEW_INPLACE = ("Output 0 of {fn} is a view of a view which was created in "
                                "no_grad mode and is being modified inplace" + _NO_GRAD_VIEW_TAIL)
NO_GRAD_VIEW_STALE = ("A view was created in no_grad mode and its base or another view of its "
                      "base has been modified inplace" + _NO_GRAD_VIEW_TAIL)
_MULTI_OUTPUT_VIEW_TAIL = (
    " This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation by "
    "an out-of-place one.")
MULTI_OUTPUT_VIEW_INPLACE = ("Output {nr} of {fn} is a view and is being modified inplace."
                             + _MULTI_OUTPUT_VIEW_TAIL)
MULTI_OUTPUT_VIEW_STALE = ("Output {nr} of {fn} is a view and its base or another view of its base "
                           "has been modified inplace." + _MULTI_OUTPUT_VIEW_TAIL)
MULTI_OUTPUT_NO_GRAD_VIEW_INPLACE = ("A view was created in no_grad mode and is being modified "
                                     "inplace with grad mode enabled." + _MULTI_OUTPUT_VIEW_TAIL)
NUMPY_REQUIRES_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)
INPLACE_MODIFIED = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [{tensor_type} [{sizes}]]{origin} is at version {current}; expected version "
    "{saved} instead. Hint: enable anomaly detection to find the operation that failed to compute "
    "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
INPLACE_ORIGIN = ", which is output {output_nr} of {node},"
ONLY_LEAF_REQUIRES_GRAD = "you can only change requires_grad flags of leaf variables."
ONLY_LEAF_REQUIRES_GRAD_FALSE = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
ONLY_FLOAT_REQUIRES_GRAD = "only Tensors of floating point and complex dtype can require gradients"
ONLY_FLOAT_REQUIRES_GRAD_METHOD = "only Tensors of floating point dtype can require gradients"
ONLY_FLOAT_REQUIRES_GRAD_FACTORY = (
    "Only Tensors of floating point and complex dtype can require gradients")
GRAD_ASSIGN_SIZE = ("attempting to assign a gradient of size '{got}' to a tensor of size "
                    "'{expected}'. Please ensure that the gradient and the tensor are the same size")
GRAD_ASSIGN_DTYPE = (
    "attempting to assign a gradient with dtype '{got}' to a tensor with grad_dtype '{expected}'. "
    "The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set "
    "the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
    "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
    "downstream systems that assume they match.")
CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak. "
    "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")
DETACH_VIEW_INPLACE = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
BACKWARD_EMPTY_INPUTS = "`inputs` argument to `backward()` cannot be empty."
ITEM_NOT_ONE_ELEMENT = "a Tensor with {numel} elements cannot be converted to Scalar"
BOOL_AMBIGUOUS = "Boolean value of Tensor with more than one value is ambiguous"
UNUSED_INPUT = (
    "The differentiated Tensor at index {index} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
INPUT_NO_GRAD = "One of the differentiated Tensors does not require grad"
HOOK_ON_NO_GRAD = "cannot register a hook on a tensor that doesn't require gradient"
HOOK_RETURNED_NOT_TENSOR = "expected Variable, but hook returned '{type}'"
HOOK_RETURNED_NOT_TUPLE = "expected tuple, but hook returned '{type}'"
HOOK_RETURNED_WRONG_COUNT = ("hook '{name}' has returned an incorrect number of values (got {got}, "
                             "but expected {expected})")
HOOK_CHANGED_TYPE = "hook '{name}' has changed the type of value (was {was} got {got})"
HOOK_CHANGED_SIZE = "hook '{name}' has changed the size of value"
HOOK_REPLACED_NONE = "can't replace a None gradient with a non-None value"
POST_ACC_HOOK_RETURNED = "Tensor post accumulate grad hooks should return None."
POST_ACC_HOOK_NON_LEAF = "post accumulate grad hooks cannot be registered on non-leaf tensors"
RETAIN_GRAD_NO_GRAD = "can't retain_grad on Tensor that has requires_grad=False"
GRAD_EMPTY_INPUTS = "`inputs` argument to `grad()` cannot be empty."
OUTPUT_NOT_TENSOR = "Expected output to be a torch.Tensor"
GRADIENT_NOT_TENSOR = "gradients can be either Tensors or None, but got {type}"
GRADIENT_COMPLEX_MISMATCH = (
    "For complex Tensors, both grad_output and output are required to have the same dtype. "
    "Mismatch in dtype: grad_output[{index}] has a dtype of {grad_dtype} and output[{index}] has "
    "a dtype of {out_dtype}.")
ROOTS_GRADS_COUNT = "got {tensors} tensors and {grads} gradients"
GRAD_VARIABLES_DEPRECATED = "`grad_variables` is deprecated. Use `grad_tensors` instead."
GRAD_VARIABLES_AND_TENSORS = ("`grad_tensors` and `grad_variables` (deprecated) arguments both "
                              "passed to `backward()`. Please only use `grad_tensors`.")
ONLY_INPUTS_DEPRECATED = (
    "only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
    "gradient for other parts of the graph, please use torch.autograd.backward.")
MATERIALIZE_WITHOUT_UNUSED = ("Expected allow_unused to be True or not passed when "
                              "materialize_grads=True, but got: allow_unused=False.")
INVALID_GRADIENT_SHAPE = (
    "Function {node} returned an invalid gradient at index {index} - got {got} but expected shape "
    "compatible with {expected}"
)
FUNCTION_WRONG_GRAD_COUNT = (
    "function {node} returned an incorrect number of gradients (expected {expected}, got {got})"
)
ANOMALY_TRACEBACK = (
    "Error detected in {node}. Traceback of forward call that caused the error:\n{where} "
    "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)")
ANOMALY_NAN = "Function '{node}' returned nan values in its {index}th output."
INTEGER_POW_NEGATIVE = "Integers to negative integer powers are not allowed."
ZERO_DIM_ITER = "iteration over a 0-d tensor"
LEN_ZERO_DIM = "len() of a 0-d tensor"
ELEMENT_LIMIT = (
    "tensor of {numel} elements exceeds the limit of {limit} elements "
    "(raise it with GRADCLI_MAX_ELEMENTS or gradcli.set_element_limit)"
)
T_DEPRECATED = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
    "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
    "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
    "tensor. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "TensorShape.cpp:4314.)")
T_ZERO_DIM = ("Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
              "cases. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
              "TensorShape.cpp:4321.)")
SEQUENCE_INDEX = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
    "python_variable_indexing.cpp:349.)")
UINT8_INDEX = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
               "instead. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
               "IndexingUtils.h:37.)")
VIEW_INCOMPATIBLE = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead.")
VALID_INDICES = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                 "are valid indices (got {})")
ZERO_DIM_INDEX = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                  "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
CROSS_DIM_DEPRECATED = (
    "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
    "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
    "with that of linalg.cross in a future release. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)")
CROSS_SAME_NDIM = "linalg.cross: inputs must have the same number of dimensions."
NOT_EXPANDABLE = "size {{[{size}]}} is not expandable to size {{[{shape}]}}."
SCALAR_NOT_ONE_ELEMENT = "only one element tensors can be converted to Python scalars"
SCALAR_REQUIRES_GRAD = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")

# saved tensor hooks (torch.autograd.graph.saved_tensors_hooks)
PACK_HOOK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the input "
    "to a pack hook.")
UNPACK_HOOK_NOT_TENSOR = ("Output of saved tensor unpack_hook expected to be a Tensor but got "
                          "result of type {type}")
RAW_SAVED_HOOKS_TWICE = ("Calling register_hooks on a saved tensor whose hooks have already "
                         "been set. Hint: only one pair of hooks is allowed at a time.")
RAW_SAVED_FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values "
    "of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need "
    "to access saved variables after calling backward.")
RAW_SAVED_NONE = "Calling register_hooks on a saved tensor with value None is forbidden"
RAW_SAVED_OUTPUT_UNPACK = ("Trying to use a saved tensor that has been detached in-place, i.e. "
                           "with .detach_().This is not supported, please use out-of-place "
                           "`.detach()` instead")
DATA_SET_NOT_FLOATING = ("data set to a tensor that requires gradients must be floating point or "
                         "complex dtype")
FROM_NUMPY_NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a copy "
    "of your array  with array.copy().) ")
FROM_NUMPY_STRIDES_NOT_MULTIPLE = ("given numpy array strides not a multiple of the element byte "
                                   "size. Copy the numpy array to reallocate the memory.")

# inside torch.func.vmap (gradcli runs the function sample by sample: every tensor there counts
# as batched, see gradcli.func.vmap)
VMAP_ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
             "calling .item() on a Tensor, please try to rewrite what you're doing with other "
             "operations. If error is occurring somewhere inside PyTorch internals, please file "
             "a bug report.")
VMAP_CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some "
                     "data-dependent control flow. We don't support that yet, please file an "
                     "issue at https://github.com/pytorch/pytorch/issues .")
VMAP_INPLACE = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor "
    "`other` in extra_args that has more elements than `self`. This happened due to `other` "
    "being vmapped over but `self` not being vmapped over in a vmap. Please try to use "
    "out-of-place operators instead of inplace arithmetic. If said operator is being called "
    "inside the PyTorch framework, please file a bug report instead.")
VMAP_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"
VMAP_RANDOMNESS = ("Only allowed values for randomness are 'error', 'different', or 'same'. "
                   "Got {randomness}")
VMAP_DYNAMIC_SHAPE = ("vmap: We do not support batching operators that can output dynamic shape. "
                      "Attempted to vmap over {op}. Please file an issue at "
                      "https://github.com/pytorch/pytorch/issues if you need this feature.")
VMAP_BOOLEAN_MASK = ("vmap: We do not support batching operators that can support dynamic shape. "
                     "Attempting to batch over indexing with a boolean mask.")
VMAP_NO_FALLBACK = "Batching rule not implemented for {op}. We could not generate a fallback."
VMAP_MASKED_SELECT = ("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We "
                      "cannot support this because for each batch this would return a "
                      "differently shaped Tensor. Please file an issue at "
                      "https://github.com/pytorch/pytorch/issues if you need this feature.")
