"""Analyses of a run: why (explain), latency, comparisons, sweeps, the exactly-once checker,
statistics.

Imports only engine (the kernel and its language); front ends draw what these compute.
"""
