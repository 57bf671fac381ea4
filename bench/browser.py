"""The dashboard's speed in Chromium, quiet and under a moderate load.

    python -m bench.browser [--loads 0,1] [--repeat 3] [--quick]

For each load level (the number of busy-looping processes started next to the measurement: on
the 2-core reference machine 1 is a moderate load, half the CPU taken by other work) it starts
a fresh ``streamlit run app.py`` and measures, with the test suite's own helpers
(tests/e2e/conftest.py):

- ``first_load_cold_s``: a new user opens the app on the freshly started server, until the
  explorer is drawn with its chart (the server's imports and first data load included);
- ``first_load_warm_s``: the same for later users (median of ``--repeat``);
- ``page_switch_s``: top-navigation clicks through every page, ``--repeat`` rounds, until the
  page is drawn (median and max over all switches);
- ``click_to_figures_s``: Run on the explorer's defaults (Q1 × 5 algorithms × 100 trials) until
  the answers figure is drawn, distinct seeds (median of ``--repeat``);
- ``first_visit_s``: a new user opens each page by its own address (/data, /compare, …) on the
  warm server, until the page is drawn (median and max per page over ``--repeat``);
- ``shared_link_s``: a new user opens a shared Explorer link (the defaults with its own seed,
  light enough to run by itself) until its answers figure is drawn (median of ``--repeat``).

Targets (issue 10, under the moderate load): first load ≤ 4 s, page switch ≤ 1 s,
click-to-figures ≤ 1 s; issue 17: first visit of every page ≤ 2 s, shared link ≤ 3 s. Nothing is asserted; ``pass`` says how each compares. The timings the
e2e tests recorded (tests/e2e/artifacts/timings.json) are passed through under ``recorded``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.common import ROOT, emit, log, machine, parser, repeats, target

TIMINGS = ROOT / "tests" / "e2e" / "artifacts" / "timings.json"
PAGES = ("Data", "Single query", "Compare", "About", "Explorer")
LIMITS = {
    "first_load_cold_s": 4.0,
    "page_switch_s": 1.0,
    "click_to_figures_s": 1.0,
    "first_visit_s": 2.0,
    "shared_link_s": 3.0,
}
# Each page's own address (app.py's url_path; the Explorer is the default page at "/").
PAGE_PATHS = {
    "Data": "data",
    "Explorer": "",
    "Single query": "single-query",
    "Compare": "compare",
    "Decide": "decide",
    "Release": "release",
    "About": "about",
}
LINK_SEED = 7100
TARGET_LOAD = 1  # the targets are read at this load level when it was measured


def read_recorded(path: Path = TIMINGS) -> dict:
    """What the e2e tests recorded, or the reason there is nothing."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {"reason": f"{path} not found: run the e2e browser tests"}
    except (OSError, json.JSONDecodeError) as exc:
        return {"reason": f"{path} unreadable: {exc}"}
    return data if isinstance(data, dict) else {"reason": f"{path} holds no JSON object"}


def _burners(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def timed_first_visit(browser, url: str, title: str) -> float:
    """A new user opens the page ``title`` by its address: seconds until it is drawn."""
    from tests.e2e.conftest import PAGE_TITLES, new_context, wait_rendered

    context = new_context(browser)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        start = time.perf_counter()
        page.goto(f"{url}/{PAGE_PATHS[title]}")
        page.locator("h1", has_text=PAGE_TITLES[title]).wait_for()
        wait_rendered(page, 60_000)
        return time.perf_counter() - start
    finally:
        context.close()


def timed_shared_link(browser, url: str, seed: int) -> float:
    """A new user opens a shared Explorer link (runs by itself): seconds until its answers
    figure (of ``seed``) is drawn."""
    from urllib.parse import urlencode

    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_ui import share
    from tests.e2e.conftest import answers_title, new_context, wait_idle

    params = share.config_to_query(
        ExperimentConfig(seed=seed), sample="incomes.csv", column="income"
    )
    context = new_context(browser)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        start = time.perf_counter()
        page.goto(f"{url}/?{urlencode(params)}")
        page.wait_for_function(answers_title(seed), timeout=60_000)
        seconds = time.perf_counter() - start
        wait_idle(page, 60_000)
        return seconds
    finally:
        context.close()


def measure_level(browser, load: int, repeat: int) -> dict:
    """All four measurements on a fresh server with ``load`` busy processes running."""
    from tests.e2e.conftest import (
        Server,
        set_number,
        sidebar_has,
        timed_first_load,
        timed_goto_page,
        wait_idle,
    )
    from tests.e2e.test_explorer import timed_run

    burners = _burners(load)
    server = None
    try:
        time.sleep(1.0 if load else 0.0)  # let the load settle before the server starts
        server = Server()
        context, cold = timed_first_load(browser, server.url)
        context.close()
        warm, switches, clicks = [], [], []
        for i in range(repeat):
            context, seconds = timed_first_load(browser, server.url)
            warm.append(seconds)
            page = context.pages[0]
            if i == 0:
                for title in PAGES:
                    switches.append(timed_goto_page(page, title))
                for seed in range(11, 11 + repeat):  # distinct seeds: nothing is memoised
                    set_number(page, "seed", seed)
                    sidebar_has(page, f"seed {seed}")
                    wait_idle(page)
                    clicks.append(timed_run(page, seed)["click_to_figures_s"])
            else:
                for title in PAGES:
                    switches.append(timed_goto_page(page, title))
            context.close()
        visits: dict[str, list[float]] = {title: [] for title in PAGE_PATHS}
        links = []
        for i in range(repeat):
            for title in PAGE_PATHS:
                visits[title].append(timed_first_visit(browser, server.url, title))
            links.append(timed_shared_link(browser, server.url, LINK_SEED + 100 * load + i))
        return {
            "load_processes": load,
            "load_average_1m": round(os.getloadavg()[0], 2),
            "first_load_cold_s": round(cold, 3),
            "first_load_warm_s": _stats(warm),
            "page_switch_s": _stats(switches),
            "click_to_figures_s": _stats(clicks),
            "first_visit_s": {title: _stats(times) for title, times in visits.items()},
            "shared_link_s": _stats(links),
        }
    finally:
        if server is not None:
            server.stop()
        for b in burners:
            b.kill()
            b.wait()


def _stats(values: list[float]) -> dict:
    return {
        "median": round(statistics.median(values), 3),
        "max": round(max(values), 3),
        "runs": [round(v, 3) for v in values],
    }


def main() -> None:
    """Measure at every load level and print one JSON object."""
    p = parser(__doc__)
    p.add_argument("--loads", default="0,1", help="busy processes per level, e.g. 0,1")
    args = p.parse_args()
    repeat = repeats(args)
    loads = [int(x) for x in args.loads.split(",") if x.strip()]
    out: dict = {"machine": machine(), "recorded": read_recorded()}
    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

    if CHROMIUM is None or importlib.util.find_spec("playwright") is None:
        out["reason"] = "not measured: Chromium or the playwright package is missing"
        out["targets"] = {k: target(None, v) for k, v in LIMITS.items()}
        emit(out)
        return
    from playwright.sync_api import sync_playwright

    levels = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for load in loads:
                log(f"browser: load {load}")
                levels[f"load_{load}"] = measure_level(browser, load, repeat)
        finally:
            browser.close()
    out["levels"] = levels
    at = levels.get(f"load_{TARGET_LOAD}") or levels[f"load_{loads[-1]}"]
    out["targets_at_load"] = at["load_processes"]
    out["click_to_figures_s"] = at["click_to_figures_s"]["median"]
    out["targets"] = {
        "browser_first_load_cold_s": target(at["first_load_cold_s"], LIMITS["first_load_cold_s"]),
        "browser_page_switch_median_s": target(
            at["page_switch_s"]["median"], LIMITS["page_switch_s"]
        ),
        "browser_click_to_figures_s": target(
            at["click_to_figures_s"]["median"], LIMITS["click_to_figures_s"]
        ),
        "browser_first_visit_slowest_page_median_s": target(
            max(v["median"] for v in at["first_visit_s"].values()), LIMITS["first_visit_s"]
        ),
        "browser_shared_link_s": target(at["shared_link_s"]["median"], LIMITS["shared_link_s"]),
    }
    emit(out)


if __name__ == "__main__":
    main()
