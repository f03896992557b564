"""The gradcli language: a Python subset parsed by a Lark grammar, compiled to Python code whose
every attribute access, call and import goes through a sandbox, run in a Session.

Modules: parser (grammar and parse errors), lalr (the parser tables and their driver), syntax
(the parse tree as Python's `ast` nodes), fstrings (f-string fields), compiler (the sandbox's
checks and guards over that tree, then Python's compiler), sandbox (guards and safe builtins),
metered_methods (the str, bytes, int and list methods that grow a result, metered), limits
(size limits), namespace (the torch/numpy/math facades), errors (ProgramError), session (the
evaluation API), console (the piped REPL), transcript (replaying transcripts), program_text
(what a program's text says at a place, read from its tree, for hints).
"""
