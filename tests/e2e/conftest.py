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
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "e2e" / "artifacts"
AUDIT_HOOK_DIR = ROOT / "tests" / "e2e" / "audit"  # sitecustomize.py: logs files opened for writing
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc: subprocess.Popen, timeout: float) -> None:
    """Terminate ``proc`` if it still runs; kill it after ``timeout`` seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()


class Server:
    """A running `streamlit run app.py` process (``app``: this checkout's, or another's for
    bench/first_views.py; Streamlit puts the script's folder first on sys.path, so that
    checkout's own packages are imported)."""

    def __init__(
        self, env: dict[str, str] | None = None, cwd: Path = ROOT, app: Path = ROOT / "app.py"
    ):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = ARTIFACTS / f"server-{self.port}.log"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self._log_file = self.log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(app),
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
        stop_process(self.proc, timeout=15)
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


def new_context(browser, width: int = 1280, height: int = 800,
                credentials: dict[str, str] | None = None):
    """A fresh browser context (a new user: own cookies, storage and Streamlit session);
    ``credentials`` (``username``, ``password``) answer a proxy's HTTP authentication.

    Reduced motion: Streamlit's loading skeletons and status animations are otherwise drawn
    in software at full frame rate (--disable-gpu), which roughly doubles the time to open a
    page on two cores and multiplies with every session open at once.
    """
    return browser.new_context(
        viewport={"width": width, "height": height},
        accept_downloads=True,
        reduced_motion="reduce",
        http_credentials=credentials,
    )


@pytest.fixture
def page(browser, server):
    context = new_context(browser)
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


# --------------------------------------------------------------------------------------------
# Page helpers: act, then wait for the expected output, then for idle (never sleep)
# --------------------------------------------------------------------------------------------
IDLE = (
    '[data-testid="stApp"][data-test-connection-state="CONNECTED"]'
    '[data-test-script-state="notRunning"]'
)
SIDEBAR = '[data-testid="stSidebar"]'
EXCEPTION = '[data-testid="stException"]'
ERROR = '[data-testid="stAlertContentError"]'
PAGE_TITLES = {
    "Data": "Data",
    "Explorer": "Workload explorer",
    "Single query": "Single query",
    "Compare": "Compare",
    "Decide": "Decide",
    "Release": "Release",
    "About": "About dpsum",
}


def key(name: str) -> str:
    """CSS selector of the element container of a widget / chart key."""
    return f".st-key-{name}"


def button(page, name: str):
    """The button of a keyed st.button / download_button (Chromium: the first of two copies)."""
    return page.locator(f"{key(name)} button").first


def open_app(page, url: str) -> None:
    """Open the app (default page: the explorer) and wait for its first run to finish."""
    page.goto(url)
    button(page, "explorer_run").wait_for()
    wait_idle(page)


def sidebar_has(page, text: str, timeout: float = 30_000) -> None:
    """Wait until the sidebar summary contains ``text`` (it mirrors every setting)."""
    page.locator(SIDEBAR).filter(has_text=text).wait_for(timeout=timeout)


def goto_page(page, title: str) -> None:
    """Switch page with the top navigation (same session), wait for the page's title."""
    page.locator('[data-testid="stTopNavLink"]', has_text=title).click()
    page.locator("h1", has_text=PAGE_TITLES[title]).wait_for()
    wait_idle(page)


def choose(page, name: str, option: str) -> None:
    """Pick an option of a keyed selectbox (a combobox in Streamlit ≥ 1.6x)."""
    page.locator(f"{key(name)} input").click()
    page.get_by_role("option", name=option).click()


def set_number(page, name: str, value: float | int) -> None:
    """Type into a keyed number_input and commit with Enter."""
    field = page.locator(f"{key(name)} input")
    field.fill(str(value))
    field.press("Enter")


def release_now(page, total: float) -> None:
    """On the Release page, with the explorer's settings: set the dataset's total ε, tick the
    unit of privacy and the confirmation, and press Release (the caller waits for its text)."""
    goto_page(page, "Release")
    page.get_by_text("Expected error").first.wait_for()
    set_number(page, "release_total", total)
    wait_idle(page)
    page.locator(f"{key('release_unit_confirm')} label").click()
    wait_idle(page)
    page.locator(f"{key('release_confirm')} label").click()
    wait_idle(page)
    button(page, "release_go").click()


def upload_data(page, file) -> None:
    """Data page, first upload of a session: choose "an uploaded file", wait for the app to
    ask for one, then upload ``file`` (a path or a Playwright payload dict)."""
    page.locator(f"{key('data_source')} label", has_text="an uploaded file").click()
    page.get_by_text("No file uploaded yet").wait_for()
    wait_idle(page)
    page.locator(f"{key('data_upload')} input[type=file]").set_input_files(file)


def answers_title(seed: int | None = None) -> str:
    """JS predicate: the answers chart is drawn (title in the SVG), optionally for ``seed``."""
    want = f"seed {seed}<" if seed is not None else ""
    return (
        "() => { const d = document.querySelector('.st-key-chart_explorer_answers .js-plotly-plot');"
        " return !!(d && d.querySelector('.main-svg .gtitle') && d.layout && d.layout.title"
        f" && (d.layout.title.text + '<').includes({want!r})); }}"
    )


def run_explorer(page, seed: int | None = None, timeout: float = 120_000) -> None:
    """Press Run and wait for the answers figure (of ``seed``), then for idle."""
    button(page, "explorer_run").click()
    page.wait_for_function(answers_title(seed), timeout=timeout)
    wait_idle(page, timeout)


def chart_data(page, name: str) -> list[dict]:
    """Traces of a keyed plotly chart as drawn: name and x/y as plain number lists."""
    return page.evaluate(
        """(sel) => { const d = document.querySelector(sel + ' .js-plotly-plot');
        if (!d || !d._fullData) return null;
        const arr = (v) => v == null ? null : Array.from(v, Number);
        return d._fullData.map(t => ({name: t.name, type: t.type, x: arr(t.x), y: arr(t.y)})); }""",
        key(f"chart_{name}"),
    )


def chart_title(page, name: str) -> str:
    """The SVG title text of a keyed plotly chart."""
    return page.locator(f"{key(f'chart_{name}')} .gtitle").first.text_content() or ""


def wait_rendered(page, timeout: float = 30_000) -> None:
    """Idle, no lazy-loading skeleton left and every plotly chart drawn (for screenshots)."""
    wait_idle(page, timeout)
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stMain"] [data-testid="stSkeleton"]')
        && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
             .every(c => c.querySelector('.js-plotly-plot .main-svg'))""",
        timeout=timeout,
    )


def overlapping(boxes: dict[str, dict], pairs) -> list[tuple[str, str]]:
    """The ``pairs`` of named boxes (``left``, ``right``, ``top``, ``bottom`` in px) that
    overlap by more than a pixel both ways; names absent from ``boxes`` are skipped."""

    def meet(a: dict, b: dict) -> bool:
        return (min(a["right"], b["right"]) - max(a["left"], b["left"]) > 1
                and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 1)

    return [(a, b) for a, b in pairs if a in boxes and b in boxes and meet(boxes[a], boxes[b])]


# Boxes of a keyed plotly chart's parts as drawn: the figure, its title, legend, plot areas
# and the tick labels of every x axis ('x tick <axis> <k>: <text>').
_CHART_PARTS = """(sel) => {
  const c = document.querySelector(sel + ' .js-plotly-plot');
  const rect = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const parts = [['figure', c.querySelector('.main-svg')], ['title', c.querySelector('.gtitle')],
    ['legend', c.querySelector('.legend')], ['x title', c.querySelector('.g-xtitle text')],
    ...[...c.querySelectorAll('.draglayer .nsewdrag')].map((e, k) => ['plot ' + k, e]),
    ...[...c.querySelectorAll('g[class$="tick"] text')]
       .filter(e => /^x\\d*tick$/.test(e.parentNode.getAttribute('class')))
       .map((e, k) => ['x tick ' + e.parentNode.getAttribute('class').slice(0, -4) + ' ' + k
                       + ': ' + e.textContent, e])];
  return Object.fromEntries(parts.filter(([, e]) => e).map(([n, e]) => [n, rect(e)]));
}"""


def chart_parts(page, name: str) -> dict[str, dict]:
    """Boxes (px) of a keyed plotly chart's figure, title, legend, x axis title, plot areas
    (``plot k``) and x tick labels (``x tick <axis> k: <text>``), for :func:`overlapping`."""
    return page.evaluate(_CHART_PARTS, key(f"chart_{name}"))


def tick_pairs(boxes: dict[str, dict]) -> list[tuple[str, str]]:
    """Every two tick labels of the same x axis (for :func:`overlapping`)."""
    ticks = [n for n in boxes if n.startswith("x tick ")]
    return [(a, b) for i, a in enumerate(ticks) for b in ticks[i + 1:]
            if a.split()[2] == b.split()[2]]  # fmt: skip


# Each line of text of the elements matching a selector, probed at its left end, middle and
# right end with document.elementFromPoint, every element made hit-testable (text not rendered,
# e.g. in a closed <details>, is skipped): a line is hidden when a probe falls outside the
# window or hits an element that is not the text's own box (something drawn over it).
_HIDDEN_TEXT = """(root, sel) => {
  const doc = root.ownerDocument, win = doc.defaultView, out = [];
  const every = doc.createElement('style');  // hit-test whatever is painted (plotly's svg
  every.textContent = '* { pointer-events: auto !important; }';  // is pointer-events: none)
  doc.head.append(every);
  for (const box of root.querySelectorAll(sel)) {
    const walk = doc.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (!node.textContent.trim() || !node.parentElement.checkVisibility()) continue;
      const range = doc.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        if (r.width < 1 || r.height < 1) continue;
        const y = r.top + r.height / 2;
        for (const x of [r.left + 1, r.left + r.width / 2, r.right - 1]) {
          const hit = x >= 0 && y >= 0 && x < win.innerWidth && y < win.innerHeight
            ? doc.elementFromPoint(x, y) : null;
          if (!hit || !box.contains(hit)) {
            out.push([node.textContent.trim().slice(0, 60), Math.round(x), Math.round(y),
                      hit ? hit.tagName + '.' + (hit.getAttribute('class') || '') : 'outside']);
            break;
          }
        }
      }
    }
  }
  every.remove();
  return out;
}"""


def hidden_text(root, selector: str) -> list[list]:
    """Lines of text inside the elements matching ``selector`` (under the locator ``root``)
    that something covers or the window cuts: [text, x, y, what is there instead]."""
    return root.evaluate(_HIDDEN_TEXT, selector)


def assert_clean(page) -> None:
    """No exception element and no st.error on the page."""
    exc = page.locator(EXCEPTION)
    assert exc.count() == 0, exc.all_inner_texts()
    err = page.locator(ERROR)
    assert err.count() == 0, err.all_inner_texts()


def nudge_slider(page, name: str, keys: str = "ArrowRight") -> None:
    """Move a keyed (select_)slider by key presses on its hidden range input."""
    field = page.locator(f"{key(name)} input[type=range]").first
    field.focus()
    field.press(keys)


def slider_value(page, name: str) -> str:
    """The value shown on a keyed slider's thumb."""
    return page.locator(f'{key(name)} [data-testid="stSliderThumbValue"]').first.inner_text()


def run_q3(page, seed: int = 0, trials: int = 20) -> None:
    """On the explorer: workload Q3 (10 queries), few trials, ``seed``, Run; wait for the
    figure of that seed (use a new seed when a figure of the same seed may be on screen)."""
    choose(page, "workload_kind", "Q3 · every 100th edge")
    sidebar_has(page, "Workload Q3")
    set_number(page, "trials", trials)
    sidebar_has(page, f"{trials} trials")
    if page.locator(f"{key('seed')} input").input_value() != str(seed):
        set_number(page, "seed", seed)
        sidebar_has(page, f"seed {seed}")
    wait_idle(page)
    button(page, "explorer_run").click()
    page.wait_for_function(answers_title(seed), timeout=120_000)
    wait_idle(page)


UPPER, WIDTH = 800_000.0, 800.0  # the default public domain: 1000 bins of width 800
Q3_THRESHOLDS = [WIDTH * 100 * k for k in range(1, 11)]  # every 100th bin edge


def make_income_csv(column: str, rows: int, seed: int, *, name: str,
                    note: str = "row") -> tuple[bytes, dict]:
    """An income CSV: ``rows`` multiples of 800 in (0, U], then one non-numeric, one negative
    and one too-large cell; a text column ``note`` (``{note}{i}``). Returns the bytes and
    what the app should report, including the true answers of Q3 (Σ cleaned values ≤ τ)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    values = (rng.integers(1, 1001, size=rows) * WIDTH).tolist()
    cells = [f"{v:.0f}" for v in values] + ["abc", "-5", "2000000"]
    text = f"{column},note\n" + "".join(f"{c},{note}{i}\n" for i, c in enumerate(cells))
    cleaned = np.clip(np.array([*values, -5.0, 2_000_000.0]), 0.0, UPPER)
    return text.encode(), {
        "name": name,
        "column": column,
        "read": rows + 3,
        "kept": rows + 2,
        "truth": [float(cleaned[cleaned <= t].sum()) for t in Q3_THRESHOLDS],
    }


def upload_payload(name: str, body: bytes) -> dict:
    """A Playwright file payload: uploaded from memory, never written to disk by the test."""
    return {"name": name, "mimeType": "text/csv", "buffer": body}


def true_answers(page) -> list[float]:
    """The 'true answer' trace of the explorer's answers chart."""
    traces = {t["name"]: t for t in chart_data(page, "explorer_answers")}
    return traces["true answer"]["y"]


# --------------------------------------------------------------------------------------------
# Timings (recorded, never asserted: bench/browser.py reads and reports them)
# --------------------------------------------------------------------------------------------
TIMINGS = ARTIFACTS / "timings.json"


def record_timings(**entries) -> None:
    """Merge ``entries`` into artifacts/timings.json (each test owns its keys) and print them."""
    import json

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(TIMINGS.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        data = {}
    data.update(entries)
    TIMINGS.write_text(json.dumps(data, indent=2, ensure_ascii=False))
    print("\ntimings:", json.dumps(entries, indent=2, ensure_ascii=False))


def timed_first_load(browser, url: str) -> tuple[BrowserContext, float]:
    """A new user opens the app: seconds from navigation to the explorer drawn (its data
    preview chart included). Returns the browser context (close it) and the seconds."""
    context = new_context(browser)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    start = time.perf_counter()
    pg.goto(url)
    button(pg, "explorer_run").wait_for()
    wait_rendered(pg, 60_000)
    return context, time.perf_counter() - start


def timed_goto_page(page, title: str) -> float:
    """Seconds from the click on a page's navigation link to that page drawn (idle, charts
    rendered)."""
    start = time.perf_counter()
    goto_page(page, title)
    wait_rendered(page)
    return time.perf_counter() - start
