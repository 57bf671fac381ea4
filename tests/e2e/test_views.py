"""Real Chromium: the answers axis as drawn, the upload asking for U, and share links of
the Compare and Single query views reproduced in a new browser context."""

from __future__ import annotations

import pytest

from dpsum_core.plots.results import ANSWER_AXIS_MARGIN
from tests.e2e.conftest import (
    ARTIFACTS,
    assert_clean,
    button,
    chart_data,
    chart_title,
    goto_page,
    key,
    new_context,
    nudge_slider,
    open_app,
    run_q3,
    set_number,
    slider_value,
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


def test_single_query_link_reproduces_the_view_in_a_new_browser_context(page, server, browser):
    open_app(page, server.url)
    goto_page(page, "Single query")
    page.locator(f"{key('teach_algorithm')} button", has_text="TaMM").click()
    page.wait_for_function("() => location.search.includes('algorithm=tamm')")
    nudge_slider(page, "teach_theta", "ArrowRight")
    wait_idle(page)
    theta = slider_value(page, "teach_theta")
    page.wait_for_function(
        "(t) => decodeURIComponent(location.search).includes('theta=' + t)",
        arg=theta.replace(",", ""),
    )
    link = page.url
    wait_rendered(page)
    curves = chart_data(page, "teach_curves")
    context, other = _fresh(browser, link)
    try:
        other.locator(key("chart_teach_curves")).wait_for()
        wait_rendered(other)
        assert slider_value(other, "teach_theta") == theta
        assert chart_title(other, "teach_curves").startswith("TaMM")
        assert chart_data(other, "teach_curves") == curves
        assert_clean(other)
    finally:
        context.close()


def test_teaching_page_shows_one_theta(page, server):
    """Issue 19: the chart has no θ slider of its own; the page's θ slider moves the chart's
    marker and readout, the metrics and the sentence together (one θ on screen)."""
    open_app(page, server.url)
    goto_page(page, "Single query")
    sel = f"{key('chart_teach_curves')} .js-plotly-plot"
    page.locator(sel).wait_for()
    wait_rendered(page)
    assert page.locator(f"{sel} .slider-grip-rect").count() == 0  # no second θ control
    marker = "(sel) => document.querySelector(sel)._fullLayout.shapes[0].x0"
    readout = "(sel) => document.querySelector(sel)._fullLayout.annotations[0].text"
    rmse = page.locator('[data-testid="stMetric"]', has_text="Expected error (RMSE)")
    for _ in range(2):
        theta = slider_value(page, "teach_theta")
        assert page.evaluate(marker, sel) == pytest.approx(float(theta.replace(",", "")), rel=1e-9)
        assert f"θ = {theta}" in page.evaluate(readout, sel)
        value = rmse.locator('[data-testid="stMetricValue"]').inner_text()
        assert f"(RMSE) {value}" in page.evaluate(readout, sel)
        page.get_by_text(f"Truncating at θ = {theta} counts").wait_for()
        nudge_slider(page, "teach_theta", "ArrowRight")
        page.wait_for_function(
            "([sel, t]) => Math.abs(document.querySelector(sel)._fullLayout.shapes[0].x0 - t) > 1",
            arg=[sel, float(theta.replace(",", ""))],
        )
        wait_rendered(page)
    assert_clean(page)


def test_teaching_controls_and_numbers_are_at_least_16px(page, server):
    open_app(page, server.url)
    goto_page(page, "Single query")
    wait_rendered(page)
    sizes = page.evaluate(
        """() => [...document.querySelectorAll(
            '.st-key-teach_panel [data-testid="stWidgetLabel"] p,'
            + '.st-key-teach_panel [data-testid="stMetricLabel"] p,'
            + '.st-key-teach_panel [data-testid="stMetricValue"],'
            + '.st-key-teach_panel [data-testid="stSliderThumbValue"]')]
            .filter(e => e.offsetParent !== null)
            .map(e => [e.textContent, parseFloat(getComputedStyle(e).fontSize)])"""
    )
    assert len(sizes) >= 8, sizes  # algorithm, τ, θ, ε, … labels and the four metrics
    small = [s for s in sizes if s[1] < 16]
    assert not small, small


@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 800)])
def test_teaching_page_fits_a_projector(browser, server, width, height):
    """Slider and chart side by side above the fold; screenshots in tests/e2e/artifacts."""
    context, page = _fresh(browser, server.url, width, height)
    try:
        button(page, "explorer_run").wait_for()
        wait_idle(page)
        goto_page(page, "Single query")
        wait_rendered(page)
        page.screenshot(path=str(ARTIFACTS / f"teaching_{width}x{height}.png"))
        chart = page.locator(f"{key('chart_teach_curves')} .js-plotly-plot").bounding_box()
        theta = page.locator(key("teach_theta")).bounding_box()
        assert theta["x"] + theta["width"] <= chart["x"]  # side by side
        assert theta["y"] + theta["height"] <= height, theta  # above the fold
        assert chart["y"] < height / 3
        font = page.evaluate(
            "(sel) => document.querySelector(sel)._fullLayout.font.size",
            f"{key('chart_teach_curves')} .js-plotly-plot",
        )
        assert font >= 16
        assert_clean(page)
    finally:
        context.close()
