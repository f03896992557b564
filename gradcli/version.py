"""gradcli's version (a module of its own: the package and its namespace both give it)."""

__version__ = "0.1.0"
