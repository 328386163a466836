"""What every store promises (:mod:`cronlapse.service.store`), as one suite of tests.

:class:`StoreContract` is not collected itself: ``test_store_memory.py`` runs it on the memory
store, ``test_store_sql.py`` on SQLite and on a real PostgreSQL server. Each subclass gives the
``store`` fixture (a fresh, empty store) and says whether its backend has an election and
LISTEN/NOTIFY (:attr:`StoreContract.coordinates`: SQLite has neither, its one server process needs
neither).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from typing import TypeVar

import pytest

from cronlapse.service.store import (
    ADDRESS_KEY,
    CLOCK_KEY,
    Anchor,
    Assignment,
    Channel,
    DeadLetter,
    DueChanges,
    DueNotice,
    Entry,
    Fenced,
    JobFilter,
    JobView,
    NeedsPostgresql,
    Publication,
    RunView,
    Snapshot,
    Store,
    ViewChanges,
    Why,
)
from tests.waiting import PATIENCE, wait_until

WAIT = PATIENCE
"""A generous bound on a wait for something that happens at once."""
ANY = JobFilter(None, None, None)
NOTICE = ("backup", 10, 1, "succeeded", "webhook", "ops")
T = TypeVar("T")


def run(coroutine: Coroutine[object, object, T]) -> T:
    return asyncio.run(asyncio.wait_for(coroutine, WAIT))


def entry(tick: int, verb: str = "clock", **args: object) -> Entry:
    return Entry(tick, 2, verb, dict(args))


def job(job_id: str, position: int, **fields: object) -> JobView:
    values: dict = {
        "deleted": False,
        "status": "created",
        "priority": 0,
        "run": "noop",
        "summary": json.dumps({"id": job_id}),
        "detail": json.dumps({"id": job_id, "runs": []}),
    }
    return JobView(job_id, position, **(values | fields))


def assignment(job_id: str, slot: str, attempt: int = 1) -> Assignment:
    return Assignment(job_id, 100, attempt, slot, "noop", None, "2026-12-01T00:00:00Z")


class StoreContract:
    coordinates = True
    """Whether the backend has the election, the outbox claim and wake-ups."""

    # ------------------------------------------------------------------ the journal

    def test_appended_rows_come_back_in_order_with_their_positions(self, store: Store) -> None:
        journal = store.journal
        assert journal.last_seq() == 0
        assert journal.append([entry(1, "register", worker="w1"), entry(3)]) == [1, 2]
        assert journal.append([entry(4, "schedule", id="a", every=60)]) == [3]
        assert journal.append([]) == []
        after = [(row.seq, row.tick, row.verb, row.args) for row in journal.rows_after(1)]
        assert after == [(2, 3, "clock", {}), (3, 4, "schedule", {"id": "a", "every": 60})]
        assert [row.seq for row in journal.rows_after(0, limit=2)] == [1, 2]
        assert list(journal.rows_after(3)) == []
        assert (journal.last_seq(), journal.count()) == (3, 3)

    def test_a_row_keeps_what_was_journaled_not_what_the_caller_changed(self, store: Store) -> None:
        args = {"id": "a", "notify": [{"on": ["failed"]}]}
        store.journal.append([Entry(5, 2, "schedule", args)])
        args["notify"][0]["on"].append("succeeded")
        (row,) = store.journal.rows_after(0)
        assert row.args == {"id": "a", "notify": [{"on": ["failed"]}]}

    def test_the_latest_snapshot_and_one_spare_are_kept(self, store: Store) -> None:
        journal = store.journal
        assert journal.latest_snapshot() is None and journal.latest_snapshot_seq() is None
        for seq in (1, 2, 3):
            journal.save_snapshot(seq, bytes([seq]) * 3)
        latest = journal.latest_snapshot()
        assert latest is not None and (latest.seq, latest.state) == (3, b"\x03\x03\x03")
        assert journal.latest_snapshot_seq() == 3
        assert [journal.has_snapshot(seq) for seq in (1, 2, 3)] == [False, True, True]

    def test_compaction_deletes_old_rows_behind_the_oldest_kept_snapshot(
        self, store: Store
    ) -> None:
        journal = store.journal
        journal.append([entry(tick) for tick in (10, 20, 30, 40, 50, 60)])
        assert (journal.compact(100), journal.compacted()) == (0, 0), "no snapshot: kept whole"
        journal.save_snapshot(3, b"at 3")
        journal.save_snapshot(5, b"at 5")
        assert journal.oldest_snapshot() == Snapshot(3, b"at 3")
        assert journal.compact(20) == 1, "row 1 alone is older than tick 20"
        assert journal.compact(100) == 1, "row 2; row 3, the snapshot's, stays"
        assert journal.compacted() == 2 and journal.count() == 4
        assert [row.seq for row in journal.rows_after(0)] == [3, 4, 5, 6]
        assert [row.seq for row in journal.rows_after(4, 1)] == [5]
        journal.save_snapshot(6, b"at 6")
        assert journal.compact(100) == 2 and journal.compacted() == 4
        assert journal.append([entry(70)]) == [7], "positions never go back"
        assert journal.last_seq() == 7

    def test_dead_letters_are_kept_newest_first_and_a_journal_row_once(self, store: Store) -> None:
        letters = store.dead_letters
        assert (letters.count(), letters.latest(5)) == (0, [])
        unstorable = DeadLetter(Why.UNSTORABLE, "schedule", '{"id":"\\ud800"}', "id: a surrogate")
        unapplied = DeadLetter(Why.UNAPPLIED, "modify", '{"job":"a"}', "a defect", journal_seq=7)
        letters.add([unstorable, unapplied])
        letters.add([unapplied])  # the same row failing on the next replay
        assert letters.count() == 2
        kept = letters.latest(5)
        assert [(k.why, k.verb, k.args, k.reason, k.journal_seq) for k in kept] == [
            (Why.UNAPPLIED, "modify", '{"job":"a"}', "a defect", 7),
            (Why.UNSTORABLE, "schedule", '{"id":"\\ud800"}', "id: a surrogate", None),
        ]
        assert all(letter.at > 0 for letter in kept)
        assert letters.latest(1) == kept[:1]

    def test_meta_keeps_the_last_value_of_each_key(self, store: Store) -> None:
        journal = store.journal
        assert journal.get_meta("clock") is None
        journal.set_meta("clock", "a")
        journal.set_meta("clock", "b")
        journal.set_meta("address", "http://h:1")
        assert (journal.get_meta("clock"), journal.get_meta("address")) == ("b", "http://h:1")

    def test_the_reader_reads_rows_and_what_the_service_left_in_meta(self, store: Store) -> None:
        store.journal.append([entry(1), entry(2), entry(3)])
        reader = store.reader()
        try:
            assert [row.seq for row in reader.rows_after(1, 1)] == [2]
            assert reader.last_seq() == 3
            assert reader.anchor() is None and reader.address() is None
            anchor = Anchor(10.0, 100, 2.0)
            store.journal.set_meta(CLOCK_KEY, anchor.dumps())
            store.journal.set_meta(ADDRESS_KEY, "http://127.0.0.1:9")
            assert (reader.anchor(), reader.address()) == (anchor, "http://127.0.0.1:9")
        finally:
            reader.close()

    # ------------------------------------------------------------------ the inbox

    def test_a_scheduler_takes_inbox_rows_in_order_once_and_a_successor_again(
        self, store: Store
    ) -> None:
        inbox = store.inbox
        first = inbox.write("schedule", {"id": "a"})
        second = inbox.write("delete", {"job": "a"})
        assert first < second
        taken = inbox.take(7)
        assert [(row.seq, row.verb, row.args) for row in taken] == [
            (first, "schedule", {"id": "a"}),
            (second, "delete", {"job": "a"}),
        ]
        assert inbox.take(7) == [], "its own rows are not taken twice"
        assert [row.seq for row in inbox.take(8)] == [first, second], "a successor's are"

    def test_an_answer_goes_with_the_journal_and_is_taken_once(self, store: Store) -> None:
        inbox = store.inbox
        seq = inbox.write("schedule", {"id": "a"})
        inbox.take(7)
        assert inbox.take_answer(seq) is None
        store.journal.append([entry(5, "schedule", id="a")], Publication(answers={seq: "ok"}))
        assert inbox.take_answer(seq) == "ok"
        assert inbox.take_answer(seq) is None, "the row is gone"
        assert inbox.take(7) == []

    def test_only_an_untaken_row_can_be_withdrawn(self, store: Store) -> None:
        inbox = store.inbox
        kept, withdrawn = inbox.write("schedule", {"id": "a"}), inbox.write("delete", {"job": "b"})
        assert inbox.withdraw(withdrawn)
        assert not inbox.withdraw(withdrawn), "already gone"
        assert [row.seq for row in inbox.take(7)] == [kept]
        assert not inbox.withdraw(kept), "taken: it may be applying"

    def test_answered_rows_nobody_read_are_swept_by_age(self, store: Store) -> None:
        inbox = store.inbox
        seq = inbox.write("schedule", {"id": "a"})
        inbox.take(7)
        store.journal.append([], Publication(answers={seq: "ok"}))
        inbox.take(7, sweep_after=3600.0)
        assert inbox.take_answer(seq) == "ok", "younger than an hour: kept"
        other = inbox.write("schedule", {"id": "b"})
        inbox.take(7)
        store.journal.append([], Publication(answers={other: "ok"}))
        unanswered = inbox.write("schedule", {"id": "c"})
        inbox.take(7, sweep_after=-60.0)  # older than a minute from now: every answered row
        assert inbox.take_answer(other) is None
        assert [row.seq for row in inbox.take(8)] == [unanswered], "unanswered rows stay"

    # ------------------------------------------------------------------ the read model

    def test_the_read_model_is_written_with_the_journal_and_as_of_its_last_row(
        self, store: Store
    ) -> None:
        views = store.views
        assert views.position() is None and views.job("a") is None
        changes = ViewChanges(jobs=[job("a", 0)], meta={"tick": "5"})
        store.journal.append([entry(5), entry(6)], Publication(views=changes))
        assert views.position() == 2
        assert json.loads(views.job("a") or "") == {"id": "a", "runs": []}
        assert views.meta("tick") == "5" and views.meta("workers") is None
        store.journal.append([], Publication(views=ViewChanges(meta={"tick": "6"})))
        assert (views.position(), views.meta("tick")) == (2, "6"), "no rows: the last one"

    def test_jobs_are_listed_in_submission_order_filtered_and_paged(self, store: Store) -> None:
        jobs = [
            job("a", 0, priority=1),
            job("b", 1, deleted=True),
            job("c", 2, status="running", run="backup"),
            job("d", 3, priority=1),
        ]
        store.journal.append([], Publication(views=ViewChanges(jobs=jobs)))
        views = store.views
        assert views.job("b") is None, "deleted"
        page = views.jobs(0, 2, ANY)
        assert [json.loads(item)["id"] for item in page.items] == ["a", "c"]
        assert page.next == 3
        rest = views.jobs(3, 2, ANY)
        assert ([json.loads(item)["id"] for item in rest.items], rest.next) == (["d"], None)
        assert views.jobs(0, 1, ANY).next == 1
        assert views.jobs(3, 1, ANY).next is None, "nothing after the last job"
        high = views.jobs(0, 10, JobFilter(None, 1, None))
        assert [json.loads(item)["id"] for item in high.items] == ["a", "d"]
        running = views.jobs(0, 10, JobFilter("running", None, "backup"))
        assert [json.loads(item)["id"] for item in running.items] == ["c"]

    def test_runs_are_paged_by_scheduled_tick_and_a_jobs_implicit_runs_go_with_it(
        self, store: Store
    ) -> None:
        runs = [
            RunView("a", 30, True, '{"tick": 30}'),
            RunView("a", 10, False, '{"tick": 10}'),
            RunView("a", 20, True, '{"tick": 20}'),
        ]
        changes = ViewChanges(jobs=[job("a", 0), job("b", 1, deleted=True)], runs=runs)
        store.journal.append([], Publication(views=changes))
        views = store.views
        page = views.runs("a", 0, 2)
        assert page is not None
        assert ([json.loads(item)["tick"] for item in page.items], page.next) == ([10, 20], 30)
        last = views.runs("a", 30, 2)
        assert last is not None and (last.items, last.next) == (['{"tick": 30}'], None)
        middle = views.runs("a", 11, 1)
        assert middle is not None and (middle.items, middle.next) == (['{"tick": 20}'], 30), (
            "a page starts at the first run scheduled at or after its cursor"
        )
        assert views.runs("b", 0, 10) is None and views.runs("x", 0, 10) is None
        rewritten = ViewChanges(jobs=[job("a", 0)], runs=[RunView("a", 40, True, "{}")])
        store.journal.append([], Publication(views=rewritten))
        page = views.runs("a", 0, 10)
        assert page is not None and len(page.items) == 2, "the run at 10 and the new one at 40"

    def test_a_reset_forgets_every_job_and_run_but_the_finished(self, store: Store) -> None:
        runs = [RunView("a", 10, False, "{}"), RunView("a", 5, False, '{"tick": 5}', final=True)]
        store.journal.append([], Publication(views=ViewChanges(jobs=[job("a", 0)], runs=runs)))
        store.journal.append([], Publication(views=ViewChanges(jobs=[job("b", 0)], reset=True)))
        assert store.views.job("a") is None and store.views.job("b") is not None
        assert store.views.finished("a", 0, 10) == [(5, '{"tick": 5}')], (
            "a rebuild keeps the history: the engine rebuilding it may have forgotten it"
        )

    def test_finished_runs_are_kept_paged_by_key_and_forgotten_by_age(self, store: Store) -> None:
        """The history a process writes before its snapshot lets its engine forget it: read
        whether or not the job is in the model (the single process writes no jobs), the
        retention deleting only the finished runs scheduled before its horizon."""
        live = RunView("a", 40, False, '{"tick": 40}')
        store.journal.append([], Publication(views=ViewChanges(jobs=[job("a", 0)], runs=[live])))
        views = store.views
        views.keep_finished(
            [RunView("a", t, False, f'{{"tick": {t}}}', True) for t in (30, 10, 20)]
        )
        views.keep_finished([RunView("b", 10, False, "{}", True)])
        views.keep_finished([RunView("a", 20, False, '{"tick": 20, "again": 1}', True)])
        assert views.finished("a", 0, 2) == [(10, '{"tick": 10}'), (20, '{"tick": 20, "again": 1}')]
        assert views.finished("a", 15, 5) == [
            (20, '{"tick": 20, "again": 1}'),
            (30, '{"tick": 30}'),
        ]
        assert views.finished("b", 0, 5) == [(10, "{}")], "no job row needed"
        assert views.finished_at("a", [20, 25, 40]) == {20: '{"tick": 20, "again": 1}'}, (
            "finished runs only: 25 is none, 40 is live"
        )
        assert views.latest_finished("a", 2) == [
            (20, '{"tick": 20, "again": 1}'),
            (30, '{"tick": 30}'),
        ], "the newest finished, by tick: 40 is live"
        assert views.latest_finished("a", 10) == views.finished("a", 0, 10)
        assert views.latest_finished("c", 3) == []
        assert views.forget_finished(20) == 2, "a@10 and b@10"
        assert [tick for tick, _ in views.finished("a", 0, 10)] == [20, 30]
        page = views.runs("a", 0, 10)
        assert page is not None and len(page.items) == 3, "the live run stays: 20, 30, 40"
        assert views.forget_finished(10**6) == 2
        page = views.runs("a", 0, 10)
        assert page is not None and page.items == ['{"tick": 40}'], "only finished runs go"

    # ------------------------------------------------------------------ due notices, claim

    def test_due_notices_are_written_with_the_journal(self, store: Store) -> None:
        if not self.coordinates:
            with pytest.raises(NeedsPostgresql):
                run(self._due(store))
            return
        other = ("etl", 20, 2, "failed", "slack", "#ops")
        added = [DueNotice(NOTICE, 5, 1), DueNotice(other, 6, 1)]
        store.journal.append([], Publication(due=DueChanges(added=added)))
        assert sorted(run(self._due(store)), key=lambda n: n.key) == sorted(
            added, key=lambda n: n.key
        )
        changes = DueChanges(added=[DueNotice(NOTICE, 5, 2)], removed=[other])
        store.journal.append([], Publication(due=changes))
        assert run(self._due(store)) == [DueNotice(NOTICE, 5, 2)]
        store.journal.append([], Publication(due=DueChanges(reset=True)))
        assert run(self._due(store)) == []

    async def _due(self, store: Store) -> list[DueNotice]:
        async with store.outbox.claim() as claim:
            await claim.take(0.01)
            return await claim.due()

    def test_one_session_holds_the_outbox_claim_until_it_ends(self, store: Store) -> None:
        if not self.coordinates:
            pytest.skip("SQLite has no outbox claim (the test above sees it refused)")

        async def claims() -> None:
            async with store.outbox.claim() as first:
                await first.take(0.01)
                async with store.outbox.claim() as second:
                    waiting = asyncio.ensure_future(second.take(0.01))
                    done, _ = await asyncio.wait([waiting], timeout=0.2)
                    assert not done, "the claim is held"
                    store.journal.append([entry(1)])
                    await first.woken(WAIT)
                    waiting.cancel()
            async with store.outbox.claim() as third:
                await third.take(0.01)  # the first ended: free again

        run(claims())

    # ------------------------------------------------------------------ dispatch, workers

    def test_a_worker_claims_the_attempts_of_its_slots_and_reports_their_outcomes(
        self, store: Store
    ) -> None:
        workers, dispatch = store.workers, store.dispatch
        workers.register("p1", 2)
        workers.register("p2", 1)
        mine, theirs = assignment("a", "p1/1"), assignment("b", "p2/1")
        seen = dispatch.assign({mine.key: mine, theirs.key: theirs})
        assert seen.outcomes == {}
        assert {(p.name, p.slots, p.stopping) for p in seen.processes} == {
            ("p1", 2, False),
            ("p2", 1, False),
        }
        assert all(p.heartbeat_age < WAIT for p in seen.processes)
        assert workers.exchange("p1", ["p1/1", "p1/2"], {}, stopping=False) == [mine]
        assert workers.exchange("p1", ["p1/1", "p1/2"], {}, stopping=False) == [mine]
        assert workers.exchange("p1", ["p1/1", "p1/2"], {mine.key: True}, False) == []
        assert workers.exchange("p2", ["p2/1"], {theirs.key: False}, False) == [theirs], (
            "an outcome of an attempt it has not claimed is not written"
        )
        seen = dispatch.assign({mine.key: mine, theirs.key: theirs})
        assert seen.outcomes == {mine.key: True}

    def test_an_attempt_no_longer_running_leaves_its_worker(self, store: Store) -> None:
        store.workers.register("p1", 1)
        first = assignment("a", "p1/1")
        store.dispatch.assign({first.key: first})
        assert store.workers.exchange("p1", ["p1/1"], {}, False) == [first]
        retried = assignment("a", "p1/1", attempt=2)
        assert store.dispatch.assign({retried.key: retried}).outcomes == {}
        assert store.workers.exchange("p1", ["p1/1"], {first.key: True}, False) == [retried]
        assert store.dispatch.assign({retried.key: retried}).outcomes == {}, "not its attempt"

    def test_a_stopping_worker_claims_nothing_and_hands_its_slots_back(self, store: Store) -> None:
        store.workers.register("p1", 1)
        attempt = assignment("a", "p1/1")
        store.dispatch.assign({attempt.key: attempt})
        assert store.workers.exchange("p1", ["p1/1"], {}, stopping=True) == []
        (process,) = store.dispatch.assign({attempt.key: attempt}).processes
        assert process.stopping and process.heartbeat_age < WAIT
        store.workers.hand_back("p1", {})
        (process,) = store.dispatch.assign({attempt.key: attempt}).processes
        assert process.stopping and process.heartbeat_age > 1_000_000, "its heartbeat ended"
        store.workers.register("p1", 3)
        (process,) = store.dispatch.assign({}).processes
        assert (process.slots, process.stopping) == (3, False)

    # ------------------------------------------------------------------ wake-ups, election

    def test_listeners_are_woken_by_what_they_listen_for(self, store: Store) -> None:
        async def listening() -> None:
            async with store.wakeups.listen([Channel.ANSWERS, Channel.DISPATCH]) as listener:
                if not self.coordinates:
                    assert await listener.wait(0.01) == [], "nothing wakes an SQLite listener"
                    return
                seq = store.inbox.write("schedule", {"id": "a"})
                store.journal.append([entry(1)], Publication(answers={seq: "ok"}))
                assert await listener.wait(WAIT) == [str(seq)], "not the journal's or the inbox's"
                attempt = assignment("a", "p1/1")
                store.dispatch.assign({attempt.key: attempt})
                assert await listener.wait(WAIT) == [""]

        run(listening())

    def test_one_scheduler_is_elected_and_only_it_appends(self, store: Store) -> None:
        if not self.coordinates:
            with pytest.raises(NeedsPostgresql):
                store.election()
            return
        first, second = store.election(), store.election()
        try:
            assert first.session != second.session
            assert first.try_take()
            assert not second.try_take()
            store.journal.fence_with(first)
            assert store.journal.append([entry(1)]) == [1]
            second.wait_for_journal(WAIT)  # the append woke the standby
            first.close()
            assert not first.alive()
            # The server releases a lock once it sees its session end: at once, or nearly.
            wait_until(second.try_take, "the lock released by the closed session")
            with pytest.raises(Fenced):
                store.journal.append([entry(2)])
            assert store.journal.last_seq() == 1, "nothing written"
        finally:
            second.close()

    def test_only_the_elected_scheduler_changes_the_dispatch_table(self, store: Store) -> None:
        """A scheduler whose election session was lost while its process lives (a killed
        connection) runs dispatch rounds until it notices: they must not delete the rows its
        successor assigned, nor the outcomes workers wrote in them."""
        if not self.coordinates:
            return  # no election: the one server process is the only scheduler
        first, second = store.election(), store.election()
        try:
            assert first.try_take()
            store.dispatch.fence_with(first)
            store.workers.register("p1", 1)
            ran = assignment("a", "p1/1")
            store.dispatch.assign({ran.key: ran})
            assert store.workers.exchange("p1", ["p1/1"], {}, False) == [ran]
            assert store.workers.exchange("p1", ["p1/1"], {ran.key: True}, False) == []
            first.close()
            wait_until(second.try_take, "the lock released by the closed session")
            again = assignment("a", "p1/1", attempt=2)
            with pytest.raises(Fenced):
                store.dispatch.assign({again.key: again})
            assert store.workers.exchange("p1", ["p1/1"], {}, False) == [], "nothing inserted"
            store.dispatch.fence_with(second)
            seen = store.dispatch.assign({ran.key: ran})
            assert seen.outcomes == {ran.key: True}, "the row and its outcome not deleted"
        finally:
            second.close()
