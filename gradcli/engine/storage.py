"""Where a view's elements are in its base, from validated element strides.

A view shares its NumPy memory with its base, until `view.data = other` (or `base.data =
other`) gives one of them other memory, as PyTorch allows.  The layout of a view inside its base
is therefore never assumed: `geometry(view, base)` gives the view's offset and strides in
elements only when the view is, element for element, a part of the base's memory (same item
size, every stride a multiple of it, every element inside the base's extent); otherwise the view
is described by its own storage (`own_geometry`), as PyTorch describes it, and the positions it
yields are checked against the base's size before anything is read or written."""

import weakref

import numpy as np


def _extent(array, strides):
    """The lowest and highest element offsets (in elements, from its first element) of array."""
    lo = hi = 0
    for n, s in zip(array.shape, strides):
        if n > 1:
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
    return lo, hi


def _element_strides(array):
    """array's strides in elements (0 for axes of length 1), or None if a byte stride is not a
    multiple of its item size."""
    size = array.itemsize
    strides = []
    for n, s in zip(array.shape, array.strides):
        if n <= 1:
            strides.append(0)
        elif s % size:
            return None
        else:
            strides.append(s // size)
    return tuple(strides)


def _address(array):
    return array.__array_interface__["data"][0]


def geometry(view, base):
    """(offset, strides) in elements of array `view` inside array `base`'s memory, the offset
    from base's first element; None unless every element of view is an element of base."""
    if view.itemsize != base.itemsize or view.dtype != base.dtype:
        return None
    vs, bs = _element_strides(view), _element_strides(base)
    if vs is None or bs is None:
        return None
    start, remainder = divmod(_address(view) - _address(base), view.itemsize)
    if remainder:
        return None
    if view.size == 0:
        return start, vs
    lo, hi = _extent(view, vs)
    base_lo, base_hi = _extent(base, bs)
    if start + lo < base_lo or start + hi > base_hi:
        return None
    return start, vs


def root(array):
    """The NumPy array that owns array's memory (its storage)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


# Tensor.data_ptr(): the address a program sees is a fake one, made for each storage (the NumPy
# array that owns the memory) when a program first asks, plus the real byte offset inside it:
# tensors that share memory share addresses and a view's offset is PyTorch's, but no program
# learns where anything is in the process's memory (an aid to any memory attack).
_FAKE_BASES = {}        # id(storage) -> (weak reference to it, its fake address)
_FAKE_NEXT = [1 << 40]  # the next storage's fake address (64-byte aligned, as PyTorch's CPU
#                         allocator aligns; storages never overlap)


def _forget_fake(ref, key):
    if _FAKE_BASES.get(key, (None,))[0] is ref:
        del _FAKE_BASES[key]


def fake_address(array):
    """The address a program sees for array's first element (see _FAKE_BASES)."""
    storage = root(array)
    key = id(storage)
    entry = _FAKE_BASES.get(key)
    if entry is None or entry[0]() is not storage:
        ref = weakref.ref(storage, lambda ref, key=key: _forget_fake(ref, key))
        entry = _FAKE_BASES[key] = (ref, _FAKE_NEXT[0])
        _FAKE_NEXT[0] += (storage.nbytes // 64 + 2) * 64
    return entry[1] + _address(array) - _address(storage)


def own_geometry(array):
    """(offset, strides) in elements of array inside its own storage (PyTorch's storage_offset()
    and stride() of a tensor whose data was replaced); offset 0 if it cannot be told."""
    found = geometry(array, root(array))
    if found is not None:
        return found
    strides = _element_strides(array)
    return 0, strides if strides is not None else (0,) * array.ndim


def positions(view, base):
    """For each element of array `view`, its flat C-order index in array `base`, as an int64
    array of view's shape: where view's memory is part of base's, the element it shares; for a
    view whose memory was replaced (`.data = ...`), as PyTorch's as_strided reads base's
    gradient: its own storage offset and strides, which must fit base's size."""
    if view.size == 0:
        return np.zeros(view.shape, np.int64)
    found = geometry(view, base)
    if found is not None:
        start, strides = found
        bs = _element_strides(base)
        base_lo, base_hi = _extent(base, bs)
        # an index array laid out like base (element units) holding, at each element of base,
        # its C-order index (-1 between them); the view's strides then read off its positions
        layout = np.full(base_hi - base_lo + 1, -1, np.int64)
        layout[_offsets(base.shape, bs).ravel() - base_lo] = np.arange(base.size, dtype=np.int64)
        index = start - base_lo + _offsets(view.shape, strides)
        pos = layout[index]
        if (pos >= 0).all():
            return pos
    offset, strides = own_geometry(view)
    pos = offset + _offsets(view.shape, strides)
    if pos.min() < 0 or pos.max() >= base.size:
        needed = (int(pos.max()) + 1) * view.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(view.shape)}, strides {list(strides)}, storage offset "
            f"{offset}, and itemsize {view.itemsize} requiring a storage size of {needed} are "
            f"out of bounds for storage of size {base.size * base.itemsize}")
    return pos


def _offsets(shape, strides):
    """The element offsets of an array of this shape and these strides, of that shape."""
    out = np.zeros(shape, np.int64)
    for axis, (n, s) in enumerate(zip(shape, strides)):
        out += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(shape) - axis - 1))
    return out
