"""Record: what `@dataclass` gave the plain data classes that every evaluator imports (their
fields in order, repr, ==, replace), without the dataclasses module, which makes each class's
methods by compiling their source at import: ~0.2 ms a class, 8 classes and the module some
2.5 ms of every one-shot `gradcli eval`.  A subclass lists its fields in _fields and writes
its own __init__ (which a dataclass would have generated)."""


class Record:
    __slots__ = ()
    _fields = ()

    def __repr__(self):
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, name) for name in self._fields) == \
            tuple(getattr(other, name) for name in self._fields)

    __hash__ = None  # (as a dataclass with eq and not frozen: mutable, unhashable)

    def replace(self, **changes):
        """A copy with `changes` (dataclasses.replace)."""
        return type(self)(**{**{name: getattr(self, name) for name in self._fields}, **changes})

    def as_dict(self):
        """{field: value} (dataclasses.asdict for fields that hold no records)."""
        return {name: getattr(self, name) for name in self._fields}
