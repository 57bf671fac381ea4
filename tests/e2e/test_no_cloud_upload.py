"""No chart dpsum draws offers plotly.js's "Share chart…" button (plotly.js 4 shows it by
default; one click and a confirmation upload the figure, true answers included, to Plotly's
cloud: researcher's review P1-1). Checked in Chromium on the pages themselves: the exported
HTML figure and figures page, the Single query lesson frame, and the lesson and chart HTML
downloaded from it."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from dpsum_core.plots.export import report_html, to_html
from tests.e2e.conftest import new_context
from tests.e2e.test_classroom import lesson_frame, open_single_query

pytestmark = pytest.mark.e2e

# The mode bar's buttons by title, once the figure in ``root`` is drawn.
BUTTONS = """(root) => [...root.querySelectorAll('.modebar-btn')].map(b => b.dataset.title)"""


def _buttons(locator) -> list[str]:
    locator.locator(".main-svg").first.wait_for()
    return locator.evaluate(BUTTONS)


def _no_share(titles: list[str]) -> None:
    assert "Download plot as a PNG" in titles, titles  # the mode bar was drawn and read
    assert not [t for t in titles if "share" in t.lower() or "cloud" in t.lower()], titles


def test_exported_figures_offer_no_upload(browser):
    fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[3, 1, 2]))
    context = new_context(browser)
    try:
        page = context.new_page()
        for html in (to_html(fig), report_html([("one", fig), ("two", fig)], title="t")):
            page.set_content(html, wait_until="load")
            _no_share(_buttons(page.locator("body")))
    finally:
        context.close()


def test_the_lesson_and_its_downloads_offer_no_upload(browser, server, tmp_path):
    context, page = open_single_query(browser, f"{server.url}/single-query")
    try:
        frame = lesson_frame(page)
        _no_share(_buttons(frame.locator("#chart")))
        files = []
        for kind in ("lesson", "html"):
            with page.expect_download() as info:
                frame.locator(f'#tools button[data-kind="{kind}"]').click()
            files.append(tmp_path / info.value.suggested_filename)
            info.value.save_as(files[-1])
    finally:
        context.close()
    offline = new_context(browser)
    try:
        opened = offline.new_page()
        for path, where in zip(files, ("#chart", "#dpsum-figure"), strict=True):
            opened.goto(path.as_uri())
            _no_share(_buttons(opened.locator(where)))
    finally:
        offline.close()
