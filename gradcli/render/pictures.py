"""Pictures of the backward graph, made in the frontend: the DOT text rebuilt from the
evaluator's `graph --json` document (checked: untrusted data) and Graphviz's drawing of it.
Imports nothing of the engine (the frontend of a one-shot command runs without it)."""

import re

DRAWN_FORMATS = ("ascii", "dot", "mermaid")  # text drawings (render.graph.FORMATS)
IMAGE_FORMATS = ("svg", "png")  # pictures, through Graphviz
_ID = re.compile(r"n\d{1,7}$")
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # (a newline is a line of the label)


def dot_from_json(document):
    """DOT text of a `graph --json` document the evaluator sent, checked (the frontend trusts
    no data from the evaluator: ids must be n<digits>, labels are escaped strings, so that
    nothing but boxes, arrows and text reach Graphviz)."""
    if not isinstance(document, dict):
        raise ValueError("not a graph document")
    nodes, edges = document.get("nodes"), document.get("edges")
    roots, outputs = document.get("roots"), document.get("outputs")
    if not (isinstance(nodes, list) and isinstance(edges, list) and isinstance(roots, dict)
            and isinstance(outputs, list)) or len(nodes) > 100_000 or len(edges) > 400_000:
        raise ValueError("not a graph document")

    def node_id(value):
        if not isinstance(value, str) or not _ID.match(value):
            raise ValueError("bad node id")
        return value

    def text(value):  # (no control character: dot copies them into the SVG it writes)
        return escape(_CONTROL.sub("", str(value)[:500])).replace("\n", "\\n")

    lines = ["digraph backward {", "  rankdir=BT;", '  node [shape=box, fontname="monospace"];']
    for node in nodes:
        if not isinstance(node, dict):
            raise ValueError("bad node")
        shape = ', style=filled, fillcolor="lightblue"' if node.get("leaf") is True else ""
        lines.append(f'  {node_id(node.get("id"))} [label="{text(node.get("label", ""))}"'
                     f'{shape}];')
    for edge in edges:
        if not isinstance(edge, dict):
            raise ValueError("bad edge")
        lines.append(f"  {node_id(edge.get('to'))} -> {node_id(edge.get('from'))};")
    for i, name in enumerate(outputs[:1000]):
        root = roots.get(name) if isinstance(name, str) else None
        if root is not None:
            lines.append(f'  out{i} [label="{text(name)}", shape=ellipse];')
            lines.append(f"  {node_id(root)} -> out{i};")
    lines.append("}")
    return "\n".join(lines)


# Graphviz runs in the frontend, on a graph a program chose: it is bounded as the evaluator is
PICTURE_NODES = 2000  # more boxes than a picture can show legibly (--format dot has no limit)
PICTURE_TIMEOUT = 60  # seconds, without --timeout
PICTURE_MEMORY = 2 ** 30  # bytes of address space, or GRADCLI_MAX_MEMORY when that is less
# dot's network simplex (ranking and placement) can take minutes on a graph whose leaf feeds
# hundreds of nodes; past this many nodes its iterations are bounded (a looser layout)
BOUNDED_LAYOUT_NODES = 100
BOUNDED_LAYOUT = ("-Gnslimit=1", "-Gnslimit1=1")


# dot's layout time grows with the square of the ranks its edges cross (each crossing is a
# virtual node of its layout), not with the nodes: a chain of 1,803 nodes takes 0.5 s, a leaf
# that feeds every step of a chain of n steps makes n * n crossings.  Measured (dot 2.43,
# BOUNDED_LAYOUT): 4,830 crossings 0.8 s, 9,900 3 s, 39,800 about 50 s; 159,600 and more end
# in SIGSEGV.  A graph past this many is refused before dot starts.
PICTURE_CROSSINGS = 20_000


def rank_crossings(edges):
    """How many ranks the edges of a graph cross, laid out as dot ranks it (each head below
    its tail; a layering by longest path from the nodes nothing points to): edges are (tail,
    head) pairs of node ids.  (Nodes on a cycle, which no backward graph has, count none.)"""
    edges = list(edges)
    heads, pointed = {}, {}
    for tail, head in edges:
        heads.setdefault(tail, []).append(head)
        pointed[head] = pointed.get(head, 0) + 1
    rank = dict.fromkeys(heads, 0)
    rank.update(dict.fromkeys(pointed, 0))
    ready = [n for n in rank if n not in pointed]
    while ready:
        node = ready.pop()
        for head in heads.get(node, ()):
            rank[head] = max(rank[head], rank[node] + 1)
            pointed[head] -= 1
            if not pointed[head]:
                ready.append(head)
    return sum(max(rank[head] - rank[tail] - 1, 0) for tail, head in edges)


class PictureTooLarge(ValueError):
    """A graph with more nodes than a picture shows."""


class PictureTimeout(RuntimeError):
    """dot ran out of its time (the seconds it was given, or its CPU limit)."""


def render_with_graphviz(dot_text, fmt, timeout=None, nodes=0, crossings=0):
    """Graphviz's `dot -T fmt` of dot_text (a graph of `nodes` nodes whose edges cross
    `crossings` ranks): the picture's bytes.
    dot gets at most `timeout` seconds (PICTURE_TIMEOUT without one) and PICTURE_MEMORY, and
    dies with this process; at its time, it and its process group are killed.  Raises
    FileNotFoundError when dot is not on PATH, PictureTimeout when it runs out of time,
    RuntimeError when it fails or runs out of memory, PictureTooLarge (before it starts) for a
    graph of more than PICTURE_NODES nodes or PICTURE_CROSSINGS crossings."""
    import shutil
    import signal
    import subprocess
    if nodes > PICTURE_NODES:
        raise PictureTooLarge(f"the graph has {nodes} nodes; a picture shows at most "
                              f"{PICTURE_NODES} (--format dot or ascii draws any graph)")
    if crossings > PICTURE_CROSSINGS:
        raise PictureTooLarge(f"the graph's edges cross {crossings:,} ranks (values used by "
                              f"operations far apart), which Graphviz lays out in minutes; a "
                              f"picture takes at most {PICTURE_CROSSINGS:,} (--format dot or "
                              f"ascii draws any graph)")
    dot = shutil.which("dot")
    if dot is None:
        raise FileNotFoundError("dot")
    seconds = PICTURE_TIMEOUT if timeout is None else timeout
    if seconds <= 0:
        raise PictureTimeout(f"no picture after {seconds:g} s")
    options = BOUNDED_LAYOUT if nodes > BOUNDED_LAYOUT_NODES else ()
    # (a dot that ends before it reads all of its input must not end this process with
    # SIGPIPE, which the frontend leaves at its default for `gradcli … | head`; dot itself
    # starts with the default again: restore_signals)
    pipe = signal.signal(signal.SIGPIPE, signal.SIG_IGN) if hasattr(signal, "SIGPIPE") else None
    try:
        # (a session of its own: what dot may start ends with it, at the timeout or when this
        # process is interrupted)
        p = subprocess.Popen([dot, f"-T{fmt}", *options], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, preexec_fn=_bounded_child(seconds))
        try:
            out, err = p.communicate(dot_text.encode("utf-8"), timeout=seconds)
        except subprocess.TimeoutExpired:
            raise PictureTimeout(f"no picture after {seconds:g} s") from None
        finally:
            if p.returncode is None:
                _kill_group(p)
    except subprocess.SubprocessError as e:  # (the preexec function failed)
        raise RuntimeError(str(e)) from None
    finally:
        if pipe is not None:
            signal.signal(signal.SIGPIPE, pipe)
    if p.returncode < 0:
        if -p.returncode == getattr(signal, "SIGXCPU", None):
            raise PictureTimeout(f"no picture after {seconds:g} s")
        raise RuntimeError(_ended_by(-p.returncode))
    if p.returncode != 0:
        message = err.decode("utf-8", "replace").strip().split("\n")[0]
        raise RuntimeError(message or f"exit status {p.returncode}")
    return out


def _kill_group(p):
    """End dot's process group (dot and anything it started) and reap dot (its pipes closed
    unread: a process that left the group may still hold them)."""
    import os
    import signal
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:  # (gone already)
        pass
    for pipe in (p.stdin, p.stdout, p.stderr):
        try:
            pipe.close()
        except OSError:
            pass
    p.wait()


def _ended_by(number):
    """Why dot ended by signal `number`, not its CPU limit: a crash (Graphviz's png renderer
    crashes on some big graphs, and a failed allocation under PICTURE_MEMORY may end so)."""
    import signal
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    return f"it crashed ({name}; out of memory, or try --format svg)"


def _bounded_child(seconds):
    """The function Graphviz's process runs before dot: limits on CPU time and memory, and
    death with this process (a frontend killed with SIGKILL takes dot with it)."""
    import ctypes
    import math
    import os
    import resource
    import signal
    from ..process import memory_limit
    memory = PICTURE_MEMORY
    if memory_limit():
        memory = min(memory, memory_limit())
    cpu = math.ceil(seconds) + 1
    prctl = None
    if hasattr(os, "uname") and os.uname().sysname == "Linux":
        try:
            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            prctl = None
    parent = os.getpid()

    def bound():  # (in the child, between fork and exec: nothing that takes a lock)
        if prctl is not None:
            prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
            if os.getppid() != parent:  # the frontend went before that was set
                os._exit(1)
        for limit, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, memory),
                             (resource.RLIMIT_CORE, 0)):
            try:
                soft, hard = resource.getrlimit(limit)
                if hard != resource.RLIM_INFINITY:
                    value = min(value, hard)
                resource.setrlimit(limit, (value, hard))
            except (ValueError, OSError):
                pass  # a limit this system does not offer
    return bound


def escape(text):
    """text inside a DOT string literal (an `&` as `&amp;`: dot decodes the character references
    of a label, and `&#27;` would reach an SVG, and the terminal it is written to, as ESC)."""
    return text.replace("&", "&amp;").replace("\\", "\\\\").replace('"', '\\"')
