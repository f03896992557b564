"""The order PyTorch's CPU topk (largest, sorted) leaves equal values in: it runs libstdc++'s
std::nth_element then std::sort of the first k - 1 (or, for k * 64 <= n, std::partial_sort) on
(value, index) pairs compared by value, and those algorithms (introselect, introsort, heaps) are
not stable.  Here they are step for step, on a list of pairs ordered largest first.  Values
that are all distinct need none of this: their order is the sorted one."""

import numpy as np


def _lg(n):
    return n.bit_length() - 1


def _greater(a, b):
    return a[0] > b[0]


def _insertion_sort(q, first, last):
    for i in range(first + 1, last):
        val = q[i]
        if _greater(val, q[first]):
            q[first + 1:i + 1] = q[first:i]
            q[first] = val
        else:
            _linear_insert(q, i)


def _linear_insert(q, last):
    val = q[last]
    nxt = last - 1
    while _greater(val, q[nxt]):
        q[last] = q[nxt]
        last = nxt
        nxt -= 1
    q[last] = val


def _median_to_first(q, result, a, b, c):
    """std::__move_median_to_first (its comparisons have no side effects: all made first)."""
    ab, ac, bc = _greater(q[a], q[b]), _greater(q[a], q[c]), _greater(q[b], q[c])
    if ab:
        pick = b if bc else c if ac else a
    else:
        pick = a if ac else c if bc else b
    q[result], q[pick] = q[pick], q[result]


def _partition_pivot(q, first, last):
    mid = first + (last - first) // 2
    _median_to_first(q, first, first + 1, mid, last - 1)
    pivot, lo, hi = q[first], first + 1, last
    while True:
        while _greater(q[lo], pivot):
            lo += 1
        hi -= 1
        while _greater(pivot, q[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        q[lo], q[hi] = q[hi], q[lo]
        lo += 1


def _adjust_heap(q, first, hole, length, value):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _greater(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _greater(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value


def _make_heap(q, first, last):
    length = last - first
    if length < 2:
        return
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(q, first, parent, length, q[first + parent])


def _heap_select(q, first, middle, last):
    _make_heap(q, first, middle)
    for i in range(middle, last):
        if _greater(q[i], q[first]):
            value = q[i]
            q[i] = q[first]
            _adjust_heap(q, first, 0, middle - first, value)


def _sort_heap(q, first, last):
    while last - first > 1:
        last -= 1
        value = q[last]
        q[last] = q[first]
        _adjust_heap(q, first, 0, last - first, value)


def partial_sort(q, first, middle, last):
    _heap_select(q, first, middle, last)
    _sort_heap(q, first, middle)


def nth_element(q, first, nth, last):
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last)


def sort(q, first, last):
    if first == last:
        return
    _introsort_loop(q, first, last, 2 * _lg(last - first))
    if last - first > 16:
        _insertion_sort(q, first, first + 16)
        for i in range(first + 16, last):
            _linear_insert(q, i)
    else:
        _insertion_sort(q, first, last)


def _introsort_loop(q, first, last, depth):
    while last - first > 16:
        if depth == 0:
            partial_sort(q, first, last, last)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last)
        _introsort_loop(q, cut, last, depth)
        last = cut


def topk_indices(values, k):
    """The indices PyTorch's CPU topk (largest, sorted) gives for one row of values."""
    q = [(v, i) for i, v in enumerate(values)]
    if k * 64 <= len(q):
        partial_sort(q, 0, k, len(q))
    else:
        nth_element(q, 0, k - 1, len(q))
        sort(q, 0, k - 1)
    return [i for _, i in q[:k]]


def topk_order(row, k):
    """topk_indices of a NumPy row, by a stable sort where no two of the values it decides
    between are equal."""
    order = np.argsort(-row, kind="stable")
    chosen = row[order[:k + 1]]
    if (chosen[1:] != chosen[:-1]).all():
        return order[:k]
    return np.array(topk_indices(row.tolist(), k), np.int64)
