"""The `gradcli` console script's entry point.  It lives outside the gradcli package so that it
runs before the package imports: it pauses the cyclic garbage collector, and
gradcli.cli.main.run, once NumPy, the op table and typer are imported, freezes all of that
(it lives as long as the process) and starts the collector again.  Those imports allocate a
few hundred thousand objects, and the ~90 collections they set off cost a one-shot
`gradcli eval` some 7 ms."""

import gc


def run():
    gc.disable()  # gradcli.cli.main.run enables it again
    from gradcli.cli.main import run as gradcli_run
    return gradcli_run()


if __name__ == "__main__":
    run()
