"""The `coach` command line: `main.py` holds the parser and the table of sub-commands, one
module per sub-command group beside it."""
