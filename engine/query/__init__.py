"""The one read API: jobs, runs (implicit ones included), workers and notifications, listed and
paged.

Imports the kernel (engine.core and its parts); everything outside the kernel reads state through
it.
"""
