"""Every output of the CLI and REPL: plain text, rich on a terminal, JSON on request."""
