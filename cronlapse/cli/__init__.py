"""The cronlapse command, one module per command; main.py builds the parser and runs a handler.

The top layer: may import everything; nothing imports it.
"""
