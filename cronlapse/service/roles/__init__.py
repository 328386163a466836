"""The roles a cronlapse deployment on PostgreSQL splits into (see docs/deployment.md)."""
