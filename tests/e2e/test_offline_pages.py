"""Every page loads from the dashboard's own server alone: no request leaves for another host
(the favicon came from fonts.gstatic.com: on an offline school network it failed, online every
student's browser contacted Google)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from dpsum_ui.pages import PAGES
from tests.e2e.conftest import new_context, wait_idle

pytestmark = pytest.mark.e2e



def test_no_page_requests_another_host(browser, server):
    context = new_context(browser)
    page = context.new_page()
    page.set_default_timeout(60_000)
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url)
            if urlparse(r.url).hostname not in ("127.0.0.1", None) and not r.url.startswith("data:")
            else None)  # fmt: skip
    try:
        for p in PAGES:  # the explorer is the default page, at /
            page.goto(f"{server.url}/{p.url_path or ''}")
            wait_idle(page)
            page.wait_for_timeout(500)  # late requests: fonts, the favicon
        icon = page.evaluate("document.querySelector('link[rel~=icon]')?.href")
        assert icon and urlparse(icon).hostname in ("127.0.0.1", None), icon
        assert outside == []
    finally:
        context.close()
