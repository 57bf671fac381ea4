"""Many users at once: ≥ 10 browser sessions on one server, each with its own uploaded data,
all running the explorer together; every session must see only its own data and results.

One Chromium, one context per user (separate cookies, storage and Streamlit session), driven
in interleaved phases from the sync API: open all → upload in all → Run in all → check all.
The server's peak memory (VmHWM) goes to tests/e2e/artifacts/concurrency.json.
"""

from __future__ import annotations

import json
import os
import time
from itertools import pairwise
from pathlib import Path

import pytest

from tests.e2e.conftest import (
    ARTIFACTS,
    ERROR,
    EXCEPTION,
    SIDEBAR,
    Server,
    answers_title,
    button,
    chart_title,
    key,
    make_income_csv,
    new_context,
    true_answers,
    upload_payload,
    wait_idle,
)

pytestmark = pytest.mark.e2e

SESSIONS = 10
TRIALS = 20
TIMEOUT = 180_000  # ms: ten pages on two cores

# Epoch times (ms) of this page's script run after the click on Run, to measure the overlap.
_PROBE = """() => {
  const t = {};
  const now = () => performance.timeOrigin + performance.now();
  const app = document.querySelector('[data-testid="stApp"]');
  document.addEventListener('click', () => { if (t.click == null) t.click = now(); },
                            {capture: true, once: true});
  // every state the attribute took, even when several changes land in one callback
  new MutationObserver((records) => {
    const states = [...records.slice(1).map(r => r.oldValue),
                    app.getAttribute('data-test-script-state')];
    for (const s of states) {
      if (t.click == null) continue;
      if (s !== 'notRunning' && t.running == null) t.running = now();
      if (s === 'notRunning' && t.running != null && t.done == null) t.done = now();
    }
  }).observe(app, {attributes: true, attributeOldValue: true,
                   attributeFilter: ['data-test-script-state']});
  window.__probe = t;
}"""


def memory_kb(pid: int) -> dict[str, int]:
    """VmHWM (peak resident set) and VmRSS of a process, in kB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmHWM", "VmRSS"):
            out[name] = int(value.split()[0])
    return out


def cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def max_overlap(intervals: list[tuple[float, float]]) -> int:
    """Largest number of intervals that contain a common instant."""
    events = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals])
    depth = best = 0
    for _, step in events:
        depth += step
        best = max(best, depth)
    return best


def test_many_sessions_each_see_only_their_own_data(browser):
    users = []
    for i in range(SESSIONS):  # distinct names, sizes, values and seeds
        name, column = f"user{i:02d}.csv", f"amount_u{i:02d}"
        body, expect = make_income_csv(column, rows=60 + 37 * i, seed=100 + i, name=name)
        users.append({"i": i, "body": body, "seed": 500 + i, **expect})
    assert len({u["kept"] for u in users}) == SESSIONS
    assert len({tuple(u["truth"]) for u in users}) == SESSIONS

    server = Server()
    contexts = []
    phases = {}
    try:
        memory = {"start": memory_kb(server.proc.pid)}
        cpu = {"start": cpu_s(server.proc.pid)}
        t0 = time.monotonic()
        pages = []
        for _ in users:
            context = new_context(browser)
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT)
            pages.append(page)
        # Every session opens a link to the Data page that sets Q3, few trials and its own
        # seed (data=upload: the link asks for the file, nothing runs). The first one opens
        # "/" and waits: see test_deep_links.py for deep links on a server nobody opened yet.
        links = [f"?data=upload&workload=Q3&trials={TRIALS}&seed={u['seed']}" for u in users]
        pages[0].goto(f"{server.url}/{links[0]}")
        button(pages[0], "explorer_run").wait_for()
        wait_idle(pages[0], TIMEOUT)
        memory["one_session"] = memory_kb(server.proc.pid)  # imports done, one session
        for page, link in zip(pages[1:], links[1:], strict=True):
            page.goto(f"{server.url}/data{link}", wait_until="commit")
        pages[0].locator('[data-testid="stTopNavLink"]', has_text="Data").click()
        for page, u in zip(pages, users, strict=True):
            page.locator("h1", has_text="Data").wait_for()
            page.locator(f"{key('data_upload')} input[type=file]").wait_for(state="attached")
            wait_idle(page, TIMEOUT)
            sidebar = page.locator(SIDEBAR).inner_text()  # app.py's frame, settings from link
            assert "∑ dpsum" in sidebar, sidebar
            assert page.locator('[data-testid="stTopNavLink"]').count() == 7
            assert "Workload Q3" in sidebar and f"{TRIALS} trials" in sidebar, sidebar
            assert f"seed {u['seed']}" in sidebar, sidebar
        phases["open_s"] = time.monotonic() - t0
        memory["open"] = memory_kb(server.proc.pid)
        cpu["open"] = cpu_s(server.proc.pid)

        t0 = time.monotonic()
        for page, u in zip(pages, users, strict=True):  # upload in every session, then wait
            page.locator(f"{key('data_upload')} input[type=file]").set_input_files(
                upload_payload(u["name"], u["body"])
            )
        for page, u in zip(pages, users, strict=True):
            page.locator('[data-testid="stAlert"]',
                         has_text=f"{u['read']} rows read, {u['kept']} kept.").wait_for()
            page.locator(SIDEBAR).filter(has_text=f"{u['name']} · {u['column']}").wait_for()
            wait_idle(page, TIMEOUT)
        phases["upload_s"] = time.monotonic() - t0
        memory["upload"] = memory_kb(server.proc.pid)
        cpu["upload"] = cpu_s(server.proc.pid)

        t0 = time.monotonic()
        for page in pages:
            page.locator('[data-testid="stTopNavLink"]', has_text="Explorer").click()
        for page in pages:
            page.locator("h1", has_text="Workload explorer").wait_for()
            button(page, "explorer_run").wait_for()
            wait_idle(page, TIMEOUT)
            page.evaluate(_PROBE)
        for page in pages:  # Run in every session before waiting for any
            button(page, "explorer_run").dispatch_event("click")
        for page, u in zip(pages, users, strict=True):
            page.wait_for_function(answers_title(u["seed"]), timeout=TIMEOUT)
            wait_idle(page, TIMEOUT)
        phases["run_s"] = time.monotonic() - t0
        runs = [page.evaluate("window.__probe") for page in pages]
        for r in runs:  # a run whose states React committed together: count from the click
            r.setdefault("running", r["click"])
            r.setdefault("done", r["running"])

        for page, u in zip(pages, users, strict=True):
            others = [o for o in users if o is not u]
            sidebar = page.locator(SIDEBAR).inner_text()
            assert f"{u['name']} · {u['column']}" in sidebar, sidebar
            assert f"{u['kept']} records after cleaning" in sidebar, sidebar
            title = chart_title(page, "explorer_answers")
            assert f"{u['name']} · Q3" in title and f"{TRIALS} trials · seed {u['seed']}" in title
            assert true_answers(page) == pytest.approx(u["truth"], rel=1e-12), u["name"]
            text = page.locator('[data-testid="stApp"]').inner_text()
            leaked = [o["column"] for o in others if o["column"] in text or o["name"] in text]
            assert not leaked, (u["name"], leaked)
            assert page.locator(EXCEPTION).count() == 0, u["name"]
            assert page.locator(ERROR).count() == 0, page.locator(ERROR).all_inner_texts()
        memory["end"] = memory_kb(server.proc.pid)
        cpu["end"] = cpu_s(server.proc.pid)
    finally:
        for context in contexts:
            context.close()
        server.stop()

    log = server.log.read_text()
    assert "Traceback" not in log, log[-3000:]
    intervals = [(r["running"], r["done"]) for r in runs]
    first_click = min(r["click"] for r in runs)
    record = {
        "sessions": SESSIONS,
        "sessions_connected_at_once": SESSIONS,
        "runs_in_flight_at_once_max": max_overlap(intervals),
        "run_s_per_session": [round((b - a) / 1000, 2) for a, b in intervals],
        "clicks_spread_s": round((max(r["click"] for r in runs) - first_click) / 1000, 2),
        "last_figure_after_first_click_s": round((max(b for _, b in intervals) - first_click)
                                                 / 1000, 2),
        "workload": f"Q3, 5 algorithms, {TRIALS} trials, "
                    f"{min(u['kept'] for u in users)}–{max(u['kept'] for u in users)} records",
        "server_peak_rss_mb": round(memory["end"]["VmHWM"] / 1024, 1),
        "server_rss_mb": {k: round(v["VmRSS"] / 1024, 1) for k, v in memory.items()},
        "phases_s": {k: round(v, 2) for k, v in phases.items()},
        "server_cpu_s": {f"{a}→{b}": round(cpu[b] - cpu[a], 2)
                         for a, b in pairwise(["start", "open", "upload", "end"])},
        "load_average_1min_at_end": os.getloadavg()[0],
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "concurrency.json").write_text(json.dumps(record, indent=2))
    print("\nconcurrency:", json.dumps(record, indent=2))
