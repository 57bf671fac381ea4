"""Decide → Release in a real browser (researcher's review P2-3): the button opens the Release
page (the URL follows), which spends exactly Decide's ε; the sidebar names the release's own
settings (statistician's review P3-7)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import (
    ARTIFACTS,
    SIDEBAR,
    assert_clean,
    button,
    choose,
    goto_page,
    key,
    open_app,
    sidebar_has,
    wait_idle,
)

pytestmark = pytest.mark.e2e


def test_decides_epsilon_opens_the_release_page_and_is_spent_there(page, server):
    open_app(page, server.url)
    choose(page, "workload_kind", "Q3")
    sidebar_has(page, "Workload Q3")
    wait_idle(page)
    goto_page(page, "Decide")
    go = button(page, "decide_to_release")
    go.wait_for(timeout=120_000)
    wait_idle(page)
    label = go.inner_text()
    epsilon = re.search(r"Use ε = ([\d.]+) on the Release page", label)
    assert epsilon, label
    page.locator(key("decide_to_release")).screenshot(path=str(ARTIFACTS / "decide_use_epsilon.png"))
    go.click()
    page.locator("h1", has_text="Release").wait_for()
    page.get_by_text("Expected error").first.wait_for()
    wait_idle(page)
    assert_clean(page)
    assert page.url.rstrip("/").endswith("/release")
    assert page.get_by_text(f"ε = {epsilon.group(1)} is the one Decide gave").count() == 1
    sidebar = page.locator(SIDEBAR).inner_text()
    assert "Release settings" in sidebar and "trials" not in sidebar and "seed" not in sidebar
    page.screenshot(path=str(ARTIFACTS / "release_from_decide_1280.png"))
    confirm = page.locator(key("release_confirm")).inner_text()
    assert f"spends ε = {epsilon.group(1)} of this dataset's budget" in confirm
