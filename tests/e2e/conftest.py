"""Real-browser fixtures: a Streamlit server on a free port and Debian's Chromium via Playwright.

Without Chromium these tests skip locally; with DPSUM_REQUIRE_BROWSER=1 (set by .ci/run) a
missing browser or Playwright is a failure, so CI can never pass by skipping them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "e2e" / "artifacts"
REQUIRE = os.environ.get("DPSUM_REQUIRE_BROWSER") == "1"
CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and Path(p).exists()), None)
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--no-first-run",
    "--disable-sync",
]


def _missing(reason: str) -> None:
    if REQUIRE:
        pytest.fail(f"browser tests are required (DPSUM_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running `streamlit run app.py` process."""

    def __init__(self, env: dict[str, str] | None = None, cwd: Path = ROOT):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = ARTIFACTS / f"server-{self.port}.log"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self._log_file = self.log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
             "--server.headless", "true", "--server.address", "127.0.0.1",
             "--server.port", str(self.port), "--server.fileWatcherType", "none",
             "--browser.gatherUsageStats", "false"],
            cwd=cwd, stdout=self._log_file, stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("streamlit did not become healthy within 60 s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._log_file.close()


@pytest.fixture(scope="session")
def browser() -> Iterator:
    if CHROMIUM is None:
        _missing("Chromium is not installed (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def server(browser) -> Iterator[Server]:
    s = Server()
    yield s
    s.stop()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


def wait_idle(page, timeout: float = 30_000) -> None:
    """Wait until the app is connected and no script run is in progress."""
    page.wait_for_selector(
        '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]',
        timeout=timeout,
    )
