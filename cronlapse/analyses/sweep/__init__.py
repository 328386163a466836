"""Sweeps: one scenario played many times with something varied, for capacity questions.

A sweep is the product of ``--vary KEY=VALUES`` options, each variant played under one or more
seeds (replicas). A variant is a pure function of the scenario's text, its settings and its seed
(:func:`cronlapse.analyses.sweep.evaluate.evaluate`), so the numbers are the same whichever executor
plays it, in whatever order (``cronlapse sweep``, :mod:`cronlapse.cli.sweep`).
"""
