"""Time and schedules: ticks against wall-clock time in a zone, and when each kind of schedule
fires.

Owns the calendar arithmetic; imports nothing of cronlapse but engine.model.values.
"""
