"""Real Chromium, issue 19: the guide switch shows one box per step, is kept across pages,
and the address bar (the share link) carries guide=1, which opens with the guide on."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import (
    SIDEBAR,
    assert_clean,
    goto_page,
    key,
    new_context,
    nudge_slider,
    open_app,
    wait_idle,
)

pytestmark = pytest.mark.e2e


def _switch(page):
    """The Guide toggle's input (a checkbox drawn as a switch)."""
    return page.locator(f"{SIDEBAR} {key('guide')} input[type=checkbox]")


def test_guide_boxes_follow_the_switch_and_the_link_carries_it(page, server, browser):
    open_app(page, server.url)
    assert page.locator(key("guide_explorer")).count() == 0  # off by default
    goto_page(page, "Decide")
    assert page.locator(key("guide_decide")).count() == 0
    assert "guide=" not in page.url
    page.locator(f"{SIDEBAR} {key('guide')} label").click()
    page.locator(key("guide_decide")).get_by_text("Step 5 · decide").wait_for()
    page.wait_for_function("() => location.search.includes('guide=1')")
    wait_idle(page)
    link = page.url
    for title, step in (("Data", "data"), ("Explorer", "explorer"), ("Release", "release")):
        goto_page(page, title)  # remembered for the session
        page.locator(key(f"guide_{step}")).wait_for()
    assert_clean(page)
    # switched off: no box
    page.locator(f"{SIDEBAR} {key('guide')} label").click()
    page.locator(key("guide_release")).wait_for(state="detached")
    # the link opens with the guide on, in a new browser context (a new session)
    context = new_context(browser)
    try:
        other = context.new_page()
        other.set_default_timeout(60_000)
        other.goto(link)
        other.locator(key("guide_decide")).get_by_text("Step 5 · decide").wait_for()
        wait_idle(other)
        assert _switch(other).is_checked()
        assert_clean(other)
    finally:
        context.close()


def test_epsilon_slider_speaks_plainly(page, server):
    open_app(page, server.url)
    ends = page.locator(f'{key("epsilon")} [data-testid="stSliderTickBar"]')
    low, high = ends.locator(":scope > *").all_inner_texts()
    assert low.endswith("more privacy") and high.endswith("more accuracy"), (low, high)
    # shown without hovering (Streamlit fades a slider's ends in only on hover or focus)
    assert ends.evaluate("e => getComputedStyle(e).opacity") == "1"
    page.get_by_text("This is the paper's setting and the default here.").wait_for()
    assert page.get_by_text("is large: one person can change the odds").count() == 0
    nudge_slider(page, "epsilon", "End")  # ε = 10
    page.get_by_text("ε = 10 is large: one person can change the odds").wait_for()
    page.get_by_text("ε = 10: very weak privacy.").wait_for()
    wait_idle(page)
    assert_clean(page)
