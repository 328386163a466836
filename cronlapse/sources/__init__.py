"""One way in: a path (or ``-``) opened as what it is, a scenario, a seed 001 script, a crontab,
Kubernetes manifests or a systemd timer (:func:`open_source`), or every problem it has.

Imports the kernel and its language, and the importers; every front end opens files here.
"""

from cronlapse.sources.opener import Source, SourceInvalid, open_source
from cronlapse.sources.recognise import SourceKind, is_script, recognise
from cronlapse.sources.stdin import STDIN, STDIN_NAME

__all__ = [
    "STDIN",
    "STDIN_NAME",
    "Source",
    "SourceInvalid",
    "SourceKind",
    "is_script",
    "open_source",
    "recognise",
]
