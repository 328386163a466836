"""The rules other schedulers add: overlap, deadlines, missed runs, pools, backfill, dependencies.

Imports engine.model, engine.schedules, engine.rewind and engine.parts (one level with the parts:
a rule acts through the parts it is given), never the engine above them.
"""
