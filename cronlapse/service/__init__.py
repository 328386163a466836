"""``cronlapse serve``: seed 003's job-scheduling service, live, on the one engine.

See docs/service.md: an event-sourced engine (every input journaled before it is applied), an
HTTP API over it, and executors that run what the server's config defines.
"""
