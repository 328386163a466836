"""One Problem type: every refusal renders as ``file:line:column: path: message``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.model.problems import Code, Problem, refusal


def test_a_problem_at_a_line_and_column_of_a_key() -> None:
    problem = Problem("fleet.yaml", 4, 22, "jobs[0].every", "expected a whole number")
    assert str(problem) == "fleet.yaml:4:22: jobs[0].every: expected a whole number"


def test_a_problem_of_the_file_as_a_whole_names_the_file_alone() -> None:
    problem = Problem("fleet.yaml", None, None, "", "cannot read: No such file or directory")
    assert str(problem) == "fleet.yaml: cannot read: No such file or directory"


def test_a_line_without_a_column_is_said_without_one() -> None:
    """An importer that knows the line but not the column (a crontab's @reboot) says so."""
    problem = Problem("team.crontab", 3, None, "", "expected 5 time fields then a command")
    assert str(problem) == "team.crontab:3: expected 5 time fields then a command"


def test_an_engine_refusal_is_its_message_and_knows_its_field() -> None:
    problem = refusal(Code.UNKNOWN_DEPENDENCY, "unknown dependency 'x'", "depends_on", "x")
    assert (problem.code, problem.path, problem.subject) == (
        Code.UNKNOWN_DEPENDENCY,
        "depends_on",
        "x",
    )
    assert (problem.source, problem.line, problem.column) == ("", None, None)
    assert problem.message == "unknown dependency 'x'"


def test_codes_are_stable_words() -> None:
    """API clients and journals keep them: lower-case words joined by hyphens, each once."""
    values = [code.value for code in Code]
    assert len(set(values)) == len(values)
    assert all(value == value.lower() and " " not in value for value in values)
    assert Code("unknown-pool") is Code.UNKNOWN_POOL


@given(
    source=st.text(min_size=1).filter(lambda s: ":" not in s),
    line=st.none() | st.integers(1, 10**6),
    column=st.integers(1, 10**4),
    path=st.sampled_from(["", "jobs[2].every", "pool"]),
    message=st.text(min_size=1),
)
def test_the_text_is_place_then_path_then_message(
    source: str, line: int | None, column: int, path: str, message: str
) -> None:
    problem = Problem(source, line, None if line is None else column, path, message)
    place = source if line is None else f"{source}:{line}:{column}"
    expected = f"{place}: {path}: {message}" if path else f"{place}: {message}"
    assert str(problem) == expected
