"""Forward temporary elision: in `y * 0.5 + 0.1` the addition computes into the array of the
product, which nothing but the interpreter's evaluation stack refers to, as NumPy's own
temporary elision does for `a * 0.5 + 0.1` on arrays (numpy/_core/src/multiarray/temp_elide.c).
A chain of elementwise operators on big tensors then allocates what the same NumPy code
allocates, and reuses memory that is still in the cache.

Writing into an operand's array is only unobservable when nothing else can ever read that
operand again.  The tests, all cheap next to an operation on 256 KiB or more:

- the operand tensor's reference count is the one the op's specialised call sees for an object
  that only the evaluation stack (and the call machinery between it and the op) holds: an
  operator (`t + 1`), a method (`t.exp()`, `t.add(1)`) or a function of the op table
  (`torch.exp(t)`) each pass it their own way, and each way's count is measured at import on
  probe classes built the same way (EXPECTED_REFS); its array's count says only that tensor
  holds it: nothing saved it for backward (mul saves an input, exp its output), no view, no
  `.numpy()` alias, no container, no variable;
- it is the newest big result an op made (FRESH), made in the frame that is now applying the
  operator (or calling the method or function), at an instruction from which only loads lead
  to the present one (`y * 0.5`, then LOAD_CONST 0.1, then the addition).  A reference count alone cannot tell the evaluation
  stack from C code that holds the only reference and reads the object after the call (NumPy
  checks its C backtrace for that); a tensor made by the previous instruction of this frame
  and not stored since is on this frame's stack;
- the operation would not save the operand, the operand is no view, and no recording,
  anomaly mode, saved-tensor hooks or forward AD is active.

CPython 3.10-3.13 only (their reference counts and frame offsets: engine.pyversion); elsewhere
EXPECTED_REFS is None and nothing is elided.  (A C function that stores its own result, say
functools.cache wrapped round a NumPy ufunc on an object array of big tensors, and hands that result straight to an
operator, could still be fooled; nothing in gradcli or a program of its language can.)"""

from sys import _getframe, getrefcount
from weakref import WeakKeyDictionary, ref as _weakref

from ..engine.pyversion import PASSIVE_INSTRUCTIONS, REFERENCE_COUNTS

# NumPy's NPY_MIN_ELIDE_BYTES: below this an allocation costs less than the checks
ELIDE_BYTES = 1 << 18

# the modules whose frames are thin wrappers between a program and an op's specialised call
# (Op.__call__, methods, operators): a fresh result belongs to the frame that called them
_WRAPPERS = frozenset({"gradcli.ops.registry", "gradcli.ops"})

# instructions that only push a value (none stores, pops or calls anything that could take
# the stack's operands); what runs between making a temporary and the operator that reads it
_PASSIVE = PASSIVE_INSTRUCTIONS


def _expected_refs():
    """{path: reference count}: the count an op's specialised call sees, for its operand, when
    only the evaluation stack and the frames of that path hold it.  Paths: () for an operator
    (the call is the operator slot itself), ("method",) for a Tensor method, ("function",) for
    an op of the table called as a function (Op.__call__); each measured on a probe built as
    gradcli.ops builds its own, and kept only if a named operand counts exactly one more.  None
    where counts do not work so: then nothing is elided."""
    if not REFERENCE_COUNTS:
        return None
    defaults = ()

    def specialised(x, attrs=defaults):  # an op's call
        return getrefcount(x)

    class Probe:
        def __add__(self, other):
            return getrefcount(self)

        def __neg__(self):
            return getrefcount(self)

        def method(self, *args, **kwargs):  # gradcli.ops._method's
            if args or kwargs:
                return None
            return specialised(self, defaults)

    class Function:  # registry.Op.__call__
        def __call__(self, *args, **kwargs):
            call = specialised
            return call(*args)
    function = Function()

    def temporary():
        return Probe() + 1, -Probe(), Probe().method(), function(Probe())

    def named():
        p = Probe()
        return p + 1, -p, p.method(), function(p)

    (binary, unary, method, call), counts = temporary(), named()
    if binary != unary or counts != (binary + 1, unary + 1, method + 1, call + 1):
        return None
    return {(): binary, ("method",): method, ("function",): call}


EXPECTED_REFS = _expected_refs()
# the code of the frames a path goes through (gradcli.ops registers its methods' and
# Op.__call__'s): code -> its name in EXPECTED_REFS's paths
WRAPPER_CODES = {}


class _Fresh:
    """The newest big result of an op: (weak reference, id and code of the frame it was made
    for, that frame's instruction offset then), one tuple so that threads see it whole."""
    __slots__ = ("at",)

    def __init__(self):
        self.at = None


FRESH = _Fresh()


def note(t):
    """t is an op's big new result: remember where it was made (called by the op's call)."""
    f = _getframe(2)
    while f is not None and f.f_globals.get("__name__") in _WRAPPERS:
        f = f.f_back
    if f is not None:
        FRESH.at = (_weakref(t), id(f), f.f_code, f.f_lasti)


def on_stack(t):
    """The reference count t, an operand of the op whose call is asking, has when only the
    evaluation stack and the call's path hold it, if t is the newest fresh result, made for the
    frame that applies the operator or calls the method or function, and on its stack since
    (see the module doc); 0 otherwise.  Called by the op's call."""
    at = FRESH.at
    if at is None or at[0]() is not t:
        return 0
    f = _getframe(2)
    path = ()
    while f is not None and f.f_code in WRAPPER_CODES:
        path += (WRAPPER_CODES[f.f_code],)
        f = f.f_back
    if f is None or id(f) != at[1] or f.f_code is not at[2]:
        return 0
    expected = EXPECTED_REFS.get(path)
    if expected is None or not _passive_between(at[2], at[3], f.f_lasti):
        return 0
    return expected


# code -> {(start, end): answer}; weak, so that the code of a REPL line or of a finished
# program is not kept alive by its answers
_WINDOWS = WeakKeyDictionary()


def _passive_between(code, start, end):
    """Whether only passive instructions lie between the instructions at offsets start and end
    of code (frame offsets: during a call, f_lasti may point into the calling instruction's
    inline cache, past the instruction's own offset)."""
    answers = _WINDOWS.get(code)
    if answers is None:
        answers = _WINDOWS[code] = {}
    known = answers.get((start, end))
    if known is None:
        import dis
        between = [i.opname for i in dis.get_instructions(code) if start < i.offset <= end]
        # the last one is the instruction at `end`: the operator or call itself
        known = answers[start, end] = bool(between) and all(
            name in _PASSIVE for name in between[:-1])
    return known

