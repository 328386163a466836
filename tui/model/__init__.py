"""The dashboard's model: sessions, moves through time, indexes and parsers.

Nothing here imports Textual or Rich, so it can be tested (and benchmarked) on plain values and the
widgets stay thin: they draw what these objects hold.
"""
