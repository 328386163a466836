"""Playing time: the one tick driver, and the history that steps, seeks and branches a run.

Imports the kernel below it (engine.core and what it is made of); nothing above the kernel.
"""
