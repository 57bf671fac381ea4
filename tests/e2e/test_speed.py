"""Speed as a user feels it, in Chromium: opening the app (on a freshly started server and on a
warm one) and switching pages. Times are recorded in artifacts/timings.json and printed, not
asserted (STYLE.md); bench/browser.py reports them against the targets (≤ 4 s, ≤ 1 s)."""

from __future__ import annotations

import os
import statistics

import pytest

from tests.e2e.conftest import (
    PAGE_TITLES,
    Server,
    assert_clean,
    record_timings,
    timed_first_load,
    timed_goto_page,
)

pytestmark = pytest.mark.e2e

ROUND = ("Data", "Single query", "Compare", "About", "Explorer")


def test_first_load_and_page_switches_are_timed(browser):
    server = Server()  # its own, freshly started: the first load pays the server's start-up
    try:
        cold_context, cold = timed_first_load(browser, server.url)
        cold_context.close()
        warm_context, warm = timed_first_load(browser, server.url)
        try:
            page = warm_context.pages[0]
            # the first page draws no chart; the chart library is fetched while it is idle
            assert page.locator('[data-testid="stPlotlyChart"]').count() == 0
            page.wait_for_function(
                "() => performance.getEntriesByType('resource')"
                ".some(r => r.name.includes('/static/js/PlotlyChart.'))"
            )
            switches: dict[str, list[float]] = {title: [] for title in ROUND}
            for _ in range(2):  # the first round opens each page once, the second revisits
                for title in ROUND:
                    switches[title].append(round(timed_goto_page(page, title), 3))
                    assert page.locator("h1").first.inner_text().startswith(PAGE_TITLES[title])
                    assert_clean(page)
        finally:
            warm_context.close()
    finally:
        server.stop()
    every = [t for times in switches.values() for t in times]
    record_timings(
        first_load_s={"cold_server": round(cold, 3), "warm_server": round(warm, 3)},
        page_switch_s={
            "median": round(statistics.median(every), 3),
            "max": max(every),
            "per_page": switches,
        },
        page_timing_load_average_1m=round(os.getloadavg()[0], 2),
    )
