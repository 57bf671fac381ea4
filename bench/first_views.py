"""The two slow first views: the app's first load on a fresh server, then Single query's first visit.

    python -m bench.first_views [--repeat 5] [--quick] [--against PATH]

Each run starts its own ``streamlit run app.py`` (as tests/e2e/conftest.py's Server: cold,
nothing imported, nothing cached) and one new browser context in Debian's Chromium, and measures:

- ``server_start_s``: from the process start to Streamlit's health check answering;
- ``first_load_s``: a new user opens the app (its address, the Explorer on the sample data)
  until the landing page is usable: its Run button there, the script run over, no loading
  skeleton and every chart drawn (tests/e2e's ``wait_rendered``); ``first_load_marks_ms``
  splits it by the page's own clock (ms from navigation): the DOM loaded, the first title
  drawn, the first script run over, the page drawn;
- ``single_query_first_s``: in the same tab, a click on Single query in the top navigation
  until its lesson frame's chart is drawn and the script run is over (the page's first visit in
  this session and in this server process);
- ``single_query_again_s``: back to the Explorer and to Single query again (the later visit);
- ``single_query_new_user_s``: another new user opens ``/single-query`` by its address on the
  same (now warm) server, until the lesson frame's chart is drawn.

Medians (and every run) of ``--repeat`` runs (default 5), with the machine's load. Nothing is
asserted; the targets of bench/browser.py (first load ≤ 4 s, first visit ≤ 2 s) are reported
with ``pass``.

``--against PATH`` (another checkout of dpsum, e.g. a ``git worktree`` of main) also measures
that checkout's app.py, its runs interleaved with this one's (A, B, A, B, …), so that both
see the same load on a shared machine; its figures are under ``against``.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import time
from pathlib import Path

from bench.common import ROOT, emit, log, machine, parser, repeats, target

LIMITS = {"first_load_s": 4.0, "single_query_first_s": 2.0}
FRAME = ".st-key-teach_lesson iframe"
# Page-side marks (performance.now(), ms from navigation): the first h1, the first script run
# over (Streamlit's stApp notRunning after it ran once), the landing page drawn (its Run button
# there, no loading skeleton left); first_load_s also waits for the browser to answer (a long
# task such as evaluating the chart library delays it) and for every chart drawn.
_MARKS = """
(() => {
  const marks = {};
  window.__marks = marks;
  let ran = false;
  const look = () => {
    if (marks.h1 === undefined && document.querySelector('[data-testid="stMain"] h1'))
      marks.h1 = performance.now();
    const app = document.querySelector('[data-testid="stApp"]');
    const s = app && app.getAttribute('data-test-script-state');
    if (s === 'running') ran = true;
    if (ran && s === 'notRunning' && marks.first_run_over === undefined)
      marks.first_run_over = performance.now();
    if (ran && s === 'notRunning' && marks.drawn === undefined
        && document.querySelector('.st-key-explorer_run button')
        && !document.querySelector('[data-testid="stSkeleton"]'))
      marks.drawn = performance.now();
  };
  new MutationObserver(look).observe(document, {subtree: true, childList: true,
                                                 attributes: true});
})();
"""


def _lesson_drawn(page, timeout: float) -> None:
    from tests.e2e.conftest import wait_idle

    page.frame_locator(FRAME).locator("#chart .main-svg").first.wait_for(timeout=timeout)
    wait_idle(page, timeout)


def one_run(browser, checkout: Path = ROOT) -> dict:
    """One fresh server of ``checkout``, one new user: the landing page, then Single query
    (see the module docstring)."""
    from tests.e2e.conftest import Server, button, goto_page, new_context, wait_rendered

    t0 = time.perf_counter()
    server = Server(cwd=checkout, app=checkout / "app.py")
    started = time.perf_counter() - t0
    try:
        context = new_context(browser)
        try:
            page = context.new_page()
            page.set_default_timeout(120_000)
            page.add_init_script(_MARKS)
            start = time.perf_counter()
            page.goto(server.url)
            button(page, "explorer_run").wait_for()
            wait_rendered(page, 120_000)
            first_load = time.perf_counter() - start
            marks = page.evaluate(
                "() => ({dom: performance.getEntriesByType('navigation')[0]"
                ".domContentLoadedEventEnd, ...window.__marks})"
            )
            start = time.perf_counter()
            page.locator('[data-testid="stTopNavLink"]', has_text="Single query").click()
            _lesson_drawn(page, 120_000)
            sq_first = time.perf_counter() - start
            goto_page(page, "Explorer")
            wait_rendered(page, 120_000)
            start = time.perf_counter()
            page.locator('[data-testid="stTopNavLink"]', has_text="Single query").click()
            page.locator("h1", has_text="Single query").wait_for()
            _lesson_drawn(page, 120_000)
            sq_again = time.perf_counter() - start
        finally:
            context.close()
        context = new_context(browser)
        try:
            page = context.new_page()
            page.set_default_timeout(120_000)
            start = time.perf_counter()
            page.goto(f"{server.url}/single-query")
            _lesson_drawn(page, 120_000)
            sq_new_user = time.perf_counter() - start
        finally:
            context.close()
    finally:
        server.stop()
    return {
        "server_start_s": round(started, 3),
        "first_load_s": round(first_load, 3),
        "first_load_marks_ms": {k: round(float(v)) for k, v in marks.items()},
        "single_query_first_s": round(sq_first, 3),
        "single_query_again_s": round(sq_again, 3),
        "single_query_new_user_s": round(sq_new_user, 3),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def _stats(values: list[float]) -> dict:
    return {
        "median": round(statistics.median(values), 3),
        "min": round(min(values), 3),
        "max": round(max(values), 3),
        "runs": [round(v, 3) for v in values],
    }


KEYS = ("server_start_s", "first_load_s", "single_query_first_s", "single_query_again_s",
        "single_query_new_user_s", "load_average_1m")  # fmt: skip


def summary(runs: list[dict]) -> dict:
    """Medians (min, max, every run) of each figure, and the median of each page mark."""
    out: dict = {k: _stats([r[k] for r in runs]) for k in KEYS}
    marks = {m for r in runs for m in r["first_load_marks_ms"]}
    out["first_load_marks_ms"] = {
        m: round(
            statistics.median(
                r["first_load_marks_ms"][m] for r in runs if m in r["first_load_marks_ms"]
            )
        )
        for m in sorted(marks)
    }
    return out


def main() -> None:
    """``--repeat`` runs, each on a fresh server; print one JSON object."""
    p = parser(__doc__)
    p.add_argument("--against", type=Path, help="another checkout, measured interleaved")
    args = p.parse_args()
    repeat = repeats(args)
    out: dict = {"machine": machine(), "checkout": str(ROOT)}
    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

    if CHROMIUM is None or importlib.util.find_spec("playwright") is None:
        out["reason"] = "not measured: Chromium or the playwright package is missing"
        out["targets"] = {k: target(None, v) for k, v in LIMITS.items()}
        emit(out)
        return
    from playwright.sync_api import sync_playwright

    runs: list[dict] = []
    other: list[dict] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for i in range(repeat):
                log(f"first_views: run {i + 1}/{repeat}")
                if args.against is not None:
                    other.append(one_run(browser, args.against))
                runs.append(one_run(browser))
        finally:
            browser.close()
    out.update(summary(runs))
    if other:
        out["against"] = {"checkout": str(args.against), **summary(other)}
    out["targets"] = {k: target(out[k]["median"], v) for k, v in LIMITS.items()}
    emit(out)


if __name__ == "__main__":
    main()
