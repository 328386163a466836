"""Two futures compared: runs moved, dropped and added (futures.py), and their tables (tables.py).

Imports engine and cronlapse.analyses.latency.
"""
