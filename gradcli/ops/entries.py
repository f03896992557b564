"""The op table's entries: `OPS` and `ALIASES` (public names to ops), the `Entry` base class of
ops, plain functions and overloads (gradcli.ops.registry), and the `Pending` entry that stands
for an op until the module declaring it loads at first use (gradcli.ops.lazy), with the classes
the sandbox must know as the table's (CLASSES, ON_NEW_CLASS)."""

OPS = {}            # public name -> Op or Overload, in declaration order
ALIASES = {}        # alternative public name -> name in OPS (`divide` -> `div`)


class Pending:
    """The table entry of an op whose module has not loaded yet (gradcli.ops.lazy): the names a
    program, a formula or Tensor can reach exist from the start, the modules behind them load
    at their first use.  It knows what the namespaces ask of every entry at start-up (its
    name, kind, and whether it is a public function); anything else, a call or another
    attribute, loads its module, whose declaration of the op takes this very object over
    (`Entry.__new__`), so that every reference to it is the op from then on."""

    def __init__(self, name, module, kind, public, function, cls):
        self.name, self.kind, self.public, self.function = name, kind, public, function
        self._module, self._class = module, cls

    def _load(self):
        from .lazy import load
        load(self.__dict__["_module"])
        if type(self) is Pending:  # (its module did not declare it: the manifest is stale)
            from .lazy import REGENERATE
            raise RuntimeError(f"op {self.name!r} is not declared by gradcli.ops."
                               f"{self._module}: run `{REGENERATE}`")

    def __getattr__(self, attr):
        if attr.startswith("__") or "_module" not in self.__dict__:
            raise AttributeError(attr)
        self._load()
        return getattr(self, attr)

    def __call__(self, *args, **kwargs):
        self._load()
        return self(*args, **kwargs)

    def __repr__(self):
        self._load()
        return repr(self)


def loaded(entry):
    """entry, its module loaded first if it is a Pending one (for code that asks its class)."""
    if type(entry) is Pending:
        entry._load()
    return entry


CLASSES = set()    # the classes of the table's entries
ON_NEW_CLASS = []  # functions called with each class that joins CLASSES (the sandbox's)


def _note_class(cls):
    CLASSES.add(cls)
    for hook in ON_NEW_CLASS:
        hook(cls)


ADOPT = {}  # name -> the Pending entry that the next op of that name and class becomes
CREATED = None  # (while the manifest is made: gradcli.ops.lazy) (name, class, op) of each op


class Entry:
    """What the table's classes share: an op declared while its module loads on first use
    becomes its Pending entry (the same object, of the op's class from then on).  The entry
    knows the class of the op the table holds under its name, since a module may declare an op
    of another class under the same name for its own use (activations' threshold_); of ops of
    one name and class, the first declared is the one the table holds (indexing's).  Each class
    of entries joins CLASSES when it is made, before any entry of it exists: a load that an
    error or the timeout stops between an entry's adoption and its registration leaves no entry
    of a class the sandbox does not know (a program holding one could build ops)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _note_class(cls)

    def __repr__(self):
        from .reprs import printed
        return printed(self.name, self)

    @property
    def __name__(self):
        return self.name

    def __new__(cls, name=None, *args, **kwargs):
        pending = ADOPT.get(name) if ADOPT else None
        if pending is None or pending.__dict__["_class"] != cls.__qualname__:
            entry = super().__new__(cls)
            if CREATED is not None:
                CREATED.append((name, cls.__qualname__, entry))
            return entry
        del ADOPT[name]
        pending.__dict__.clear()
        pending.__class__ = cls
        return pending
