"""``GET /metrics``: Prometheus's text exposition format, checked line by line by a strict
reader, with values that count what the engine did."""

from __future__ import annotations

import math
import re

from cronlapse.service.codec import DELIVERY
from cronlapse.service.delivery.attach import delivery_input
from cronlapse.service.delivery.notice import due_notices
from cronlapse.service.metrics import LAG_BUCKETS, Metrics
from cronlapse.service.store.memory import MemoryStore
from tests.service.test_live import Wall, complete_running, open_live

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_HELP = re.compile(rf"# HELP ({_NAME}) \S.*\Z")
_TYPE = re.compile(rf"# TYPE ({_NAME}) (counter|gauge|histogram|summary|untyped)\Z")
_SAMPLE = re.compile(rf"({_NAME})(?:\{{(.*)\}})? (\S+)\Z")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\n"])*)"(?:,|\Z)')
_SUFFIXES = {"histogram": ("_bucket", "_sum", "_count"), "counter": ("",), "gauge": ("",)}


def parse(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The samples of an exposition, each checked against the format's rules: every line is a
    HELP, a TYPE or a sample; a family's HELP and TYPE come once, before its samples; a sample
    belongs to the family declared last; labels are well quoted; values are numbers; a counter
    ends in _total; a histogram's buckets grow with ``le`` and end at +Inf, equal to _count."""
    assert text.endswith("\n")
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    declared: dict[str, str] = {}
    family = kind = None
    for line in text.splitlines():
        if match := _HELP.match(line):
            assert match.group(1) not in declared, line
            family = match.group(1)
        elif match := _TYPE.match(line):
            assert match.group(1) == family and family not in declared, line
            kind = declared[family] = match.group(2)
            if kind == "counter":
                assert family.endswith("_total"), line
        else:
            match = _SAMPLE.match(line)
            assert match is not None and family is not None and kind is not None, line
            name, labels, value = match.groups()
            assert any(name == family + suffix for suffix in _SUFFIXES[kind]), line
            pairs = tuple(_LABEL.findall(labels)) if labels else ()
            if labels:
                assert ",".join(f'{k}="{v}"' for k, v in pairs) == labels, line
            number = float(value)
            assert not math.isnan(number) and (kind == "gauge" or number >= 0), line
            key = (name, pairs)
            assert key not in samples, line
            samples[key] = number
    for name, kind in declared.items():
        if kind == "histogram":
            buckets = [
                (labels, n) for (sample, labels), n in samples.items() if sample == name + "_bucket"
            ]
            bounds = [float(dict(labels)["le"]) for labels, _ in buckets]
            counts = [n for _, n in buckets]
            assert bounds == sorted(bounds) and bounds[-1] == math.inf
            assert counts == sorted(counts)
            assert counts[-1] == samples[(name + "_count", ())]
    return samples


def test_the_strict_reader_refuses_what_prometheus_would() -> None:
    good = "# HELP x_total X.\n# TYPE x_total counter\nx_total 1\n"
    assert parse(good) == {("x_total", ()): 1.0}
    for bad in (
        good.replace("x_total 1", "x_total one"),
        good.replace("x_total 1", 'x_total{a="b} 1'),
        good.replace("# TYPE x_total counter\n", ""),
        good.replace("x_total counter", "x counter").replace("HELP x_total", "HELP x"),
        good.replace("x_total 1", "y_total 1"),
        good + good,
    ):
        try:
            parse(bad)
        except (AssertionError, ValueError):
            continue
        raise AssertionError(f"accepted: {bad!r}")


def test_metrics_count_what_the_engine_did() -> None:
    wall = Wall()
    store = MemoryStore()
    live = open_live(store, wall, workers=1)
    metrics = Metrics()
    live.on_events.append(metrics)
    notify = [{"on": ["succeeded"], "channel": "webhook", "to": "hook"}]
    live.submit("schedule", {"id": "ok", "notify": notify})
    live.submit("schedule", {"id": "late", "max_retries": 1})  # waits for the one worker
    live.submit("schedule", {"id": "gone", "at": "+3600"})
    live.submit("cancel", {"job": "gone"})
    samples = parse(metrics.text(live.engine))
    assert samples[("cronlapse_queue_depth", ())] == 1
    assert samples[("cronlapse_running", ())] == 1
    assert samples[("cronlapse_workers", (("state", "busy"),))] == 1
    assert samples[("cronlapse_runs_total", (("outcome", "cancelled"),))] == 1

    wall.now += 7
    live.advance_clock()
    complete_running(live)  # ok succeeds; late starts, 7 s late
    complete_running(live, ok=False)  # late fails; a retry
    samples = parse(metrics.text(live.engine))
    assert samples[("cronlapse_runs_total", (("outcome", "succeeded"),))] == 1
    assert samples[("cronlapse_attempts_total", (("outcome", "failed"),))] == 1
    assert samples[("cronlapse_retries_total", ())] == 1
    assert samples[("cronlapse_retry_pending", ())] == 1
    assert samples[("cronlapse_queue_depth", ())] == 0
    delivered = (("channel", "webhook"), ("outcome", "delivered"))
    assert samples.get(("cronlapse_notifications_total", delivered), 0) == 0  # not reported yet
    for notice in due_notices(live).values():
        assert live.submit(DELIVERY, delivery_input(notice, True)).accepted
    samples = parse(metrics.text(live.engine))
    assert samples[("cronlapse_notifications_total", delivered)] == 1
    assert samples[("cronlapse_dispatch_lag_seconds_count", ())] == 2
    assert samples[("cronlapse_dispatch_lag_seconds_sum", ())] == 7
    assert samples[("cronlapse_dispatch_lag_seconds_bucket", (("le", "5"),))] == 1
    assert samples[("cronlapse_dispatch_lag_seconds_bucket", (("le", "15"),))] == 2
    assert len(LAG_BUCKETS) + 1 == sum(
        1 for name, _ in samples if name == "cronlapse_dispatch_lag_seconds_bucket"
    )
