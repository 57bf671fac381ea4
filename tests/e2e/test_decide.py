"""Real Chromium: the Decide page renders its summary, follows the target typed, passes an
accessibility check, and its link reproduces the view in a new browser context."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import (
    assert_clean,
    chart_data,
    chart_title,
    choose,
    goto_page,
    key,
    new_context,
    open_app,
    sidebar_has,
    wait_idle,
    wait_rendered,
)

pytestmark = pytest.mark.e2e

SUMMARY = '[data-testid="stMarkdownContainer"] li'


def summary_lines(page) -> list[str]:
    return page.locator(f'[data-testid="stMain"] {SUMMARY}').all_inner_texts()


def type_target(page, text: str) -> None:
    field = page.locator(f"{key('decide_target')} input")
    field.fill(text)
    field.press("Enter")


def test_decide_page_summary_and_link_in_a_new_browser_context(page, server, browser):
    open_app(page, server.url)
    choose(page, "workload_kind", "Q3 · every 100th edge")
    sidebar_has(page, "Workload Q3")
    goto_page(page, "Decide")
    page.get_by_text("TaMM with SVT", exact=False).first.wait_for()
    assert page.get_by_text("allowed to see the data", exact=False).first.is_visible()
    type_target(page, "3")
    page.get_by_text("≤ 3 % on the queries", exact=False).wait_for()
    wait_rendered(page)
    assert_clean(page)
    lines = summary_lines(page)
    assert any("reaches a median relative error of 3 % at ε ≈" in line for line in lines), lines
    page.wait_for_function("() => location.search.includes('target=3')")
    link = page.url
    assert "/decide?" in link and "workload=Q3" in link
    traces = chart_data(page, "decide")
    heading = chart_title(page, "decide")
    # the title, then the subtitle's lines (plotly joins them with zero-width spaces)
    assert heading.startswith("Median relative error versus ε\u200btarget 3 % · "), heading

    context = new_context(browser)
    try:
        other = context.new_page()
        other.set_default_timeout(60_000)
        other.goto(link)
        other.get_by_text("≤ 3 % on the queries", exact=False).wait_for()
        wait_rendered(other)
        assert_clean(other)
        assert summary_lines(other) == lines
        assert chart_title(other, "decide") == heading
        assert chart_data(other, "decide") == traces
    finally:
        context.close()


def test_decide_page_has_no_serious_accessibility_violations(page, server):
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    open_app(page, server.url)
    goto_page(page, "Decide")
    # the default curves (Q1, 7 algorithms with ClampShells) are priced above a link's budget:
    # the page says what they cost and waits for this button, which the check covers too
    page.locator(f"{key('decide_compute')} button").click()
    page.get_by_text("TaMM with SVT", exact=False).first.wait_for()
    wait_rendered(page)
    wait_idle(page)
    results = axe_module.Axe().run(page)
    bad = [
        (v["id"], v["impact"], len(v["nodes"]))
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, bad
