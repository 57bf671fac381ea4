"""Screenshots of every page (tests/e2e/artifacts/*.png), the explorer's also for the README.

docs/explorer.png is a tracked file and a run's screenshot differs in its timings, so it is
only (re)written when it is missing or when DPSUM_UPDATE_DOCS=1 is set.
"""

from __future__ import annotations

import os
import shutil
import struct

import pytest

from tests.e2e.conftest import (
    ARTIFACTS,
    ROOT,
    assert_clean,
    button,
    choose,
    goto_page,
    key,
    new_context,
    open_app,
    run_explorer,
    set_number,
    sidebar_has,
    wait_idle,
    wait_rendered,
)

pytestmark = pytest.mark.e2e

WIDTH = 1400
DOCS_IMAGE = ROOT / "docs" / "explorer.png"
VIEW = '[data-testid="stAppViewContainer"]'  # sidebar + page


def png_size(path) -> tuple[int, int]:
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


def shoot(page, name: str):
    """Fit the viewport to the page's content, then screenshot sidebar + page."""
    wait_rendered(page)
    height = page.evaluate(
        """() => Math.ceil(document.querySelector('[data-testid="stMainBlockContainer"]')
                 .getBoundingClientRect().height) + 40"""
    )
    page.set_viewport_size({"width": WIDTH, "height": max(700, min(height, 4000))})
    page.mouse.move(WIDTH - 10, 10)  # hover nothing (no highlighted button or sidebar control)
    wait_rendered(page)  # plotly re-lays out on resize
    path = ARTIFACTS / f"{name}.png"
    page.locator(VIEW).screenshot(path=path, animations="disabled")
    w, h = png_size(path)
    assert w >= WIDTH - 20 and h >= 600, (name, w, h)
    return path


def test_screenshots_of_every_page(browser, server):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = new_context(browser, WIDTH, 900)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_app(page, server.url)
        run_explorer(page, seed=0)  # the paper's defaults: Q1, 5 algorithms, 100 trials
        assert_clean(page)
        explorer = shoot(page, "explorer")
        if not DOCS_IMAGE.exists() or os.environ.get("DPSUM_UPDATE_DOCS") == "1":
            DOCS_IMAGE.parent.mkdir(exist_ok=True)
            shutil.copyfile(explorer, DOCS_IMAGE)

        goto_page(page, "Data")  # θ of the run is marked on the histogram
        page.locator(f"{key('chart_data_histogram')} .main-svg").first.wait_for()
        assert_clean(page)
        shoot(page, "data")

        goto_page(page, "Single query")
        frame = page.frame_locator(".st-key-teach_lesson iframe")
        frame.locator("#chart .main-svg").first.wait_for()
        frame.locator("body").evaluate("async () => { await window.lessonDrawn; }")  # arranged
        assert_clean(page)
        shoot(page, "single_query")

        goto_page(page, "Compare")
        choose(page, "workload_kind", "Q3 · every 100th edge")
        sidebar_has(page, "Workload Q3")
        set_number(page, "trials", 20)
        sidebar_has(page, "20 trials")
        wait_idle(page)
        button(page, "compare_run").click()
        page.locator(f"{key('chart_compare_grid')} .main-svg").first.wait_for(timeout=120_000)
        wait_idle(page)
        assert_clean(page)
        shoot(page, "compare")

        goto_page(page, "About")
        page.locator("h1", has_text="About dpsum").wait_for()
        assert_clean(page)
        shoot(page, "about")
    finally:
        context.close()


TEACHING_IMAGES = {(1920, 1080): "single_query_1920x1080", (1280, 800): "single_query_1280x800"}


@pytest.mark.parametrize("size", list(TEACHING_IMAGES), ids=lambda s: f"{s[0]}x{s[1]}")
def test_teaching_page_screenshots_for_the_readme(browser, server, size):
    """The Single query page as a class sees it, at a projector's 1920×1080 and a laptop's
    1280×800 (what fits on the first screen: the viewport, not the whole page). The README
    shows docs/<name>.png, (re)written when missing or with DPSUM_UPDATE_DOCS=1."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    width, height = size
    context = new_context(browser, width, height)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(server.url + "/single-query")
        frame = page.frame_locator(".st-key-teach_lesson iframe")
        frame.locator("#chart .main-svg").first.wait_for()
        frame.locator("body").evaluate("async () => { await window.lessonDrawn; }")  # arranged
        wait_idle(page)
        wait_rendered(page)
        assert_clean(page)
        page.mouse.move(width - 10, height - 10)
        name = TEACHING_IMAGES[size]
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=path, animations="disabled")
        assert png_size(path) == (width, height)
        docs = ROOT / "docs" / f"{name}.png"
        if not docs.exists() or os.environ.get("DPSUM_UPDATE_DOCS") == "1":
            shutil.copyfile(path, docs)
    finally:
        context.close()
