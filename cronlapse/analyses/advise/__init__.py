"""``cronlapse advise``: what hurts a fleet, a change for each, and a play that proves it.

A fleet (a scenario, or any file ``cronlapse import`` reads) is searched for herds of jobs firing
in the same minute, runs waiting for a worker, runs in an hour a daylight-saving change skips or
repeats, runs longer than their job's interval and jobs that lose the runs an outage covers
(:mod:`~cronlapse.analyses.advise.findings`). Each finding gets a change to the file
(:mod:`~cronlapse.analyses.advise.proposals`), and a change is proposed only when playing the fleet
before and after it, side by side, shows that it improves what it targets
(:mod:`~cronlapse.analyses.advise.advice`): the same engine as ``cronlapse run``, so the proof
cannot drift from what a run does. Everything is a pure function of the file and the options: the
same fleet gets the same advice.
"""

from cronlapse.analyses.advise.advice import Advice, AdviceOptions, Step, advise
from cronlapse.analyses.advise.fleet import Fleet, FleetError, read_fleet

__all__ = ["Advice", "AdviceOptions", "Fleet", "FleetError", "Step", "advise", "read_fleet"]
