"""The README's examples are true: its worked protocol example prints what the README says."""

from __future__ import annotations

import re
from pathlib import Path

from engine import CronJobScheduler, run_script

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _block(language: str, containing: str) -> list[str]:
    for match in re.finditer(rf"```{language}\n(.*?)```", README, re.S):
        if containing in match.group(1):
            return match.group(1).splitlines()
    raise AssertionError(f"no {language} block with {containing!r} in the README")


def test_the_worked_protocol_example_prints_the_lines_in_its_comments():
    script, expected = [], []
    for line in _block("text", "INIT"):
        command, _, comment = line.partition("#")
        if command.strip():
            script.append(command.strip())
        output = re.split(r"\s{2,}", comment.strip())[0]
        if output and not output.startswith("aging"):
            expected.append(output)
    assert run_script(script) == expected


def test_the_scheduler_example_answers_as_its_comments_say():
    scheduler = CronJobScheduler()
    namespace = {"scheduler": scheduler}
    for line in _block("python", "CronJobScheduler()"):
        code, _, comment = line.partition("#")
        if not code.strip() or code.startswith(("from", "scheduler = ")):
            continue
        answer = eval(code.strip(), namespace)  # the README's own lines, nothing else
        assert repr(answer).replace("'", '"') == comment.strip(), line
