"""Seed 003's table, status by status, against a real server over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.service.conftest import (
    BACKENDS,
    FROZEN,
    TOKEN,
    MailReceiver,
    Server,
    WebhookReceiver,
    database_for,
)
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", params=BACKENDS)
def shared(tmp_path_factory, request: pytest.FixtureRequest) -> Iterator[Server]:
    """One server per backend for the tests here that only add jobs of their own (ids differ
    per test)."""
    database = database_for(request.param, request)
    server = Server(tmp_path_factory.mktemp("api"), "workers: 2\n", FROZEN, TOKEN, database)
    try:
        server.start()
        yield server
    finally:
        server.kill()


@pytest.fixture
def client(shared: Server) -> Iterator[httpx.Client]:
    with shared.client() as http:
        yield http


@pytest.fixture
def own_client(server: Server) -> Iterator[httpx.Client]:
    """A server of the test's own, for tests that look at every job."""
    with server.client() as http:
        yield http


def test_post_creates_a_job_with_a_generated_or_given_id(client: httpx.Client) -> None:
    generated = client.post("/job", json={"every": 3600, "first": "+600", "priority": "high"})
    assert generated.status_code == 201
    job_id = generated.json()["id"]
    assert job_id.startswith("job-")
    given = client.post("/job", json={"id": "nightly", "daily": "02:00"})
    assert (given.status_code, given.json()) == (201, {"id": "nightly"})
    job = client.get(f"/job/{job_id}").json()
    assert (job["id"], job["priority"], job["status"]) == (job_id, "high", "created")
    assert job["schedule"].startswith("every 3600 from ")
    assert len(job["next_runs"]) == 5


def test_a_taken_id_is_a_conflict(client: httpx.Client) -> None:
    assert client.post("/job", json={"id": "taken", "every": 60}).status_code == 201
    taken = client.post("/job", json={"id": "taken", "every": 60})
    assert taken.status_code == 409
    assert "already exists" in taken.json()["message"]


def test_an_invalid_body_is_422_with_each_fields_path_and_the_validators_message(
    client: httpx.Client,
) -> None:
    answer = client.post(
        "/job",
        json={
            "id": "refused",
            "every": "often",
            "notify": [{"on": ["nope"], "channel": "mail", "to": "x"}],
        },
    )
    assert answer.status_code == 422
    errors = {error["path"]: error["message"] for error in answer.json()["errors"]}
    assert errors["every"].startswith("expected a whole number")
    assert errors["notify[0].on[0]"].startswith("expected 'succeeded', 'failed'")
    assert "did you mean 'email'" in errors["notify[0].channel"]
    typo = client.post("/job", json={"id": "typo", "evry": 5}).json()["errors"]
    assert typo == [{"path": "evry", "message": "unknown key 'evry' (did you mean 'every'?)"}]
    assert client.get("/job/refused").status_code == 404, "a refused job is not created"


def test_bodies_that_are_not_a_json_object_or_too_deep_are_422(client: httpx.Client) -> None:
    for body in (b"not json", b"[1, 2]", b'{"id": NaN}', ("[" * 10_000 + "]" * 10_000).encode()):
        answer = client.post("/job", content=body)
        assert answer.status_code == 422, body[:20]
    deep = {"id": "deep", "payload": "x"}
    for _ in range(40):
        deep = {"nested": deep}
    assert client.post("/job", json=deep).json()["message"].startswith("the body nests deeper")


def test_a_key_given_twice_is_422_naming_it(client: httpx.Client) -> None:
    """The last value won silently; scenario files refuse a duplicate key too."""
    answer = client.post("/job", content=b'{"id": "dup", "id": "dup2", "every": 60}')
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {"path": "id", "message": "'id' is given twice: give each key once"}
    ]
    nested = b'{"id": "dup3", "notify": [{"on": ["failed"], "on": ["succeeded"]}]}'
    assert client.post("/job", content=nested).json()["errors"][0]["path"] == "on"
    assert client.get("/job/dup2").status_code == 404


def test_an_unknown_dependency_or_pool_is_422_naming_its_field(client: httpx.Client) -> None:
    """The engine refuses these once the input is journaled (a dependency may be created by an
    earlier input of the same commit), and its answer carries only a message: the 422 named no
    field. It names the key, and the item of a list, as a scenario's check does."""
    assert client.post("/job", json={"id": "upstream", "every": 3600}).status_code == 201
    for body, path, message in (
        (
            {"id": "down-1", "every": 60, "depends_on": ["upstream", "nowhere"]},
            "depends_on[1]",
            "unknown dependency 'nowhere'",
        ),
        (
            {"id": "down-2", "every": 60, "depends_on": [7]},
            "depends_on[0]",
            "unknown dependency '7'",
        ),
        (
            {"id": "down-3", "every": 60, "depends_on": "upstream,nowhere"},
            "depends_on",
            "unknown dependency 'nowhere'",
        ),
        (
            {"id": "pooled", "every": 60, "pool": "gpu"},
            "pool",
            "pool 'gpu' does not exist: the policy defines no pools",
        ),
    ):
        answer = client.post("/job", json=body)
        assert answer.status_code == 422, answer.text
        assert answer.json() == {"message": message, "errors": [{"path": path, "message": message}]}
        assert client.get(f"/job/{body['id']}").status_code == 404


def test_a_new_schedule_for_a_job_others_depend_on_is_422_naming_its_key(
    client: httpx.Client,
) -> None:
    """The engine refuses it when the input applies (the dependents are its to know), with a
    message alone: the 422 named no field. It names the schedule's key, as the readers name a
    schedule they refuse; ``first`` and ``timezone`` go with that key rather than being it.
    (The engine's other refusals of a job's fields, its limits, a run time already past and a
    field it cannot modify, are the readers' first, each with its path.)"""
    assert client.post("/job", json={"id": "up", "every": 3600}).status_code == 201
    assert client.post("/job", json={"id": "down", "depends_on": ["up"]}).status_code == 201
    message = "up keeps its schedule: down depend on it"
    for body, path in (
        ({"every": 60}, "every"),
        ({"every": 60, "first": "+60", "priority": "high"}, "every"),
        ({"cron": "0 3 * * *", "timezone": "Europe/Paris"}, "cron"),
        ({"daily": "09:00"}, "daily"),
        ({"at": "+600"}, "at"),
    ):
        answer = client.put("/job/up", json=body)
        assert answer.status_code == 422, answer.text
        assert answer.json() == {"message": message, "errors": [{"path": path, "message": message}]}
    assert client.put("/job/up", json={"priority": "high"}).status_code == 204, "not its schedule"


def test_a_numeric_id_is_answered_as_the_text_it_is_everywhere_else(
    client: httpx.Client,
) -> None:
    answer = client.post("/job", json={"id": 5, "every": 3600})
    assert (answer.status_code, answer.json()) == (201, {"id": "5"})
    assert client.get("/job/5").json()["id"] == "5"


def test_an_id_with_a_slash_is_refused_since_no_url_could_name_it(client: httpx.Client) -> None:
    """A recurring job a/b ran for ever: GET, PUT and DELETE /job/a%2Fb all answered 404."""
    answer = client.post("/job", json={"id": "a/b", "every": 3600})
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {"path": "id", "message": "'a/b' cannot be named in a URL: use no '/'"}
    ]


def test_cancel_next_says_what_it_expected(client: httpx.Client) -> None:
    assert client.post("/job", json={"id": "cn", "every": 3600}).status_code == 201
    for body, message in (
        ({"cancel_next": False}, "expected true"),
        ({"cancel_next": "yes"}, "expected true"),
        ({"cancel_next": True, "priority": "low"}, "cancel_next goes alone"),
    ):
        answer = client.put("/job/cn", json=body)
        assert answer.status_code == 422
        assert answer.json()["errors"][0]["message"].startswith(message), answer.text


def test_control_characters_in_short_forms_are_422_not_a_hang(client: httpx.Client) -> None:
    """A short form (``"a,b"`` for a list) is read as YAML would read it typed; YAML refuses
    control characters, and that refusal is the field's problem, answered at once."""
    for body in (
        {"id": "ctl-1", "every": 60, "depends_on": "\b"},
        {"id": "ctl-2", "every": 60, "depends_on": "a,\x01"},
        {"id": "ctl-3", "cron": "0 3 * * *\x07"},
    ):
        answer = client.post("/job", json=body)  # a hang would end at the client's timeout
        assert answer.status_code == 422, (body, answer.text)
        assert client.get(f"/job/{body['id']}").status_code == 404


def test_nul_anywhere_is_refused_before_it_reaches_the_database(client: httpx.Client) -> None:
    """PostgreSQL cannot store U+0000 in text or JSON: a body or a filter holding it is 422, an
    id 404, and the server answers the next request as before."""
    for body, path in (
        ({"id": "nul\x00", "every": 60}, "id"),
        ({"every": 60, "payload": "x\x00y"}, "payload"),
        ({"every": 60, "depends_on": ["a\x00"]}, "depends_on[0]"),
        ({"every": 60, "nul\x00key": 1}, "nul\x00key"),
    ):
        answer = client.post("/job", json=body)
        assert answer.status_code == 422, body
        assert answer.json()["errors"] == [
            {"path": path, "message": "text must not hold the NUL character (U+0000)"}
        ]
    assert client.get("/jobs", params={"run": "a\x00"}).status_code == 422
    for method in ("GET", "PUT", "DELETE"):
        assert client.request(method, "/job/a%00b", json={}).status_code == 404, method
    assert client.get("/job/a%00b/runs").status_code == 404
    assert client.post("/job", json={"id": "after-nul", "every": 60}).status_code == 201


HUGE = "1" + "0" * 4300
"""An integer of 4,301 digits: more than Python converts between text and int."""


def test_text_that_is_not_unicode_and_huge_integers_are_refused_at_the_edge(
    client: httpx.Client,
) -> None:
    """A lone surrogate (JSON's ``\\ud800``) is no character: no database stores it as UTF-8.
    Accepted, it created the job on SQLite but failed the answer and every page listing it, and
    on PostgreSQL it stopped the scheduler; an integer too long to convert answered 500. Each is
    422 naming the field, the job is not created, and the server goes on as before."""
    escaped_key = "\\ud800"  # the path as the answer can show it: a surrogate escaped
    for body, path, message in (
        ('{"id":"\\ud800","every":3600}', "id", "a lone surrogate (U+D800)"),
        ('{"id":"s-pay","every":60,"payload":"a\\udc00b"}', "payload", "(U+DC00)"),
        ('{"id":"s-dep","every":60,"depends_on":["\\ud83d"]}', "depends_on[0]", "(U+D83D)"),
        ('{"id":"s-key","every":60,"\\ud800":1}', escaped_key, "(U+D800)"),
        ('{"id":"s-big","every":' + HUGE + "}", "every", "at most 4300 digits"),
        ('{"id":"s-neg","every":60,"priority":-' + HUGE + "}", "priority", "4300 digits"),
        ('{"id":"s-deep","every":60,"notify":[{"on":[' + HUGE + "]}]}", "notify[0].on[0]", ""),
    ):
        headers = {"Content-Type": "application/json"}
        answer = client.post("/job", content=body.encode("ascii"), headers=headers)
        assert answer.status_code == 422, (body[:60], answer.text[:200])
        ((problem,),) = [answer.json()["errors"]]
        assert problem["path"] == path
        assert message in problem["message"]
    assert client.get("/jobs", params={"limit": 500}).status_code == 200
    created = client.post("/job", json={"id": "after-surrogates", "every": 60, "payload": "😀"})
    assert created.status_code == 201
    for job_id in ("s-pay", "s-dep", "s-key", "s-big", "s-neg", "s-deep"):
        assert client.get(f"/job/{job_id}").status_code == 404
    assert client.get("/job/after-surrogates").json()["payload"] == "😀"


def test_an_amendment_with_a_lone_surrogate_is_refused(client: httpx.Client) -> None:
    assert client.post("/job", json={"id": "amended", "every": 3600}).status_code == 201
    answer = client.put("/job/amended", content=b'{"payload":"\\udfff"}')
    assert answer.status_code == 422
    assert [problem["path"] for problem in answer.json()["errors"]] == ["payload"]
    assert client.get("/job/amended").status_code == 200


def test_an_unknown_query_parameter_is_422_naming_it(client: httpx.Client) -> None:
    """A misspelt filter was ignored: ``/jobs?prority=high`` listed every job."""
    answer = client.get("/jobs", params={"prority": "high"})
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {"path": "prority", "message": "unknown query parameter (did you mean 'priority'?)"}
    ]
    assert client.post("/job", json={"id": "q", "every": 60}).status_code == 201
    answer = client.get("/job/q/runs", params={"limit": "5", "status": "failed"})
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["path"] == "status"


def test_a_priority_filter_outside_the_engines_range_is_422(client: httpx.Client) -> None:
    for priority in ("99999999999999999999", "-2147483649", "1_000", "٣"):
        answer = client.get("/jobs", params={"priority": priority})
        assert answer.status_code == 422, priority
        assert answer.json()["errors"][0]["path"] == "priority"
    assert client.get("/jobs", params={"priority": "-2147483648"}).status_code == 200


def test_runs_past_the_year_9999_are_not_listed_and_times_there_are_refused(
    client: httpx.Client,
) -> None:
    """An interval may put a job's next run past what a date can say (schemathesis found a job
    whose listing was a 500 for everyone after it was made): such runs are left out of
    ``next_runs``, and a first run there is refused."""
    made = client.post("/job", json={"id": "far", "every": 70368744177665, "first": -674})
    assert made.status_code == 201, made.text
    assert client.get("/job/far").json()["next_runs"] == []
    assert client.get("/jobs").status_code == 200
    for body in ({"id": "at", "at": 10**14}, {"id": "first", "every": 60, "first": 10**14}):
        answer = client.post("/job", json=body)
        assert answer.status_code == 422, answer.text
        error = answer.json()["errors"][0]
        assert error["path"] in ("at", "first") and "past the year 9999" in error["message"]


FAR = 10**15
"""An interval that puts a job's next run past the year 9999."""


def _runs_past_the_year_9999(answer: httpx.Response, first: int) -> list[dict]:
    assert answer.status_code == 200, answer.text
    runs = answer.json()["runs"]
    assert [(run["tick"], run["status"]) for run in runs] == [
        (first, "succeeded"),
        (first + FAR, "cancelled"),
    ]
    assert runs[1]["scheduled"] is None, "no date names the run: its tick alone does"
    return runs


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_run_past_the_year_9999_is_cancelled_and_read_by_its_tick(make_server) -> None:
    """Cancelling a run no date can name was a 500 that left every later input a 500 (the
    structured log could not write its time) and its job unreadable after a restart: the run's
    time is null, with its tick, in the answers and in the log."""
    server: Server = make_server()
    with server.client() as client:
        assert client.post("/job", json={"id": "huge", "every": FAR}).status_code == 201
        first = client.get("/job/huge").json()["runs"][0]["tick"]
        cancelled = client.put("/job/huge", json={"cancel_next": True})
        assert cancelled.status_code == 204, cancelled.text
        runs = _runs_past_the_year_9999(client.get("/job/huge/runs"), first)
        job = client.get("/job/huge")
        assert _runs_past_the_year_9999(job, first) == runs
        assert client.post("/job", json={"id": "after", "every": 60}).status_code == 201
        assert client.put("/job/after", json={"priority": "high"}).status_code in (204, 409)
        assert client.get("/job/after").status_code == 200
        assert client.get("/jobs").status_code == 200
    logged = [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]
    (line,) = [line for line in logged if line["event"] == "run.cancelled"]
    assert (line["job"], line["scheduled"], line["scheduled_time"]) == ("huge", first + FAR, None)
    assert "Traceback" not in server.output()
    server.stop()
    server.start()
    with server.client() as client:
        assert _runs_past_the_year_9999(client.get("/job/huge/runs"), first) == runs
        assert client.get("/job/huge").json() == job.json()
    assert "Traceback" not in server.output()


def test_a_run_past_the_year_9999_is_notified_by_its_tick(
    make_server, webhooks: WebhookReceiver, mailbox: MailReceiver
) -> None:
    """Its cancellation goes out on every channel (the run's time was an OverflowError on each
    try): null in a webhook's document, its tick in the sentences and headers."""
    config = f"""\
workers: 2
channels:
  hook: {{webhook: {{url: '{webhooks.url("/hook")}'}}}}
  chat: {{slack: {{url: '{webhooks.url("/slack")}'}}}}
  mail:
    email: {{host: 127.0.0.1, port: {mailbox.port}, from: cron@example.com, to: [ops@example.com]}}
"""
    notify = [
        {"on": ["cancelled"], "channel": channel, "to": to}
        for channel, to in (("webhook", "hook"), ("slack", "chat"), ("email", "mail"))
    ]
    server: Server = make_server(config=config)
    with server.client() as client:
        body = {"id": "huge", "every": FAR, "notify": notify}
        assert client.post("/job", json=body).status_code == 201
        first = client.get("/job/huge").json()["runs"][0]["tick"]
        assert client.put("/job/huge", json={"cancel_next": True}).status_code == 204
    wait_until(
        lambda: webhooks.requests("/hook") and webhooks.requests("/slack") and mailbox.messages,
        "the three notices",
        context=server.output,
    )
    (hook,) = webhooks.requests("/hook")
    assert (hook.body["job"], hook.body["event"], hook.body["run"]) == ("huge", "cancelled", None)
    assert hook.body["time"].endswith("Z")
    (slack,) = webhooks.requests("/slack")
    assert f"its run of tick {first + FAR} (past the year 9999)" in slack.body["text"]
    (mail,) = mailbox.messages
    assert mail["X-Cronlapse-Run"] == f"tick {first + FAR} (past the year 9999)"
    assert "Traceback" not in server.output()


def test_a_body_over_one_megabyte_is_413(client: httpx.Client) -> None:
    payload = "x" * (1024 * 1024)
    answer = client.post("/job", json={"id": "big", "payload": payload})
    assert answer.status_code == 413
    assert client.get("/job/big").status_code == 404
    streamed = client.post("/job", content=iter([b"{" + b" " * (1024 * 1024) + b"}"]))
    assert streamed.status_code == 413, "a body without a declared length is bounded too"


def test_simulation_keys_and_unknown_executors_are_refused(client: httpx.Client) -> None:
    errors = client.post("/job", json={"id": "sim", "duration": 5, "run": "rm"}).json()["errors"]
    paths = {error["path"] for error in errors}
    assert paths == {"run"} or paths == {"duration"}
    assert client.post("/job", json={"id": "sim", "run": "nope"}).status_code == 422
    assert client.post("/job", json={"id": "sim", "fail": [1]}).status_code == 422


def test_get_is_404_for_an_unknown_job(client: httpx.Client) -> None:
    assert client.get("/job/missing").status_code == 404
    assert client.get("/job/missing/runs").status_code == 404


def test_put_amends_and_cancels_the_next_run(client: httpx.Client) -> None:
    client.post("/job", json={"id": "amend", "every": 3600, "first": "+100"})
    before = client.get("/job/amend").json()
    amended = client.put("/job/amend", json={"priority": "high", "every": 60, "first": "+50"})
    assert amended.status_code == 204
    after = client.get("/job/amend").json()
    assert after["priority"] == "high"
    assert after["schedule"] != before["schedule"]
    assert client.put("/job/amend", json={"cancel_next": True}).status_code == 204
    runs = client.get("/job/amend/runs").json()["runs"]
    assert [run["status"] for run in runs] == ["cancelled"]
    assert client.put("/job/missing", json={"priority": "low"}).status_code == 404
    assert client.put("/job/amend", json={"priority": "urgent"}).status_code == 422
    assert client.put("/job/amend", json={"cancel_next": True, "priority": 1}).status_code == 422
    assert client.put("/job/amend", json={}).status_code == 422
    hook = {"on": ["succeeded", "failed"], "channel": "webhook", "to": "http://127.0.0.1:9/x"}
    unconfigured = client.put("/job/amend", json={"notify": [hook]})
    assert unconfigured.status_code == 422 and "notify[0].to" in unconfigured.text
    wrong = client.put("/job/amend", json={"notify": [{**hook, "channel": "pager"}]})
    assert wrong.status_code == 422 and "notify[0].channel" in wrong.text


def test_put_keeps_the_jobs_zone_for_a_schedule_that_names_none(client: httpx.Client) -> None:
    """It took UTC: the README's nightly job moved from 02:00 Paris to 03:00 UTC."""
    body = {"id": "paris", "daily": "02:00", "timezone": "Europe/Paris"}
    assert client.post("/job", json=body).status_code == 201
    assert client.put("/job/paris", json={"daily": "03:00"}).status_code == 204
    assert client.get("/job/paris").json()["schedule"] == "cron 0 3 * * * (Europe/Paris)"


def test_put_changes_the_executor_alone(make_server) -> None:
    server: Server = make_server(config="executors:\n  other:\n    argv: [/bin/true]\n")
    with server.client() as client:
        client.post("/job", json={"id": "a", "every": 3600, "first": "+100"})
        assert client.put("/job/a", json={"run": "other"}).status_code == 204
        assert client.get("/job/a").json()["run"] == "other"
        assert client.put("/job/missing", json={"run": "other"}).status_code == 404


def test_delete_answers_204_then_404_for_an_unknown_job(client: httpx.Client) -> None:
    client.post("/job", json={"id": "gone", "every": 3600, "first": "+100"})
    assert client.delete("/job/gone").status_code == 204
    assert client.delete("/job/missing").status_code == 404
    # Seed 003: DELETE "removes the job"; its id stays taken (the journal keeps its history).
    assert client.get("/job/gone").status_code == 404
    assert client.get("/job/gone/runs").status_code == 404
    assert client.delete("/job/gone").status_code == 404
    assert "gone" not in [job["id"] for job in client.get("/jobs").json()["jobs"]]
    retired = client.post("/job", json={"id": "gone", "every": 60})
    assert retired.status_code == 409
    assert retired.json()["message"] == (
        "job 'gone' was deleted: its id stays retired, since the journal keeps its history; "
        "choose another id"
    )


def test_a_job_runs_and_its_status_and_attempts_show_it(client: httpx.Client) -> None:
    assert client.post("/job", json={"id": "now", "payload": "p"}).status_code == 201
    job = _wait_for(client, "now", "succeeded")
    (run,) = job["runs"]
    assert run["status"] == "succeeded"
    assert [a["outcome"] for a in run["attempts"]] == ["succeeded"]
    workers = client.get("/workers").json()["workers"]
    assert [w["id"] for w in workers] == ["w1", "w2"]


def test_jobs_are_listed_with_filters_and_cursor_paging(own_client: httpx.Client) -> None:
    client = own_client
    for number in range(7):
        priority = "high" if number % 2 else "low"
        client.post(
            "/job", json={"id": f"j{number}", "every": 3600, "first": "+600", "priority": priority}
        )
    seen, cursor = [], None
    while True:
        params = {"limit": 3} | ({} if cursor is None else {"cursor": cursor})
        page = client.get("/jobs", params=params).json()
        seen += [job["id"] for job in page["jobs"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == [f"j{number}" for number in range(7)]
    high = client.get("/jobs", params={"priority": "high"}).json()["jobs"]
    assert [job["id"] for job in high] == ["j1", "j3", "j5"]
    assert client.get("/jobs", params={"run": "other"}).json()["jobs"] == []
    created = client.get("/jobs", params={"status": "created"}).json()["jobs"]
    assert len(created) == 7
    for query in ({"status": "sleepy"}, {"limit": 0}, {"cursor": "x"}, {"priority": "x"}):
        assert client.get("/jobs", params=query).status_code == 422


def test_every_request_but_health_needs_the_token(shared: Server) -> None:
    server = shared
    with server.client(token=None) as anonymous, server.client(token="wrong") as wrong:
        assert anonymous.get("/health").status_code == 200
        for http in (anonymous, wrong):
            for method, path in (
                ("POST", "/job"),
                ("GET", "/job/a"),
                ("PUT", "/job/a"),
                ("DELETE", "/job/a"),
                ("GET", "/jobs"),
                ("GET", "/job/a/runs"),
                ("GET", "/workers"),
                ("GET", "/openapi.json"),
            ):
                answer = http.request(method, path, content=b"{}")
                assert answer.status_code == 401, (method, path)
                assert answer.headers["www-authenticate"] == "Bearer"


def test_unknown_routes_and_methods_answer_in_the_apis_shape_and_only_with_the_token(
    shared: Server,
) -> None:
    """They answered plain text, and 404 before 401: a caller without the token learnt which
    paths exist."""
    with shared.client(token=None) as anonymous, shared.client() as client:
        answer = anonymous.get("/nope")
        assert (answer.status_code, answer.headers["www-authenticate"]) == (401, "Bearer")
        assert anonymous.request("PATCH", "/job/a").status_code == 401
        answer = client.get("/nope")
        assert answer.status_code == 404
        assert answer.json() == {"message": "no route GET /nope", "errors": []}
        answer = client.request("PATCH", "/job/a")
        assert answer.status_code == 405
        assert answer.json()["message"] == "PATCH is not allowed on /job/a"
        assert answer.headers["allow"] == "DELETE, GET, HEAD, PUT"


def test_openapi_lists_every_endpoint(client: httpx.Client) -> None:
    document = client.get("/openapi.json").json()
    assert set(document["paths"]) == {
        "/health",
        "/job",
        "/jobs",
        "/job/{id}",
        "/job/{id}/runs",
        "/job/{id}/pause",
        "/job/{id}/resume",
        "/workers",
        "/metrics",
        "/openapi.json",
    }
    json.dumps(document)


def _wait_for(client: httpx.Client, job_id: str, status: str) -> dict:
    looks: list[dict] = []

    def reached() -> dict | None:
        looks.append(client.get(f"/job/{job_id}").json())
        return looks[-1] if looks[-1]["status"] == status else None

    return wait_until(reached, f"{job_id} to be {status}", context=lambda: looks[-1]["status"])
