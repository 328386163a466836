"""cronlapse's deterministic scheduling engine: pure Python, no terminal, no wall clock.

The facades give the specifications' exact interfaces; everything else is :class:`Engine`.

The names below load with their modules on first use (PEP 562): importing any module of the
engine runs this file first, and a process that needs only the kernel (``cronlapse serve``)
should not load seed 000's and seed 001's facades with it.
"""

from __future__ import annotations

__all__ = ["Assignment", "CronJobScheduler", "Engine", "execute_script", "run_script"]


def __getattr__(name: str) -> object:
    if name in ("Assignment", "Engine"):
        from engine import core

        return getattr(core, name)
    if name == "CronJobScheduler":
        from engine.facades.cron_job_scheduler import CronJobScheduler

        return CronJobScheduler
    if name in ("execute_script", "run_script"):
        from engine.facades import script

        return getattr(script, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
