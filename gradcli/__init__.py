"""gradcli: PyTorch's autograd semantics on NumPy.

`import gradcli as torch` gives the torch-like namespace that gradcli programs see.  Importing
this package never imports the command line.

The namespace (gradcli/api.py: NumPy, the engine and the op table) loads on the package's first
attribute access, not at `import gradcli`: the `gradcli` command's frontend, which parses the
command line and talks to the evaluator process, imports modules of this package (gradcli.cli,
gradcli.kernel) without ever needing NumPy, while the evaluator, started at the same moment,
imports it (gradcli.kernel.process.prestart).

The submodules that a plain `gradcli eval` never uses (api._LAZY_SUBMODULES: nn, optim, func,
linalg, cuda) load on their own first use, as `gradcli.nn` or through the namespace."""

import importlib as _importlib

from .version import __version__  # noqa: F401

_loaded = False


def _load():
    """Import the torch-like namespace into this module (once)."""
    global _loaded
    if not _loaded:
        api = _importlib.import_module(".api", __name__)
        globals().update({k: v for k, v in vars(api).items()
                          if not (k.startswith("__") and k.endswith("__")) or k == "__all__"})
        _loaded = True


def __getattr__(name):
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module 'gradcli' has no attribute '{name}'")
    _load()
    try:
        return globals()[name]
    except KeyError:
        pass
    if name in globals().get("_LAZY_SUBMODULES", ()):  # (its import sets it here: found next time)
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'gradcli' has no attribute '{name}'")


def __dir__():
    _load()
    return sorted(set(globals()) | set(globals().get("_LAZY_SUBMODULES", ())))
