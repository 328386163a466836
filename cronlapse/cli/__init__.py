"""The cronlapse command, one module per command; entry.py parses a command with its module
alone, main.py the whole command line (``--help``, no command), and each runs a handler.

The top layer: may import everything; nothing imports it.
"""
