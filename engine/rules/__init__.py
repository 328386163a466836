"""The rules other schedulers add: overlap, deadlines, missed runs, pools, backfill, dependencies.

Imports engine.model, engine.schedules and engine.rewind; rules act through the parts they are
given.
"""
