"""The methods of str, bytes, int and list that can make a result larger than their receiver,
each metered against gradcli.lang.limits (a program's `s.replace('', s)`, `'x'.ljust(10**9)`,
`n.to_bytes(10**9)`), and the formatting that f-strings, format() and str.format run.  The
sandbox's guarded_getattr hands these out in place of the builtin methods."""

import functools
from _string import formatter_field_name_split

from ..engine.printing import budgeted
from . import limits


@functools.cache
def _formatter():
    """str.format whose fields reach attributes through guarded_getattr, with bounded widths
    (made at first use: importing `string` compiles its Template pattern, a cost every
    one-shot `gradcli eval` would pay)."""
    import string
    from .attributes import guarded_getattr

    class SafeFormatter(string.Formatter):
        def get_field(self, field_name, args, kwargs):
            first, rest = formatter_field_name_split(field_name)
            obj = self.get_value(first, args, kwargs)
            for is_attribute, key in rest:
                obj = guarded_getattr(obj, key) if is_attribute else obj[key]
            return obj, first

        def format_field(self, value, format_spec):
            limits.check_format_spec(format_spec)
            return format(value, format_spec)
    return SafeFormatter()


@budgeted
def _format(template, /, *args, **kwargs):
    return _formatter().vformat(template, args, kwargs)


@budgeted
def _format_map(template, mapping):
    return _formatter().vformat(template, (), mapping)


def _padding(name):
    """str.ljust and the like (and bytes'), refusing a huge width."""
    def pad(s, width, *args):
        if width > limits.MAX_WIDTH:
            limits.check_format_spec(str(width))
        return getattr(s, name)(width, *args)
    return pad


def _replace(s, old, new, count=-1):
    """str.replace and bytes.replace (whose `new` may be any buffer: an array's bytes)."""
    growth = limits.buffer_length(new) - limits.buffer_length(old)
    if growth > 0:
        occurrences = (len(s) + 1 if not old else s.count(old))
        if count >= 0:
            occurrences = min(occurrences, count)
        limits.check_items(len(s) + occurrences * growth)
    return s.replace(old, new, count)


def _join(separator, iterable):
    items = list(limits.check_each(iterable))
    limits.check_join(separator, items)
    return separator.join(items)


def _expandtabs(s, tabsize=8):
    tab = "\t" if isinstance(s, str) else b"\t"
    limits.check_items(len(s) + s.count(tab) * max(tabsize, 0))
    return s.expandtabs(tabsize)


def _translate(s, table, *args):
    """str.translate: each character may become a string of the table (bytes' tables map a byte
    to a byte)."""
    if isinstance(s, str):
        values = table.values() if isinstance(table, dict) else \
            table if isinstance(table, (list, tuple)) else ()
        longest = max((len(v) for v in values if isinstance(v, str)), default=1)
        limits.check_items(len(s) * max(longest, 1))
    return s.translate(table, *args)


def _growing(name, factor):
    """A method whose result has at most `factor` items per item of its receiver (str.upper:
    'ﬃ' is 'FFI'; str.encode; bytes.hex)."""
    def method(s, *args, **kwargs):
        limits.check_items(len(s) * factor)
        return getattr(s, name)(*args, **kwargs)
    method.__name__ = name
    return method


# The methods of str and bytes that can make a result longer than their receiver (by more than
# a few items), each with its size check; every other method's result is at most a few items
# longer than its receiver, and so stays within the limits the receiver met.
STRING_METHODS = {"format": _format, "format_map": _format_map, "replace": _replace,
                  "join": _join, "expandtabs": _expandtabs, "translate": _translate,
                  "encode": _growing("encode", 10), "hex": _growing("hex", 3),
                  **{name: _growing(name, 3) for name in (
                      "upper", "lower", "casefold", "title", "capitalize", "swapcase")},
                  **{name: _padding(name) for name in ("ljust", "rjust", "center", "zfill")}}


def _to_bytes(n, length=1, *args, **kwargs):
    limits.check_items(kwargs.get("length", length))
    return n.to_bytes(length, *args, **kwargs)


def _from_bytes(cls, data, *args, **kwargs):
    """int.from_bytes of bytes, of any buffer (an array's memory) or of an iterable of byte
    values (a list, an array's items): 8 bits of the integer a byte."""
    size = limits.buffer_length(data)
    if not size and not isinstance(data, limits.TEXT):
        if not hasattr(data, "__len__"):
            data = list(limits.check_each(data))
        size = len(data)
    if size * 8 > limits.MAX_INT_BITS + 64:
        raise limits.int_too_large()
    return cls.from_bytes(data, *args, **kwargs)


def _list_extend(lst, iterable, /):
    if hasattr(iterable, "__len__"):
        limits.check_items(len(lst) + len(iterable))
    lst.extend(iterable)


def _fromkeys(cls, iterable, *args):
    return cls.fromkeys(limits.check_each(iterable), *args)


def _iterating(name):
    """A method of set, frozenset or dict that iterates its arguments into objects of its own
    (`s.update(a)`, `s.union(a)`, `s.issubset(a)`, which makes a set of a first)."""
    def method(receiver, /, *args, **kwargs):
        for a in args:
            limits.check_each(a)
        return getattr(receiver, name)(*args, **kwargs)
    method.__name__ = name
    return method


def _searching(name):
    """list.index, count and remove, tuple.index and count: they compare value with each item
    in C (see limits.Comparisons)."""
    def method(receiver, value, /, *args):
        if type(value) not in limits.COMPARED_PLAINLY:  # (a number broadcasts nothing)
            compared = limits.Comparisons()
            compared.add(value)
            compared.add_items(receiver)
        return getattr(receiver, name)(value, *args)
    method.__name__ = name
    return method


SET_METHODS = ("update", "union", "intersection", "intersection_update", "difference",
               "difference_update", "symmetric_difference", "symmetric_difference_update",
               "issubset", "issuperset", "isdisjoint")
# The like of STRING_METHODS for other builtin types: (defining class, name) -> function of the
# receiver (or, for class methods, of the class), of these classes (bool's are int's).
METERED_TYPES = (int, list, tuple, dict, set, frozenset)
METERED_METHODS = {(int, "to_bytes"): _to_bytes, (int, "from_bytes"): _from_bytes,
                   **{(kind, name): _searching(name) for kind, name in (
                       (list, "index"), (list, "count"), (list, "remove"), (tuple, "index"),
                       (tuple, "count"))},
                   (list, "extend"): _list_extend, (dict, "fromkeys"): _fromkeys,
                   (dict, "update"): _iterating("update"),
                   **{(kind, name): _iterating(name) for kind in (set, frozenset)
                      for name in SET_METHODS if hasattr(kind, name)}}
CLASS_METHODS = {"from_bytes", "fromkeys"}


@budgeted
def format_field(value, conversion, spec):
    """One f-string field: `{value!conversion:spec}`."""
    if conversion == "r":
        value = repr(value)
    elif conversion == "s":
        value = str(value)
    elif conversion == "a":
        value = ascii(value)
    limits.check_format_spec(spec)
    return format(value, spec)


@budgeted
def safe_format(value, format_spec=""):
    limits.check_format_spec(format_spec)
    return format(value, format_spec)
