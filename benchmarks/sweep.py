"""A 40-variant sweep of the demo fleet: one process, two processes, a two-worker Dask cluster.

The sweep varies the demo's workers (20 to 58, step 2: 20 values) and its order (fifo,
priority), each variant played to ``--until`` (a day of the demo's minute ticks by default; the
whole week with ``--until 10080``). The yardstick is what a user would do without ``sweep``: a
plain loop running ``cronlapse run`` on each variant's file (written beforehand), one process at a
time. All four run in this one invocation, one after the other, so the speedups compare like with
like; each sweep's CSV must be byte for byte the same.

Run: ``python benchmarks/sweep.py [--until TICKS] [--variants-workers 20..58/2]``. Times are
wall-clock (time.perf_counter). The machine has two cores: two processes can at best halve the
time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cronlapse.analyses.sweep.apply import set_value  # noqa: E402
from cronlapse.analyses.sweep.keys import parse_variation  # noqa: E402
from cronlapse.analyses.sweep.plan import variants  # noqa: E402
from cronlapse.cli.main import main  # noqa: E402
from engine.scenario.errors import Problems  # noqa: E402
from engine.scenario.yaml_source import parse_yaml  # noqa: E402

DEMO = ROOT / "scenarios" / "demo.yaml"


def sweep(options: list[str], *executor: str) -> tuple[float, str]:
    """Seconds for one ``cronlapse sweep``, and its CSV."""
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(["sweep", str(DEMO), *options, "--csv", "-", *executor])
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"the sweep exited {status}")
    return elapsed, out.getvalue()


def plain_loop(vary: list[str], until: int, directory: Path) -> float:
    """Seconds for ``cronlapse run --until`` on each variant's file, one after the other."""
    text = DEMO.read_text(encoding="utf-8")
    variations = [parse_variation(option) for option in vary]
    keys = {variation.key.text: variation.key for variation in variations}
    files = []
    for variant in variants(variations):
        tree = parse_yaml(text, Problems(str(DEMO)))
        for key, value in variant.settings:
            tree = set_value(tree, keys[key], value)
        path = directory / f"variant-{variant.index:03}.yaml"
        path.write_text(_yaml(tree), encoding="utf-8")
        files.append(path)
    start = time.perf_counter()
    for path in files:
        subprocess.run(
            [sys.executable, "-m", "cronlapse", "run", "--until", str(until), str(path)],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
        )
    return time.perf_counter() - start


def _yaml(node) -> str:  # type: ignore[no-untyped-def]
    """The edited tree written back as YAML (flow style, JSON-compatible scalars)."""
    import json

    from engine.scenario.yaml_source import Mapping, Sequence

    def plain(item):  # type: ignore[no-untyped-def]
        if isinstance(item, Mapping):
            return {key.text: plain(value) for key, value in item.entries}
        if isinstance(item, Sequence):
            return [plain(value) for value in item.items]
        return item.value

    return json.dumps(plain(node))


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--until", type=int, default=1440)
    parser.add_argument("--workers", default="20..58/2", help="the workers' values")
    args = parser.parse_args()
    vary = [f"workers={args.workers}", "policy.order=fifo,priority"]
    options = [arg for option in vary for arg in ("--vary", option)]
    options += ["--until", str(args.until), "--metric", "p95_wait", "--metric", "failed"]
    count = len(variants([parse_variation(option) for option in vary]))
    print(f"sweep of {count} variants of {DEMO.name}, each played to tick {args.until}")
    with tempfile.TemporaryDirectory() as directory:
        loop = plain_loop(vary, args.until, Path(directory))
    print(f"  plain loop of `cronlapse run`:   {loop:7.1f} s   (yardstick)")
    one, csv_one = sweep(options, "--processes", "1")
    print(f"  sweep, 1 process:                {one:7.1f} s   {loop / one:4.2f}x the loop")
    two, csv_two = sweep(options, "--processes", "2")
    print(f"  sweep, 2 processes:              {two:7.1f} s   {loop / two:4.2f}x the loop")
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        dask, csv_dask = sweep(options, "--cluster", cluster.scheduler_address)
    print(f"  sweep, Dask LocalCluster (2):    {dask:7.1f} s   {loop / dask:4.2f}x the loop")
    same = csv_one == csv_two == csv_dask
    print(f"  the three CSVs are identical: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main_benchmark()
