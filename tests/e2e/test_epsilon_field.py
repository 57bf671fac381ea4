"""In a real browser: ε is typed in the field under the slider and both stay one setting
(economist's review P2-1: ε = 0.3 could not be chosen; the Release page sent the user to the
explorer to lower ε)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import (
    ERROR,
    assert_clean,
    goto_page,
    key,
    nudge_slider,
    open_app,
    set_number,
    sidebar_has,
    slider_value,
    wait_idle,
)

pytestmark = pytest.mark.e2e


def field_value(page) -> str:
    return page.locator(f"{key('epsilon_typed')} input").input_value()


def test_a_typed_epsilon_moves_the_slider_and_the_slider_moves_the_field(page, server):
    open_app(page, server.url)
    assert field_value(page) == "0.01"  # the default ε, as the slider shows it
    set_number(page, "epsilon_typed", 0.37)
    sidebar_has(page, "ε = 0.37")
    wait_idle(page)
    assert slider_value(page, "epsilon") == "0.37"  # a stop of its own
    assert field_value(page) == "0.37"
    nudge_slider(page, "epsilon")  # 0.37 → 0.5, the next stop
    sidebar_has(page, "ε = 0.5")
    wait_idle(page)
    assert field_value(page) == "0.5"
    nudge_slider(page, "epsilon", "ArrowLeft")  # to 0.3, a stop now (0.37 one no more)
    sidebar_has(page, "ε = 0.3 ")
    wait_idle(page)
    assert field_value(page) == "0.3"
    # the setting is shared: Compare shows the same ε in both
    goto_page(page, "Compare")
    assert slider_value(page, "epsilon") == "0.3" and field_value(page) == "0.3"
    assert_clean(page)


def test_text_typed_in_the_field_keeps_epsilon_and_says_so(page, server):
    """Review9 P2-3: text typed over ε (the field ends up empty) and Enter set ε = 0.0001 on
    every page, silently; now ε is kept and a message says why."""
    open_app(page, server.url)
    set_number(page, "epsilon_typed", 0.37)
    sidebar_has(page, "ε = 0.37")
    wait_idle(page)
    field = page.locator(f"{key('epsilon_typed')} input")
    field.press("Control+a")
    field.press_sequentially("abc")  # the reviewer's keystrokes
    field.press("Enter")
    page.locator(ERROR, has_text="ε must be a number from 0.0001 to 100").wait_for()
    wait_idle(page)
    said = page.locator(ERROR).inner_text()
    assert "'abc' is not a number" in said and "ε stays 0.37" in said
    assert field_value(page) == "0.37" and slider_value(page, "epsilon") == "0.37"
    sidebar_has(page, "ε = 0.37")
    goto_page(page, "Release")  # the setting every page uses
    sidebar_has(page, "ε = 0.37")
    assert page.locator(ERROR, has_text="ε must be a number").count() == 0  # said once


def test_a_decimal_comma_keeps_epsilon_and_says_use_a_point(page, server):
    """Review10 P1-1: the browser's number field dropped the comma of "0,2" (the box showed
    "02") and Enter set ε = 2, ten times the ε meant, silently. Typed in the field as the
    reviewer did, it now keeps ε and says to use a decimal point."""
    open_app(page, server.url)
    set_number(page, "epsilon_typed", 0.37)
    sidebar_has(page, "ε = 0.37")
    wait_idle(page)
    field = page.locator(f"{key('epsilon_typed')} input")
    field.press("Control+a")
    field.press_sequentially("0,2")
    assert field_value(page) == "0,2"  # the comma is in the box, as typed
    field.press("Enter")
    page.locator(ERROR, has_text="use a decimal point: 0.2").wait_for()
    wait_idle(page)
    assert "ε stays 0.37" in page.locator(ERROR).inner_text()
    assert field_value(page) == "0.37" and slider_value(page, "epsilon") == "0.37"
    sidebar_has(page, "ε = 0.37")
    assert page.get_by_text("ε = 2:").count() == 0  # never "ε = 2: weak privacy"
    set_number(page, "epsilon_typed", 0.2)  # with a point it is read
    sidebar_has(page, "ε = 0.2")
    wait_idle(page)
    assert slider_value(page, "epsilon") == "0.2"
    assert page.locator(ERROR).count() == 0
