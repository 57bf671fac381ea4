"""Issue 17 in a real browser: a long run stops when its tab is closed or its user goes
elsewhere, within a checkpoint — the server's CPU goes quiet, it does not run to the end — and
the settings it was started with are kept.

The run: TaMM with the recursive θ, 3 000 trials (one GreedyH strategy per trial, estimated at
36 s: accepted, but above what a link runs by itself, so the link restores it and Run starts it).
"""

from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest

from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import run_cost
from dpsum_ui import share
from tests.e2e.conftest import EXCEPTION, Server, button, goto_page, key, new_context, wait_idle
from tests.e2e.test_concurrency import cpu_s

pytestmark = pytest.mark.e2e

LONG = ExperimentConfig(trials=3000, algorithms=("tamm",), truncations=("recursive",))
PROGRESS = '[data-testid="stProgress"]'


def _start_long_run(browser, server: Server):
    """A new session opened by the link to LONG; Run pressed; the run is computing."""
    assert run_cost(LONG).seconds > 20
    context = new_context(browser)
    page = context.new_page()
    page.set_default_timeout(60_000)
    params = share.config_to_query(LONG, sample="incomes.csv", column="income")
    page.goto(f"{server.url}/?{urlencode(params)}")
    button(page, "explorer_run").wait_for()
    wait_idle(page)
    _wait_quiet(server.proc.pid)  # the server's own warm-up (dpsum_ui/warmup.py) is over
    button(page, "explorer_run").click()
    page.locator(PROGRESS).wait_for()
    busy = _cpu_rate(server.proc.pid, settle=0.0)
    assert busy > 0.2  # the server is busy with this run (CPU s per s; the machine is shared)
    return context, page, busy


def _wait_quiet(pid: int, limit: float = 90.0) -> None:
    """Until the server uses under 0.05 CPU s per s over one second: its warm-up thread builds
    RawSum's design and TaMM's public-grid strategies after the first page, which would
    otherwise be measured as the run not stopping."""
    end = time.monotonic() + limit
    while _cpu_rate(pid, settle=0.0, window=1.0) >= 0.05:
        assert time.monotonic() < end, "the server never went quiet before the run"


def _cpu_rate(pid: int, settle: float = 2.0, window: float = 4.0) -> float:
    """CPU seconds per second the server uses over ``window`` seconds, after ``settle`` seconds
    for a stop to land (a checkpoint comes every strategy, ≈ 12 ms here)."""
    time.sleep(settle)
    start = cpu_s(pid)
    time.sleep(window)
    return (cpu_s(pid) - start) / window


def test_closing_the_tab_stops_the_run(browser) -> None:
    server = Server()
    try:
        context, _, busy = _start_long_run(browser, server)
        context.close()  # the websocket goes: Streamlit asks the session's script to stop
        idle = _cpu_rate(server.proc.pid)
        assert idle < min(0.05, busy / 5), (busy, idle)  # the rest of the 36 s run never happens
    finally:
        server.stop()


def test_going_elsewhere_stops_the_run_and_keeps_the_settings(browser) -> None:
    server = Server()
    try:
        context, page, busy = _start_long_run(browser, server)
        goto_page(page, "About")  # a new script run of this session: the old one stops
        idle = _cpu_rate(server.proc.pid)
        assert idle < min(0.05, busy / 5), (busy, idle)
        goto_page(page, "Explorer")
        assert page.locator(f"{key('trials')} input").input_value() in ("3000", "3,000")
        assert page.locator(EXCEPTION).count() == 0
        assert page.locator(PROGRESS).count() == 0  # nothing restarted by itself
        context.close()
    finally:
        server.stop()
