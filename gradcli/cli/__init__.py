"""The command line (typer) and the REPL: thin layers over gradcli.analysis and gradcli.render."""
