"""Real Chromium: the answers axis as drawn, the upload asking for U, and share links of
the Compare and Single query views reproduced in a new browser context."""

from __future__ import annotations

import pytest

from dpsum_core.plots.results import ANSWER_AXIS_MARGIN
from tests.e2e.conftest import (
    assert_clean,
    button,
    chart_data,
    chart_title,
    goto_page,
    key,
    new_context,
    open_app,
    run_q3,
    set_number,
    upload_data,
    upload_payload,
    wait_idle,
    wait_rendered,
)

pytestmark = pytest.mark.e2e


def drawn_y_range(page, name: str) -> list[float]:
    """The y range plotly actually rendered for a keyed chart."""
    return page.evaluate(
        "(sel) => Array.from(document.querySelector(sel + ' .js-plotly-plot')"
        "._fullLayout.yaxis.range, Number)",
        key(f"chart_{name}"),
    )


def test_answers_axis_as_drawn_follows_the_true_answers(page, server):
    open_app(page, server.url)
    page.locator(f"{key('truncation')} button", has_text="no truncation").click()
    run_q3(page, seed=3)
    assert_clean(page)
    truth = next(t["y"] for t in chart_data(page, "explorer_answers") if t["name"] == "true answer")
    low, high = drawn_y_range(page, "explorer_answers")
    lo, hi = min(truth), max(truth)
    assert low <= lo and high >= hi
    assert high - low <= (1 + 2 * ANSWER_AXIS_MARGIN) * 1.1 * (hi - lo), (low, high, lo, hi)


def test_upload_prompts_for_u(page, server):
    open_app(page, server.url)
    goto_page(page, "Data")
    body = b"wage\n" + b"".join(f"{15 + i % 40}\n".encode() for i in range(300))
    upload_data(page, upload_payload("hourly.csv", body))
    page.get_by_text("Set U for hourly.csv").wait_for()
    page.get_by_text("fall in 1 of the 1,000 bins").wait_for()
    wait_idle(page)
    assert button(page, "domain_keep").is_visible()
    set_number(page, "domain_upper", 100)
    page.get_by_text("Set U for hourly.csv").wait_for(state="detached")
    wait_idle(page)
    assert page.get_by_text("fall in 1 of the").count() == 0
    assert_clean(page)


def heatmap(page) -> dict:
    """The Compare grid as drawn: its cells (z), row and column labels, and title."""
    return page.evaluate(
        """(sel) => { const d = document.querySelector(sel + ' .js-plotly-plot');
        const t = d._fullData[0];
        return {z: t.z.map(r => Array.from(r, Number)), x: Array.from(t.x), y: Array.from(t.y),
                title: d.querySelector('.gtitle').textContent}; }""",
        key("chart_compare_grid"),
    )


def _fresh(browser, url: str, width: int = 1280, height: int = 800):
    context = new_context(browser, width, height)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    return context, page


def test_compare_link_reproduces_the_view_in_a_new_browser_context(page, server, browser):
    open_app(page, server.url)
    run_q3(page, seed=4, trials=10)  # Q3, 10 trials, seed 4 (settings shared with Compare)
    goto_page(page, "Compare")
    button(page, "compare_run").click()
    page.locator(key("chart_compare_grid")).wait_for()
    wait_idle(page)
    page.wait_for_function("() => location.search.includes('view=heatmap')")
    link = page.url
    assert "/compare?" in link and "seed=4" in link
    wait_rendered(page)
    grid = heatmap(page)
    context, other = _fresh(browser, link)
    try:
        other.get_by_text("run once with the same seed").wait_for()
        other.locator(key("chart_compare_grid")).wait_for()
        wait_rendered(other)
        assert heatmap(other) == grid and chart_title(other, "compare_grid") == grid["title"]
        assert_clean(other)
    finally:
        context.close()


# Single query (the lesson frame: θ in the browser): tests/e2e/test_classroom.py
