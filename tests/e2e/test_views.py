"""Real Chromium: the answers axis as drawn, the upload asking for U, and share links of
the Compare and Single query views reproduced in a new browser context."""

from __future__ import annotations

import pytest

from dpsum_core.figures import ANSWER_AXIS_MARGIN
from tests.e2e.conftest import (
    assert_clean,
    button,
    chart_data,
    goto_page,
    key,
    open_app,
    run_q3,
    set_number,
    upload_data,
    upload_payload,
    wait_idle,
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
    page.locator(f"{key('truncation')} button", has_text="None").click()
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
