"""The README's seed 000 example answers what its comments say.

Every block of the README and docs/ also runs in tests/test_docs.py; this checks the answers in
the comments of the python block, which running it alone would not.
"""

from __future__ import annotations

import re
from pathlib import Path

from engine import CronJobScheduler

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _block(language: str, containing: str) -> list[str]:
    for match in re.finditer(rf"```{language}\n(.*?)```", README, re.S):
        if containing in match.group(1):
            return match.group(1).splitlines()
    raise AssertionError(f"no {language} block with {containing!r} in the README")


def test_the_scheduler_example_answers_as_its_comments_say():
    scheduler = CronJobScheduler()
    namespace = {"scheduler": scheduler}
    for line in _block("python", "CronJobScheduler()"):
        code, _, comment = line.partition("#")
        if not code.strip() or code.startswith(("from", "scheduler = ")):
            continue
        answer = eval(code.strip(), namespace)  # the README's own lines, nothing else
        assert repr(answer).replace("'", '"') == comment.strip(), line
