"""The dashboard's widgets, one per module: tables that draw only their visible rows, the
timeline, the header, the command bar.

A widget draws what it is given (the model's rows, what ``engine.query`` answers).
"""
