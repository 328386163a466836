"""cronlapse's deterministic scheduling engine: pure Python, no terminal, no wall clock.

The facades give the specifications' exact interfaces; everything else is :class:`Engine`.
"""

from engine.core import Assignment, Engine
from engine.facades.cron_job_scheduler import CronJobScheduler
from engine.facades.script import execute_script, run_script

__all__ = ["Assignment", "CronJobScheduler", "Engine", "execute_script", "run_script"]
