"""The sub-commands: one module each, with its options (add_parser) and what it runs (run),
wiring obtain -> compile -> run -> judge -> experiments for that command; harness/cli.py
parses the command line and dispatches here."""
