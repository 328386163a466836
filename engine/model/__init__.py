"""The model and its values: records (jobs, runs, attempts, workers), commands, events, policies,
limits.

Owns the engine's vocabulary; imports nothing of cronlapse but engine.schedules (a job's schedule).
"""
