"""The `gradcli` console script's entry point.  It lives outside the gradcli package so that it
runs before the package imports: it pauses the cyclic garbage collector.  A one-shot command's
evaluator (forked first) imports NumPy, the engine and the language with it paused, and
gradcli.cli.main.run has the frontend import typer so; each process then freezes what it
imported (it lives as long as the process) and starts the collector again.  Those imports
allocate a few hundred thousand objects; with the collector running they set off some 70
collections."""

import gc
import signal


def run():
    # Ctrl-C from here until gradcli.cli.main.run takes it over is kept for it to report
    interrupts = []
    signal.signal(signal.SIGINT, lambda number, frame: interrupts.append(number))
    gc.disable()  # gradcli.cli.main.run enables it again
    from gradcli.cli.main import run as gradcli_run
    return gradcli_run(interrupts)


if __name__ == "__main__":
    run()
