"""The application above the engine: the command line, analyses, importers, exports and the service.

Imports engine (the kernel and its language) and tui; nothing below imports cronlapse.cli.
"""
