"""The parts of the engine, each owning its state: runs, job cursors, the ready queue, workers,
timers, outbox, the current tick; and the parts that drive a run (attempts, the lifecycle).

Imports engine.model, engine.schedules, engine.rewind and engine.rules (one level with the rules:
the parts that drive a run are connected to the rules they consult), never the engine above them:
each part is given what it uses, and engine.core composes them.
"""
