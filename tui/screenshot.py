"""``python -m tui.screenshot [OUT.svg]``: the README's screenshot of the dashboard.

The demo fleet on Monday at 01:15 (tick 75), after the midnight herd: every worker busy, a queue
behind them and two occurrences waiting out a retry backoff, whose history the detail pane shows.
It is drawn headless at 160x48, once the dashboard has settled (``DashboardApp.settled``), so
the file is the same on every machine, however busy.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from cronlapse.bundled import DEMO
from tui.app import DashboardApp

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "docs" / "dashboard.svg"


async def take(out: Path, size: tuple[int, int] = (160, 48), tick: int = 75) -> Path:
    app = DashboardApp(DEMO, watch=False, blink=False)
    async with app.run_test(size=size) as pilot:
        app.dashboard.seek(tick)
        await pilot.pause()
        app.dashboard.show_pane("retries")
        while not app.settled:  # the pane takes the focus after the next refresh, and so on
            await pilot.pause()
        app.save_screenshot(filename=out.name, path=str(out.parent))
    return out


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else DEFAULT_OUT
    print(asyncio.run(take(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
