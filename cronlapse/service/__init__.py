"""``cronlapse serve``: seed 003's job-scheduling service, live, on the one engine.

See docs/service.md: an event-sourced engine (every input journaled before it is applied), an
HTTP API over it, and executors that run what the server's config defines.

httpx (the executors' and the deliveries' HTTP client) imports its own command line,
``httpx._main``, whenever rich and click are installed, and with it rich and pygments: 80
modules and several megabytes that a server keeps for months and never uses. The entry below
marks that module as not importable (``None`` in :data:`sys.modules`, as the import system
documents), and httpx then defines the stub it defines when its ``cli`` extra is missing. It is
set here, before any module of the service imports httpx.
"""

import sys

sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
