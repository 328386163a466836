"""A run written out: event lines, JSON lines and summary tables (report.py), Perfetto traces and
CSV (timeline.py).

Imports engine and cronlapse.analyses.stats.
"""
