"""The parts of the engine, each owning its state: runs, job cursors, the ready queue, workers,
timers, outbox.

Imports engine.model, engine.schedules, engine.rewind and engine.rules, never the engine above them.
"""
