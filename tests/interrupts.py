"""Ctrl-C in tests: SIGINT to the main thread while a program's loop runs."""

import _thread
import threading
import time


def interrupt_loop(counter, period=1.0, limit=20.0):
    """Send Ctrl-C to the main thread once counter() is non-zero (the program's loop is
    running), and again every `period` seconds while counter() still moves: an interrupt that
    got lost (one CI run lost one and hung) is sent again, and none is sent once the loop has
    stopped.  Returns an Event that ends the watching thread."""
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
    return stop
