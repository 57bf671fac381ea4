"""Deep links (/data, /compare, /about, …) must open the page inside the app's frame.

Regression test: while the page files lived in ``pages/``, the very first session of a fresh
server that arrived by a deep link got the page file run on its own by Streamlit's legacy
``pages/`` auto-discovery — no top navigation, no sidebar summary, no link restore. The pages
now live in ``app_pages/``.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import SIDEBAR, Server, new_context, wait_idle

pytestmark = pytest.mark.e2e

APP_FRAME = "∑ dpsum"  # the sidebar summary drawn by app.py


def frame(browser, url: str) -> dict:
    """Open ``url`` in a new session; what frame the page got."""
    context = new_context(browser)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(url)
        page.locator("h1").first.wait_for()
        wait_idle(page)
        return {
            "h1": page.locator("h1").first.inner_text(),
            "top_nav": page.locator('[data-testid="stTopNavLink"]').count(),
            "sidebar": page.locator(SIDEBAR).inner_text(),
        }
    finally:
        context.close()


def test_deep_link_on_a_fresh_server_opens_inside_the_app(browser):
    server = Server()
    try:
        first = frame(browser, f"{server.url}/about")  # the very first session: a deep link
    finally:
        server.stop()
    assert first["h1"] == "About dpsum"
    # (once a session has opened "/", deep links do get the frame: test_concurrency.py opens
    # nine of its ten sessions on /data and checks the sidebar summary drawn by app.py)
    assert first["top_nav"] == 7, first  # Data, Explorer, Single query, Compare, Decide, Release, About
    assert APP_FRAME in first["sidebar"], first
