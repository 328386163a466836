"""The roles a cronlapse deployment on PostgreSQL splits into (see docs/deployment.md): the
scheduler's loops over the store, the API process and the worker.

Imports the rest of the service; the server starts them.
"""
