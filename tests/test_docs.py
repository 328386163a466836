"""Every fenced block of README.md and docs/*.md runs as the page shows it, or says why not.

A block runs by its language:

- ``yaml``: a whole scenario. It must load, and ``cronlapse check`` must pass: no mismatch, and
  no command refused without a stated answer (``check`` only notes those, so a typo such as a
  wrong ``scheduled`` tick would slip through).
- ``text`` starting with ``INIT``: a seed 001 script whose output lines are its comments: the
  comment of a command (``TICK 20  # START b 0  why``), up to two spaces, and comment-only lines
  after it are what it prints, in order. INIT and FAIL print nothing: their comments are prose.
- ``python``: executed after the page's earlier python blocks, in one namespace per page, from
  the repository's root.
- ``console``: each ``$ cronlapse ...`` line is run and must print the lines under it. A block
  runs in a directory of its own, where ``scenarios/`` is the repository's: what it writes stays
  out of the repository.

Anything else, or a block that cannot run as it stands, is marked by an HTML comment on the line
just before its opening fence (GitHub does not show it):

- ``<!-- expect-error: TEXT -->``: the block is an example of a mistake: it runs as above and
  must fail with an error containing TEXT.
- ``<!-- fragment: KEY -->``: YAML that is the value of the top-level key KEY of a scenario, or
  (``<!-- fragment -->``) some top-level keys; it runs inside ``scenario: fragment``.
- ``<!-- not-run: WHY -->``: shown, not run (shell set-up, a synopsis, a diagram); WHY says why.

An unmarked block of any other kind fails, so nothing is skipped silently.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from cronlapse.cli.main import main
from engine.facades.script import execute_script
from engine.scenario import ScenarioInvalid, ScenarioRunner, parse_scenario

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^(```+)\s*([\w-]*)\s*$")
_MARKER = re.compile(r"^<!-- (expect-error|fragment|not-run)(?:: (.*?))? -->$")
_SILENT = ("INIT", "FAIL")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    """The line of the opening fence, 1-based."""
    language: str
    text: str
    marker: str | None = None
    argument: str = ""
    earlier: tuple[str, ...] = ()
    """The page's python blocks before this one."""

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def blocks_of(page: str, markdown: str) -> list[Block]:
    """The fenced blocks of a page, each with the marker on the line before it."""
    lines = markdown.splitlines()
    found: list[Block] = []
    python: list[str] = []
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if fence is None:
            index += 1
            continue
        end = next(
            (i for i in range(index + 1, len(lines)) if lines[i].strip() == fence.group(1)),
            None,
        )
        assert end is not None, f"{page}:{index + 1}: a fence that is never closed"
        marker = _MARKER.match(lines[index - 1]) if index else None
        text = "\n".join(lines[index + 1 : end]) + "\n"
        found.append(
            Block(
                page,
                index + 1,
                fence.group(2),
                text,
                marker.group(1) if marker else None,
                (marker.group(2) or "") if marker else "",
                tuple(python),
            )
        )
        if fence.group(2) == "python":
            python.append(text)
        index = end + 1
    return found


def _all_blocks() -> list[Block]:
    return [
        block
        for page in PAGES
        for block in blocks_of(str(page.relative_to(ROOT)), page.read_text(encoding="utf-8"))
    ]


# ------------------------------------------------------------------------------ runners


def _scenario_errors(block: Block, text: str) -> str | None:
    """The errors of a scenario, as ``cronlapse check`` and ``run`` would print them."""
    try:
        scenario = parse_scenario(text, block.page)
    except ScenarioInvalid as invalid:
        return str(invalid)
    runner = ScenarioRunner(scenario)
    failures = [str(failure) for failure in runner.run()]
    failures += [
        f"{block.page}:{rejection.entry.pos.line if rejection.entry.pos else '?'}: "
        f"{type(rejection.entry.action).__name__} was refused: "
        f"{rejection.result.outcome.name.lower()} ({rejection.result.message})"
        for rejection in runner.rejections
    ]
    return "\n".join(failures) or None


def _yaml(block: Block) -> str | None:
    """A whole scenario, its lines numbered as on the page."""
    return _scenario_errors(block, "\n" * block.line + block.text)


def _fragment(block: Block) -> str | None:
    wrapper = ["scenario: fragment"]
    body = block.text
    if block.argument:
        wrapper.append(f"{block.argument}:")
        body = textwrap.indent(body, "  ")
    padding = "\n" * max(block.line - len(wrapper), 0)
    return _scenario_errors(block, padding + "\n".join(wrapper) + "\n" + body)


def script_and_output(text: str) -> tuple[list[str], list[str]]:
    """The commands of a commented script and the output its comments show."""
    script: list[str] = []
    expected: list[str] = []
    for line in text.splitlines():
        command, _, comment = line.partition("#")
        command = command.strip()
        if command:
            script.append(command)
        silent = command.split(" ")[0] in _SILENT if command else False
        output = re.split(r"\s{2,}", comment.strip())[0]
        if output and not silent:
            expected.append(output)
    return script, expected


def _script(block: Block) -> str | None:
    script, expected = script_and_output(block.text)
    result = execute_script(script)
    if result.errors:
        return "\n".join(result.errors)
    if result.output != expected:
        return f"the script printed {result.output}, the page shows {expected}"
    return None


def _python(block: Block) -> str | None:
    namespace: dict[str, object] = {}
    with contextlib.chdir(ROOT):
        for number, earlier in enumerate(block.earlier, 1):
            exec(compile(earlier, f"{block.page} python block {number}", "exec"), namespace)
        try:
            exec(compile(block.text, block.name, "exec"), namespace)
        except Exception as error:  # the page's example failed: report it, whatever it is
            return f"{type(error).__name__}: {error}"
    return None


def _console(block: Block) -> str | None:
    sessions: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            sessions.append((line[2:], []))
        else:
            assert sessions, f"{block.name}: output before the first '$ ' command"
            sessions[-1][1].append(line)
    problems = []
    with tempfile.TemporaryDirectory() as place, contextlib.chdir(place):
        Path("scenarios").symlink_to(ROOT / "scenarios")
        for command, expected in sessions:
            problems += _console_command(block, command, expected)
    return "\n".join(problems) or None


def _console_command(block: Block, command: str, expected: list[str]) -> list[str]:
    argv = shlex.split(command)
    assert argv[0] == "cronlapse", f"{block.name}: only cronlapse commands can run"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv[1:])
    if status != 0 or out.getvalue().splitlines() != expected:
        return [f"$ {command} exited {status}: {out.getvalue()}{err.getvalue()}"]
    return []


def _runner(block: Block) -> Callable[[Block], str | None] | None:
    if block.marker == "fragment":
        return _fragment
    if block.language == "yaml":
        return _yaml
    if block.language == "text" and block.text.startswith("INIT"):
        return _script
    return {"python": _python, "console": _console}.get(block.language)


def verify(block: Block) -> None:
    """Run a block as its language and marker say; fail on any difference from the page."""
    if block.marker == "not-run":
        assert block.argument, f"{block.name}: say why it is not run: <!-- not-run: WHY -->"
        return
    run = _runner(block)
    assert run is not None, (
        f"{block.name}: cannot run a {block.language or 'plain'} block: mark it "
        "<!-- fragment: KEY -->, <!-- expect-error: TEXT --> or <!-- not-run: WHY -->"
    )
    error = run(block)
    if block.marker == "expect-error":
        assert error is not None, f"{block.name}: expected an error with {block.argument!r}"
        assert block.argument in error, error
    else:
        assert error is None, f"{block.name}:\n{error}"


BLOCKS = _all_blocks()


@pytest.mark.integration
@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_the_block_runs_as_the_page_shows(block: Block) -> None:
    verify(block)


def test_the_pages_have_blocks_of_every_kind() -> None:
    kinds = {(block.language, block.marker) for block in BLOCKS}
    assert {("yaml", None), ("text", None), ("python", None), ("console", None)} <= kinds


# ------------------------------------------------------------------ the test's own rules


def _one(markdown: str) -> Block:
    (block,) = blocks_of("page.md", textwrap.dedent(markdown))
    return block


def test_an_unmarked_block_that_cannot_run_fails() -> None:
    with pytest.raises(AssertionError, match="cannot run a sh block"):
        verify(_one("```sh\nmake\n```\n"))
    with pytest.raises(AssertionError, match="cannot run a plain block"):
        verify(_one("```\na diagram\n```\n"))
    with pytest.raises(AssertionError, match="say why"):
        verify(_one("<!-- not-run -->\n```sh\nmake\n```\n"))


def test_a_scenario_with_a_mismatch_or_a_refused_command_fails() -> None:
    with pytest.raises(AssertionError, match=re.escape("page.md:3: expected 1 SUCCEEDED")):
        verify(_one("```yaml\nscenario: x\nexpect: [{at: 0, counts: {SUCCEEDED: 1}}]\n```\n"))
    refused = (
        "```yaml\nscenario: x\njobs: [{id: a, at: 5}]\n"
        "timeline: [{at: 0, cancel: {job: a, scheduled: 1}}]\n```\n"
    )
    with pytest.raises(AssertionError, match="CancelOccurrence was refused: not_found"):
        verify(_one(refused))


def test_an_error_example_must_fail_with_its_error() -> None:
    verify(_one("<!-- expect-error: unknown key 'name' -->\n```yaml\nscenario: x\nname: y\n```\n"))
    with pytest.raises(AssertionError, match="expected an error"):
        verify(_one("<!-- expect-error: anything -->\n```yaml\nscenario: x\n```\n"))
    with pytest.raises(AssertionError, match="unknown key"):
        verify(_one("<!-- expect-error: other -->\n```yaml\nscenario: x\nname: y\n```\n"))


def test_a_script_must_print_its_comments() -> None:
    verify(_one("```text\nINIT 1 1   # prose\nSUBMIT a 1 1 1 0  # OK a\n```\n"))
    with pytest.raises(AssertionError, match="the page shows"):
        verify(_one("```text\nINIT 1 1\nSUBMIT a 1 1 1 0  # OK b\n```\n"))


def test_a_fragment_runs_inside_a_scenario_with_page_line_numbers() -> None:
    verify(_one("<!-- fragment: clock -->\n```yaml\ntimezone: UTC\n```\n"))
    with pytest.raises(AssertionError, match=r"page.md:3:\d+: clock.timezone"):
        verify(_one("<!-- fragment: clock -->\n```yaml\ntimezone: Mars\n```\n"))
