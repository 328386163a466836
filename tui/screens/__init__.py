"""The dashboard's screens: the dashboard itself, help, errors, prompts, why, latency, compare,
sweep and the live service.

Screens compose widgets, read through the model and ``engine.query``, and send commands.
"""
