"""The modules of gradcli that load at their first use, and their bytecode.

A one-shot `gradcli eval` imports only what its program needs.  These load when a program
first reaches one of their names: torch.nn, torch.optim, ... (gradcli.api), torch.autograd's
functional API, forward AD and graph tools (gradcli.autograd), and most of the op table
(gradcli.ops.lazy).  A program may first import one behind its evaluator's wall, which writes
nothing: cache_bytecode() writes their bytecode beforehand, from the frontend, which imports
nothing of the engine and does it while its evaluator imports NumPy."""

import os
import sys

API_SUBMODULES = ("cuda", "func", "linalg", "nn", "optim", "utils")
# (torch.utils.data: imported by gradcli.utils, not a name of its own in the namespace)
API_HELPERS = ("data",)
AUTOGRAD_SUBMODULES = ("functional", "forward_ad", "graph")
# (in the order they load in)
OP_MODULES = ("reductions", "backward_ops", "elementwise", "indexing", "join_split", "slicing",
              "gather", "matmul", "compare", "sorting", "extra", "activations", "linalg",
              "products", "more_reductions", "decompositions", "inplace_shape", "linalg_extra",
              "scatter", "dropout", "layers", "normalization", "convolution", "image_blocks",
              "pooling", "adaptive_pooling", "unpooling", "upsample", "distributions")
# op modules that declare no op and load where first needed: distributions' topk_order, the
# reductions' and backward functions' vectorized kernels, the ops' printed forms (reprs: a
# program that prints an op or a method), PyTorch's argument errors (arg_errors: a call that
# was refused) and original_self (nn's, activations')
OP_HELPERS = ("topk_order", "vectorized", "reprs", "arg_errors", "original_self")


def paths():
    """The modules' and packages' paths, relative to the gradcli package, without `.py`."""
    return (list(API_SUBMODULES + API_HELPERS)
            + [os.path.join("autograd", m) for m in AUTOGRAD_SUBMODULES]
            + [os.path.join("ops", m) for m in OP_MODULES + OP_HELPERS])


def cache_bytecode():
    """Write the bytecode of the modules that load at first use where it is missing or older
    than the source (an editable install: an installation compiled it), without importing
    them."""
    tag = sys.implementation.cache_tag
    if sys.dont_write_bytecode or tag is None:
        return
    if sys.pycache_prefix or sys.flags.optimize:
        from importlib.util import cache_from_source
    else:  # (its usual answer, without importing importlib.util)
        def cache_from_source(source):
            head, tail = os.path.split(source)
            return os.path.join(head, "__pycache__", f"{tail[:-3]}.{tag}.pyc")
    root = os.path.dirname(os.path.abspath(__file__))
    stale = []
    for name in paths():
        package = os.path.join(root, name)
        sources = [os.path.join(package, f) for f in os.listdir(package) if f.endswith(".py")] \
            if os.path.isdir(package) else [package + ".py"]
        for source in sources:
            cached = cache_from_source(source)
            try:
                if os.stat(cached).st_mtime >= os.stat(source).st_mtime:
                    continue
            except OSError:
                pass
            stale.append((source, cached))
    if stale and os.access(root, os.W_OK):
        import py_compile
        for source, cached in stale:
            try:
                py_compile.compile(source, cached, doraise=True)
            except (OSError, py_compile.PyCompileError):
                pass  # (an unwritable installation: the import compiles it, as it would)
