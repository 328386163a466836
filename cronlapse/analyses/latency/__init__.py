"""Latency attribution: where each run's waiting went (attribution.py), and its tables (tables.py).

Imports engine and cronlapse.analyses.stats.
"""
