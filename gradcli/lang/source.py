"""Reading a program's text in a frontend, bounded, and the settings of gradcli's limits
(lang.limits).  Imports neither NumPy nor the engine: the frontend of a one-shot command runs
without them."""

import os
import sys


def _setting(name, default):
    """The integer setting `name` from the environment (underscores allowed: 10_000), else the
    default; a malformed value is ignored rather than breaking every program."""
    try:
        return max(int(os.environ.get(name, default)), 1)
    except ValueError:
        return default


MAX_SOURCE = _setting("GRADCLI_MAX_SOURCE", 1_000_000)


def python_name(name):
    """name as Python reads an identifier: NFKC-normalised (`ｐｒｉｎｔ` is print)."""
    if name.isascii():  # (unicodedata is not imported for the usual names)
        return name
    import unicodedata
    return unicodedata.normalize("NFKC", name)


def limit_note(amount, variable):
    """`(the limit is 1,000 calls; set GRADCLI_MAX_RECURSION to raise it)`"""
    return f"(the limit is {amount}; set {variable} to raise it)"


def read_source(path, what="program"):
    """The text of a program or transcript file for a frontend: a regular file (or standard
    input, path "-") of at most GRADCLI_MAX_SOURCE characters, read no further than that (a
    FIFO or /dev/zero would block or fill the frontend's memory).  Raises OSError (with a
    strerror), UnicodeDecodeError, or MemoryError for a source too long."""
    import stat
    if path == "-":
        stream = sys.stdin
        text = stream.read(MAX_SOURCE + 1)
    else:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # (a FIFO's open would wait)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(0, "not a regular file")
        with open(fd, encoding="utf-8") as f:
            text = f.read(MAX_SOURCE + 1)
    if len(text) > MAX_SOURCE:
        raise MemoryError(f"{what} too long " +
                          limit_note(f"{MAX_SOURCE:,} characters", "GRADCLI_MAX_SOURCE"))
    return text


def read_files(paths):
    """{path: its text, or {"error": why} when reading it raised (OSError, UnicodeDecodeError,
    or MemoryError past the source limit)}: plain data, which a frontend hands its evaluator."""
    texts = {}
    for path in paths:
        try:
            texts[path] = read_source(path, "transcript")
        except (OSError, UnicodeDecodeError, MemoryError) as e:
            texts[path] = {"error": str(e)}
    return texts
