"""The process settings of the `gradcli` console script, which a program of the Python API can
ask for too (`gradcli.tune_process()`): CPython's cyclic collector and glibc's allocator set up
for big graphs and big arrays.  The library never changes them on its own: they are its host
process's, and they change how everything else in that process runs."""

import gc
import os


# The collector's thresholds in a gradcli process (Python's defaults: 700, 10, 10).  The graph a
# program builds is acyclic and freed by reference counting (PyTorch's lives in C++, where no
# collector walks it), but while it is alive each of CPython's full collections walks all of it,
# and on a growing graph they come back every 25% of growth: a 1M-op graph is walked some five
# times, which makes the forward pass 1.8x as long (1.6 -> 2.8 us/op, measured with
# tensors padded apart from NumPy's arrays, a layout since removed).  Here a full collection
# waits for 10M allocations (500 collections of the middle generation, each after 10 of the
# youngest, each after 2,000 allocations) where it waited for 70k; short-lived cycles are still
# collected by the young generations.
COLLECTOR_THRESHOLDS = (2_000, 10, 500)


def tune_collector():
    """Set the process's collector up for gradcli, as mypy does for its own: what start-up
    imported (NumPy, the engine, typer) lives as long as the process, so gc.freeze() takes it
    out of every later collection (the console script imports it with the collector paused:
    _gradcli_console); then COLLECTOR_THRESHOLDS.  The console script calls this; the Python
    API leaves the collector of its host process alone unless the program asks (tune_process)."""
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


# glibc malloc's settings in a gradcli process.  By default it serves blocks up to a threshold
# from the heap and trims the heap's free top back to the system once it passes twice that
# threshold, which adapts to the biggest block freed so far (up to 32 MiB).  A program on big
# tensors frees and allocates arrays of the same sizes all the time, and each trim makes the
# next allocations fault their pages in again: on a 20-op chain over 1e6 elements, 2,580 page
# faults and 10% of the time per pass, or none, depending on where the arrays happened to lie.
# Fixed settings instead: blocks up to 32 MiB from the heap, and up to 128 MiB of free heap
# kept for reuse (given back at exit).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt parameters (malloc.h)
ALLOCATOR_SETTINGS = ((M_MMAP_THRESHOLD, 32 << 20), (M_TRIM_THRESHOLD, 128 << 20))
# the user's own settings, which the allocator read at start-up, win
ALLOCATOR_ENVIRONMENT = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_",
                         "GLIBC_TUNABLES")


def tune_allocator():
    """Apply ALLOCATOR_SETTINGS to glibc's malloc (as tune_collector: the console script, or a
    program that asks); True if applied.  Nothing on other C libraries, or when the environment has
    settings of its own."""
    if any(os.environ.get(name) for name in ALLOCATOR_ENVIRONMENT):
        return False
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):  # no ctypes, not glibc
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in ALLOCATOR_SETTINGS)


def tune_process(collector=True, allocator=True):
    """Give this process the `gradcli` console script's settings (gradcli's own extension, not
    PyTorch's): the collector's (tune_collector: what is alive now is frozen out of every
    later collection, then full collections wait for 10M allocations instead of 70k, so a
    growing graph is not walked again and again; short-lived cycles are still collected) and
    glibc malloc's (tune_allocator: fixed thresholds, so big arrays freed and made again do not
    fault their pages in again; the environment's own MALLOC_* settings win).  Call it once,
    after the program's imports.  Returns which of the two were applied, as a dict."""
    done = {"collector": False, "allocator": False}
    if collector:
        tune_collector()
        done["collector"] = True
    if allocator:
        done["allocator"] = tune_allocator()
    return done


# OpenBLAS's setting in a gradcli process.  NumPy's OpenBLAS starts a worker thread per core but
# one at import, and an idle worker busy-waits for work (2**OPENBLAS_THREAD_TIMEOUT cycles; 2**28
# by default) before it sleeps: some 30 ms of CPU time in the middle of a one-shot command's
# start-up, when the evaluator (importing NumPy, the engine, the language) and the frontend
# (importing typer) already want two cores.  With 2**16 cycles (some 25 us) an idle worker
# sleeps almost at once, yet still waits out the gap between two BLAS calls in a row; a matrix
# product big enough to be split wakes every worker for it, so results are as they were.  A
# user's own setting wins.
BLAS_ENVIRONMENT = {"OPENBLAS_THREAD_TIMEOUT": "16"}


def tune_blas():
    """Give BLAS_ENVIRONMENT's settings to the NumPy this process imports next (the console
    script's: they must be in the environment before NumPy's first import, and its forked
    evaluators inherit them); the user's own settings of those names stay.  The names it set.
    (Not part of tune_process: a program of the Python API has imported NumPy before it asks.)"""
    done = []
    for name, value in BLAS_ENVIRONMENT.items():
        if name not in os.environ:
            os.environ[name] = value
            done.append(name)
    return done


MEMORY_SETTING = "GRADCLI_MAX_MEMORY"


def memory_limit():
    """The memory a program may take, in bytes: GRADCLI_MAX_MEMORY (a number, with an optional
    K, M or G), else half the machine's memory; 0 means none.  The evaluator's address space
    is limited to what its imports mapped plus this (gradcli.kernel.wall)."""
    text = os.environ.get(MEMORY_SETTING, "").strip().upper()
    if text:
        scale = {"K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30}.get(text[-1:], 1)
        try:
            return int(float(text.rstrip("KMG")) * scale)
        except ValueError:
            pass  # a malformed setting is ignored, as the language's limits ignore theirs
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):
        return 0
