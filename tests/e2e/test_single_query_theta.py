"""Single query: θ moves in the browser (the lesson frame), so the Share link and every
download made from the page carry the θ on screen, not the θ the server drew the page at
(teacher's review P1-1: the link and the files said θ = 101,000 after θ was moved to 63,500)."""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e.conftest import key, wait_idle
from tests.e2e.test_classroom import frame_state, lesson_frame, open_single_query

pytestmark = pytest.mark.e2e

def _number(text: str) -> float:
    return float(text.replace(",", ""))


def test_share_and_downloads_carry_the_theta_moved_with_the_keyboard(browser, server,
                                                                       tmp_path):
    context, page = open_single_query(browser, f"{server.url}/single-query?algorithm=identity")
    try:
        frame = lesson_frame(page)
        start = _number(frame_state(frame)["theta"])
        for _ in range(4):
            frame.locator("#theta").press("ArrowLeft")
        shown = frame_state(frame)
        theta = _number(shown["theta"])
        page.locator(f"{key('teach_share')} button").first.click()
        share = page.frame_locator("[data-testid='stPopoverBody'] iframe")
        link = share.locator("#link").inner_text()
        page.keyboard.press("Escape")
        wait_idle(page)
        files = {}
        for kind in ("lesson", "svg", "html"):
            with page.expect_download() as info:
                frame.locator(f'#tools button[data-kind="{kind}"]').click()
            path = tmp_path / info.value.suggested_filename
            info.value.save_as(path)
            files[kind] = path
        with page.expect_download() as info:
            frame.locator('#tools button[data-kind="png"]').click()
        png = info.value.suggested_filename
        # another algorithm: the server redraws the page, θ stays, so does the link's
        page.locator(f"{key('teach_algorithm')} button", has_text="TaMM").click()
        page.wait_for_function("() => location.search.includes('algorithm=tamm')")
        wait_idle(page)
        page.wait_for_function(
            "(sel) => !!document.querySelector(sel)?.contentDocument?.getElementById('chart')"
            "?._fullLayout?.title?.text?.startsWith('TaMM')", arg=".st-key-teach_lesson iframe")
        kept = frame_state(lesson_frame(page))["theta"]
        page.locator(f"{key('teach_share')} button").first.click()
        link_tamm = page.frame_locator("[data-testid='stPopoverBody'] iframe").locator(
            "#link").inner_text()
    finally:
        context.close()
    offline = browser.new_context()
    try:  # the lesson from disk: it opens at θ, its histogram's θ line there too
        lesson_page = offline.new_page()
        lesson_page.goto(files["lesson"].as_uri())
        lesson_page.locator("#histogram .main-svg").first.wait_for()
        opened = frame_state(lesson_page.locator("html"))
        line = lesson_page.evaluate(
            "() => document.getElementById('histogram')._fullLayout.shapes[0].x0")
    finally:
        offline.close()
    assert opened["theta"] == shown["theta"] and opened["numbers"] == shown["numbers"]
    assert line == pytest.approx(theta, rel=1e-12)
    assert kept == shown["theta"]
    assert re.search(rf"[?&]theta={theta:g}(&|$)", link_tamm), link_tamm
    assert "algorithm=tamm" in link_tamm
    assert theta < start  # moved down four grid steps
    assert re.search(rf"[?&]theta={theta:g}(&|$)", link), link
    assert f"theta={start:g}" not in link
    # the lesson opens at the θ on screen
    lesson = files["lesson"].read_text(encoding="utf-8")
    payload = json.loads(re.search(
        r'<script type="application/json" id="lesson-data">(.*?)</script>', lesson, re.S)[1])
    assert payload["thetas"][payload["start"]] == pytest.approx(theta, rel=1e-12)
    assert "export" not in payload  # a file does not offer downloads of itself
    # the chart's files: the readout and the marker at the θ on screen
    readout = f"θ = {shown['theta']} · expected error"
    assert readout in files["svg"].read_text(encoding="utf-8")
    assert readout in files["html"].read_text(encoding="utf-8")
    assert "truncation threshold θ" in files["html"].read_text(encoding="utf-8")
    assert png.endswith("_error_over_theta.png"), png
