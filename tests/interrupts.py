"""Ctrl-C in tests: SIGINT to the main thread while a program's loop runs."""

import _thread
import contextlib
import signal
import threading
import time


@contextlib.contextmanager
def interrupting_loop(counter, period=1.0, limit=20.0):
    """While the block runs, send Ctrl-C to the main thread once counter() is non-zero (the
    program's loop is running), and again every `period` seconds while counter() still moves
    (an interrupt can be lost; none is sent once the loop has stopped).

    Python's SIGINT handler is installed for the block: a process started with SIGINT ignored
    (a background job of a non-interactive shell) has none, and interrupt_main then does
    nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    stop = threading.Event()

    def watch():
        deadline = time.monotonic() + limit
        while not counter() and not stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        while not stop.is_set() and time.monotonic() < deadline:
            _thread.interrupt_main()
            before = counter()
            stop.wait(period)
            if counter() == before:  # the loop has stopped
                return
    threading.Thread(target=watch, daemon=True).start()
    try:
        yield
    finally:
        stop.set()
        signal.signal(signal.SIGINT, previous)
