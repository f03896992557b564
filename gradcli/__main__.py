"""`python -m gradcli ...`: the `gradcli` command."""

from .cli.main import run

if __name__ == "__main__":
    run()
