"""Answers to "why?" about a run, derived from the engine's events and state (no Textual).

:func:`explain_run` gives a tree of :class:`Line`; :func:`plain` draws it as text (the
``cronlapse explain`` command), and the dashboard draws the same tree with Rich.
"""

from cronlapse.analyses.explain.lines import Line, Tag, plain
from cronlapse.analyses.explain.run import explain_run

__all__ = ["Line", "Tag", "explain_run", "plain"]
