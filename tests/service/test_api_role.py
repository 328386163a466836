"""``serve --role api``: stateless API processes on the inbox and the read model.

Real processes on loopback and a PostgreSQL server the suite starts: an API process answers
exactly what the active scheduler (the single process's code) answers, for writes and reads,
a write that no scheduler takes is withdrawn and refused with a 503 naming why, a job id
stays taken across API processes, and the issue's kill test: API processes, schedulers and
workers killed mid-run lose nothing and run nothing twice.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx
import pytest

from cronlapse.analyses.invariants import violations
from cronlapse.service.store import open_store
from tests.service.conftest import FROZEN, TOKEN, Server
from tests.service.role_processes import Processes
from tests.service.test_durability import _all_answers, _config, _load, _wait_for_orphans
from tests.service.test_roles import (
    LOAD,
    _check_each_run_ran_once_but_the_killed_workers,
    _replayed,
    _wait_for,
    _wait_until_done,
)
from tests.waiting import PATIENCE, wait_until

pytestmark = pytest.mark.e2e

API = ("--role", "api")
NOOP = "workers: 1\n"


def _api(group: Processes, name: str, options: tuple[str, ...] = ()) -> Server:
    directory = group.directory / name
    directory.mkdir()
    server = Server(directory, group.config, FROZEN, TOKEN, group.url, API + options)
    group.made.append(server)
    return server


def _writes(client: httpx.Client) -> list[tuple[int, str]]:
    """A sequence of writes covering every answer a write can get; each answer's status and
    body (a generated id blanked)."""
    answers = []
    requests = [
        ("POST", "/job", {"id": "nightly", "cron": "0 3 * * *", "priority": "high"}),
        ("POST", "/job", {"id": "nightly", "every": 5}),
        ("POST", "/job", {"id": "now"}),
        ("POST", "/job", {"every": "often"}),
        ("POST", "/job", {"id": "x", "run": "nope"}),
        # first run far off: a run in progress would make the DELETE below a 409, by timing
        ("POST", "/job", {"id": "late", "every": 600, "first": "+600", "payload": "n=1"}),
        ("PUT", "/job/nightly", {"priority": "low", "max_retries": 2}),
        ("PUT", "/job/nightly", {"cancel_next": True}),
        ("PUT", "/job/nightly", {"cancel_next": True, "priority": 1}),
        ("PUT", "/job/missing", {"priority": 1}),
        ("PUT", "/job/late", {"every": -1}),
        ("DELETE", "/job/late", None),
        ("DELETE", "/job/late", None),
        ("POST", "/job", {"id": "late"}),
        ("POST", "/job", {"every": 60}),
        ("POST", "/job", {"id": "child", "every": 60, "depends_on": ["nightly", "ghost"]}),
        ("POST", "/job", {"id": "pooled", "every": 60, "pool": "gpu"}),
        ("POST", "/job", {"id": "kid", "every": 60, "depends_on": ["nightly"]}),
        ("PUT", "/job/nightly", {"every": 60}),
    ]
    for method, path, body in requests:
        answer = client.request(method, path, json=body)
        text = answer.text
        if answer.status_code == 201 and "job-" in text:
            text = '{"id":"job-"}'
        answers.append((answer.status_code, text))
    return answers


def test_an_api_process_answers_as_the_scheduler_does(processes, tmp_path: Path) -> None:
    """Every GET but ``/health``'s tick: an idle scheduler's time follows the clock, and it
    writes that tick to the read model at most once a second, so an API process's trails by up
    to a second (docs/deployment.md). Compared, the two met only when a look fell between a
    write and the clock's next step: 63 s of waiting in one suite run."""
    group: Processes = processes(NOOP)
    scheduler = group.scheduler("scheduler")
    scheduler.start()
    group.worker("worker").wait_ready()
    api = _api(group, "api")
    api.start()
    with api.client() as through_api:
        answered = _writes(through_api)
    with scheduler.client() as direct:
        assert answered[0] == (201, '{"id":"nightly"}')
        looks: list[tuple[dict, dict]] = []

        def same() -> dict | None:
            with api.client() as through_api:
                looks.append((_all_answers(through_api), _all_answers(direct)))
            got, expected = looks[-1]
            trailing, ticking = got.pop("health")["tick"], expected.pop("health")["tick"]
            assert trailing <= ticking, "an API process never reads ahead of the scheduler"
            return got if got == expected else None

        context = lambda: looks[-1]  # noqa: E731
        got = wait_until(same, "the API process to answer as the scheduler", context=context)
    statuses = [status for status, _ in answered]
    wanted = (201, 409, 201, 422, 422, 201, 204, 204, 422, 404, 422, 204, 404, 409, 201, 422, 422)
    assert statuses == [*wanted, 201, 422]
    refused = [json.loads(text)["errors"] for status, text in answered[-4:] if status == 422]
    paths = [error["path"] for errors in refused for error in errors]
    assert paths == ["depends_on[1]", "pool", "every"], "the engine's refusals name their field"
    assert {job["id"] for job in got["jobs"]} >= {"nightly", "now"}
    assert "late" not in {job["id"] for job in got["jobs"]}
    assert got["each"]["now"]["runs"][0]["attempts"][0]["outcome"] == "succeeded"
    with api.client() as through_api, scheduler.client() as direct:
        for path in ("/jobs?limit=1", "/jobs?limit=1&cursor=1", "/jobs?status=created"):
            assert through_api.get(path).json() == direct.get(path).json()
        for path in ("/job/late", "/job/late/runs", "/jobs?limit=0"):
            assert through_api.get(path).status_code == direct.get(path).status_code
            assert through_api.get(path).json() == direct.get(path).json()
        assert through_api.get("/jobs", headers={"Authorization": "Bearer no"}).status_code == 401
        assert through_api.post("/job", content=b"x" * 1_100_000).status_code == 413


def test_the_same_writes_get_the_same_answers_as_the_single_process(processes, make_server) -> None:
    group: Processes = processes(NOOP)
    group.scheduler("scheduler").start()
    api = _api(group, "api")
    api.start()
    single: Server = make_server(config=NOOP)
    with api.client() as through_api, single.client() as direct:
        assert _writes(through_api) == _writes(direct)


def test_a_write_no_scheduler_takes_is_withdrawn_with_a_503(processes) -> None:
    group: Processes = processes(NOOP)
    api = _api(group, "api")
    api.start()
    with api.client() as client:
        answer = client.post("/job", json={"id": "orphan"})
        assert answer.status_code == 503
        assert "no scheduler took the command" in answer.json()["message"]
        assert "nothing was applied" in answer.json()["message"]
        scheduler = group.scheduler("scheduler")
        scheduler.start()
        assert client.get("/job/orphan").status_code == 404
        assert client.post("/job", json={"id": "orphan"}).status_code == 201
        assert client.get("/job/orphan").status_code == 200
    assert "Traceback" not in api.output()


def test_a_lone_surrogate_is_refused_by_the_api_process_and_the_scheduler_lives_on(
    processes,
) -> None:
    """It reached the inbox, and the active scheduler died journaling it, and so did every
    scheduler elected after it: refused at the edge, it reaches neither."""
    group: Processes = processes(NOOP)
    scheduler = group.scheduler("scheduler")
    scheduler.start()
    api = _api(group, "api")
    api.start()
    with api.client() as client:
        headers = {"Content-Type": "application/json"}
        body = b'{"id":"\\ud800","every":3600}'
        answer = client.post("/job", content=body, headers=headers)
        assert (answer.status_code, answer.json()["errors"][0]["path"]) == (422, "id")
        assert client.post("/job", json={"id": "after", "every": 3600}).status_code == 201
        assert client.get("/jobs").status_code == 200
    assert scheduler.healthy()


def test_a_job_id_is_taken_once_across_api_processes(processes) -> None:
    group: Processes = processes(NOOP)
    group.scheduler("scheduler").start()
    apis = [_api(group, f"api{number}") for number in range(2)]
    for api in apis:
        api.start()
    statuses: list[int] = []

    def post(server: Server) -> None:
        with server.client() as client:
            for number in range(10):
                answer = client.post("/job", json={"id": f"same-{number}", "every": 60})
                statuses.append(answer.status_code)

    threads = [threading.Thread(target=post, args=(api,)) for api in apis for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] * 10 + [409] * 30


def test_the_api_role_needs_postgresql(tmp_path: Path) -> None:
    server = Server(tmp_path, NOOP, "1", TOKEN, None, API)
    server.start(wait=False)
    assert server.process is not None
    assert server.process.wait(timeout=PATIENCE) == 2
    assert "--role api needs a postgresql:// database" in server.output()
    assert "Traceback" not in server.output()


def test_api_processes_schedulers_and_workers_killed_mid_run(processes, tmp_path: Path) -> None:
    """The issue's test: two API processes, two schedulers and three workers; 1,000 jobs
    created through both API processes (yearly ones, due after the test), then jobs posted for
    a few seconds more, recurring ones among them, while the active scheduler, then a worker,
    then an API process are SIGKILLed."""
    group: Processes = processes(_config(tmp_path))
    first, second = group.scheduler("a"), group.scheduler("b")
    first.start()
    second.start(wait=False)
    _wait_for(second, "standby")
    workers = [group.worker(f"worker{number}") for number in range(3)]
    for worker in workers:
        worker.wait_ready()
    apis = [_api(group, f"api{number}") for number in range(2)]
    for api in apis:
        api.start()
    with apis[1].client() as client:
        for number in range(3):
            body = {"id": f"every-{number}", "every": 2, "run": "record"}
            assert client.post("/job", json=body).status_code == 201
    yearly = _create_yearly(apis, YEARLY_JOBS)
    acknowledged: list[str] = []
    stop = threading.Event()
    writers = [
        threading.Thread(target=_load, args=(api, f"api{n}w{w}", acknowledged, stop))
        for n, api in enumerate(apis)
        for w in range(2)
    ]
    for writer in writers:
        writer.start()

    def more_load(what: str) -> None:
        """Until the load has had LOAD more answers: each kill comes mid-load."""
        before = len(acknowledged)
        wait_until(lambda: len(acknowledged) >= before + LOAD, what)

    more_load("the load to be under way")
    wait_until(lambda: {job[:4] for job in acknowledged} == {"api0", "api1"}, "both API processes")
    first.kill()
    second.wait_healthy()
    assert "elected scheduler" in second.output()
    more_load("the load to go on through the new scheduler")
    workers[0].kill()
    more_load("the load to go on without the killed worker")
    apis[1].kill()
    more_load("the load to go on through the other API process")
    stop.set()
    for writer in writers:
        writer.join()

    assert len(acknowledged) >= 20, "too little load to mean anything"
    assert any(job.startswith("api1") for job in acknowledged), "both API processes wrote"
    _wait_until_done(apis[0], acknowledged, killed_worker="worker0", also=yearly)
    for process in group.made:
        process.kill()
    _wait_for_orphans(tmp_path)
    _check_each_run_ran_once_but_the_killed_workers(tmp_path, acknowledged, group)
    replayed = _replayed(group.url)
    assert set(acknowledged) | set(yearly) <= set(replayed.engine.query.jobs())
    assert violations(replayed.engine) == []


YEARLY_JOBS = 1_000
YEARLY_THREADS = 8
"""Client threads per API process creating them: enough in flight that the scheduler's group
commits carry many at a time."""


def _create_yearly(apis: list[Server], count: int) -> list[str]:
    """``count`` jobs due each 1 January, posted through every API process from
    ``YEARLY_THREADS`` threads each; the ids acknowledged (all of them: nothing is killed yet)."""
    created: list[str] = []
    senders = [api for api in apis for _ in range(YEARLY_THREADS)]

    def post(api: Server, ids: range) -> None:
        with api.client() as client:
            for number in ids:
                body = {"id": f"yearly-{number}", "cron": "0 3 1 1 *", "run": "record"}
                assert client.post("/job", json=body).status_code == 201
                created.append(body["id"])

    threads = [
        threading.Thread(target=post, args=(api, range(n, count, len(senders))))
        for n, api in enumerate(senders)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(created) == count
    return created


def test_gets_come_from_the_read_db_and_writes_go_to_the_primary(processes, postgres) -> None:
    """``--read-db`` routing: another database stands in for a replica that has not caught up,
    so a GET answered from it is seen to come from there: it knows no job the primary took."""
    group: Processes = processes(NOOP)
    group.scheduler("scheduler").start()
    elsewhere = postgres.database()
    open_store(elsewhere).close()  # the schema a replica would have
    api = _api(group, "api", ("--read-db", elsewhere))
    api.start()
    plain = _api(group, "plain")
    plain.start()
    assert "reads from" in api.output()
    with api.client() as client, plain.client() as direct:
        assert client.post("/job", json={"id": "kept", "every": 60}).status_code == 201
        assert direct.get("/job/kept").status_code == 200, "the write went to the primary"
        assert client.get("/job/kept").status_code == 404, "the GET went to the read db"
        assert client.get("/jobs").json() == {"jobs": [], "next": None}
        assert client.put("/job/kept", json={"priority": 1}).status_code == 204, (
            "a write's check reads the primary"
        )


def test_read_db_is_an_option_of_the_api_role(tmp_path: Path) -> None:
    server = Server(tmp_path, NOOP, "1", TOKEN, None, ("--read-db", "sqlite:///x.db"))
    server.start(wait=False)
    assert server.process is not None
    assert server.process.wait(timeout=PATIENCE) == 2
    assert "--read-db is an option of --role api" in server.output()


def test_gets_from_a_streaming_replica(processes, postgres) -> None:
    """``--read-db`` on a real streaming replica (``pg_basebackup -R``, a hot standby on a port
    of its own): a write through the API process reaches the replica, and its GETs answer it."""
    group: Processes = processes(NOOP)
    group.scheduler("scheduler").start()
    replica = postgres.replica()
    try:
        database = group.url.rsplit("/", 1)[1]
        api = _api(group, "api", ("--read-db", replica.url(database)))
        api.start()
        plain = _api(group, "plain")
        plain.start()
        with api.client() as client, plain.client() as direct:
            assert client.post("/job", json={"id": "copied", "every": 60}).status_code == 201
            shown = lambda: client.get("/job/copied").status_code == 200  # noqa: E731
            wait_until(shown, "the replica to show the write")
            assert client.get("/jobs").json() == direct.get("/jobs").json()
    finally:
        replica.stop()
