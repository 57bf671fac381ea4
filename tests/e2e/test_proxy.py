"""The class goes through nginx (``deploy/nginx-classroom.conf``, the README's configuration).

What the file promises a teacher, checked in Chromium through a real nginx:

- nobody gets in without the password (401 on every path, the frontend included);
- the app works through it: the WebSocket is proxied, the explorer runs and draws;
- Streamlit's frontend is served from nginx's cache: a second student's /static/ requests are
  all cache hits, so Streamlit serves those files once, not once per student (the CPU this
  saves is measured by ``bench/classroom.py --proxy``, not asserted here);
- nothing that belongs to a session is cached: only /static/ and /component/ ever are.

Without nginx these tests skip locally; with DPSUM_REQUIRE_BROWSER=1 (CI) that is a failure.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import _missing, new_context, open_app, run_explorer, wait_idle
from tests.e2e.proxy import NGINX, PASSWORD, USER, Proxy

CREDENTIALS = {"username": USER, "password": PASSWORD}
CACHED_PREFIXES = ("/static/", "/component/")


@pytest.fixture(scope="module")
def proxy(server) -> Iterator[Proxy]:
    if NGINX is None:
        _missing("nginx is not installed (apt-get install -y nginx)")
    running = Proxy(server.port)
    yield running
    running.stop()


@pytest.mark.parametrize("path", ["/", "/_stcore/health", "/static/js/index.js", "/about"])
def test_no_password_no_entry(proxy: Proxy, path: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(proxy.url + path, timeout=10)
    assert refused.value.code == 401


def test_a_class_runs_through_the_proxy_and_shares_the_frontend(browser, proxy: Proxy) -> None:
    first = new_context(browser, credentials=CREDENTIALS)
    page = first.new_page()
    page.set_default_timeout(60_000)
    open_app(page, proxy.url)  # the WebSocket goes through nginx, or the app never runs
    run_explorer(page)
    first.close()

    seen = len(proxy.log_lines())
    second = new_context(browser, credentials=CREDENTIALS)
    about = second.new_page()
    about.goto(proxy.url + "/about")
    about.get_by_role("heading").first.wait_for(timeout=60_000)
    wait_idle(about, 60_000)
    second.close()
    lines = proxy.log_lines()
    frontend = [(uri, cache) for uri, status, cache in lines[seen:]
                if uri.startswith("/static/") and status == "200"]  # fmt: skip
    assert len(frontend) >= 20, lines[seen:]  # Streamlit's frontend: dozens of files
    assert [uri for uri, cache in frontend if cache != "HIT"] == []

    cached = [uri for uri, _, cache in lines if cache != "-"]
    assert cached and all(uri.startswith(CACHED_PREFIXES) for uri in cached), cached
    session_paths = [uri for uri, _, cache in lines if uri.startswith(("/_stcore/", "/media/"))]
    assert session_paths, "the app's own requests went through the proxy"
