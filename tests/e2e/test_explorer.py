"""Workload explorer in a real browser: the default run, click-to-figures timing, and the shareable link reproducing the same figures in another browser context."""

from __future__ import annotations

import statistics
from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.conftest import (
    answers_title,
    assert_clean,
    button,
    chart_data,
    chart_title,
    choose,
    key,
    new_context,
    nudge_slider,
    open_app,
    record_timings,
    set_number,
    sidebar_has,
    slider_value,
    wait_idle,
)

pytestmark = pytest.mark.e2e

# the default: the paper's five, RawSum, and ClampShells (recommended at the defaults)
ALGORITHMS = ("SQM", "Identity", "Workload", "TiMM", "TaMM", "RawSum", "ClampShells")
TIMED_SEEDS = (11, 12, 13)  # distinct seeds: every run computes, nothing comes from the memo

# Records, in the page's own clock, the click on Run, the script run (stApp's
# data-test-script-state attribute) and the moment the answers figure of the wanted seed is
# drawn. Installed just before each click.
_PROBE = """(predicateSource) => {
  const t = {};
  const isDrawn = eval(predicateSource);
  const app = document.querySelector('[data-testid="stApp"]');
  document.addEventListener('pointerdown', () => { if (t.click == null) t.click = performance.now(); },
                            {capture: true, once: true});
  new MutationObserver(() => {
    const s = app.getAttribute('data-test-script-state');
    if (t.click != null && s === 'running' && t.running == null) t.running = performance.now();
    if (t.running != null && s === 'notRunning' && t.done == null) t.done = performance.now();
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  const fig = new MutationObserver(() => {
    if (t.click != null && t.figure == null && isDrawn()) { t.figure = performance.now(); fig.disconnect(); }
  });
  fig.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  window.__probe = t;
}"""


def timed_run(page, seed: int) -> dict:
    """Press Run; return the click-to-figures time and its breakdown (seconds)."""
    page.evaluate(_PROBE, answers_title(seed))
    button(page, "explorer_run").click()
    page.wait_for_function(answers_title(seed), timeout=120_000)
    page.wait_for_function("() => window.__probe.figure != null && window.__probe.done != null")
    wait_idle(page)
    t = page.evaluate("window.__probe")
    caption = page.locator('[data-testid="stMarkdownContainer"]', has_text="computed in").first
    engine = caption.inner_text().rsplit("computed in", 1)[1].strip().rstrip("s").strip()
    return {
        "seed": seed,
        "click_to_figures_s": round((t["figure"] - t["click"]) / 1000, 3),
        "click_to_script_start_s": round((t["running"] - t["click"]) / 1000, 3),
        "script_start_to_figure_s": round((t["figure"] - t["running"]) / 1000, 3),
        "script_run_s": round((t["done"] - t["running"]) / 1000, 3),
        "engine_s": float(engine),
    }


def assert_answers_figure(page, *, dataset: str, workload: str, queries: int, trials: int,
                          seed: int) -> list[dict]:
    """The answers chart: 7 algorithms × (band + mean) + the true answers + the legend entry
    naming the bands (5–95 % of simulated answers, not an interval for the truth), titled for
    the run."""
    traces = page.evaluate(
        "() => document.querySelector('.st-key-chart_explorer_answers .js-plotly-plot').data.length"
    )
    assert traces == 2 * len(ALGORITHMS) + 2
    title = chart_title(page, "explorer_answers")
    assert title.startswith("Noisy answers, SVT + isotonic"), title
    assert f"{dataset} · {workload}" in title, title
    assert f"{trials} trials · seed {seed}" in title, title
    data = chart_data(page, "explorer_answers")
    names = [t["name"] for t in data]
    assert names[-2] == "true answer" and "not an interval for the truth" in names[-1], names
    assert set(ALGORITHMS) <= set(names), names
    for t in data[:-1]:  # a 5–95 % band is one closed polygon: τ forwards, then backwards
        n = 2 * queries if t["name"].endswith("5–95%") else queries
        assert len(t["x"]) == n and len(t["y"]) == n, (t["name"], len(t["x"]), n)
    return data


def test_default_run_draws_the_figures_and_is_timed(page, server):
    open_app(page, server.url)
    # the explorer is the default page, and it shows the data before any run
    assert urlparse(page.url).path == "/"
    assert page.locator("h1").first.inner_text() == "Workload explorer"
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 0  # drawn when opened
    page.locator(f"{key('explorer_preview')} summary").click()
    page.locator(key("chart_explorer_data")).locator(".main-svg").first.wait_for()
    wait_idle(page)
    sidebar_has(page, "Workload Q1")
    sidebar_has(page, "Algorithms: SQM, Identity, Workload, TiMM, TaMM")
    sidebar_has(page, "100 trials")

    runs = [timed_run(page, 0)]  # the defaults: Q1 × 5 algorithms × 100 trials, seed 0
    charts = page.locator('[data-testid="stPlotlyChart"]')
    assert charts.count() == 1  # only the open tab (Answers) is built; the preview is gone
    assert page.locator(".js-plotly-plot").count() == 1
    assert_answers_figure(page, dataset="incomes.csv", workload="Q1", queries=1000, trials=100,
                          seed=0)
    assert_clean(page)
    assert parse_qs(urlparse(page.url).query)["seed"] == ["0"]

    for seed in TIMED_SEEDS:
        set_number(page, "seed", seed)
        sidebar_has(page, f"seed {seed}")
        wait_idle(page)
        runs.append(timed_run(page, seed))
        assert_answers_figure(page, dataset="incomes.csv", workload="Q1", queries=1000,
                              trials=100, seed=seed)
    assert_clean(page)

    totals = [r["click_to_figures_s"] for r in runs]
    record_timings(
        click_to_figures_s={
            "median": round(statistics.median(totals), 3),
            "runs": totals,
            "what": "seconds from the click on Run to the answers figure drawn (Q1, 5 "
            "algorithms, 100 trials, incomes.csv, distinct seeds; the first run is the first "
            "of this session)",
            "breakdown_median_s": {
                k: round(statistics.median(r[k] for r in runs), 3)
                for k in ("click_to_script_start_s", "script_start_to_figure_s",
                          "script_run_s", "engine_s")
            },
            "runs_detail": runs,
        }
    )


def test_link_reproduces_settings_and_figures_in_a_new_context(page, server, browser):
    open_app(page, server.url)
    choose(page, "workload_kind", "Q3 · every 100th edge")
    sidebar_has(page, "Workload Q3")
    nudge_slider(page, "epsilon")  # 0.01 → 0.02
    sidebar_has(page, "ε = 0.02")
    set_number(page, "trials", 30)
    sidebar_has(page, "30 trials")
    set_number(page, "seed", 4242)
    sidebar_has(page, "seed 4242")
    wait_idle(page)
    button(page, "explorer_run").click()
    page.wait_for_function(answers_title(4242))
    wait_idle(page)
    assert_clean(page)
    link = page.url
    query = parse_qs(urlparse(link).query)
    assert query["workload"] == ["Q3"] and query["epsilon"] == ["0.02"], query
    assert query["seed"] == ["4242"] and query["trials"] == ["30"], query
    original = chart_data(page, "explorer_answers")

    other = new_context(browser)
    try:
        b = other.new_page()
        b.set_default_timeout(30_000)
        b.goto(link)
        # the link restores the settings and re-runs once with the same seed
        b.wait_for_function(answers_title(4242), timeout=120_000)
        wait_idle(b)
        b.get_by_text("Settings restored from the link").wait_for()
        assert_clean(b)
        assert b.locator(f"{key('workload_kind')} input").input_value() == "Q3 · every 100th edge"
        assert slider_value(b, "epsilon") == "0.02"
        assert b.locator(f"{key('seed')} input").input_value() == "4242"
        assert b.locator(f"{key('trials')} input").input_value() == "30"
        sidebar_has(b, "ε = 0.02 · ρ = 0.1")
        restored = chart_data(b, "explorer_answers")
        assert chart_title(b, "explorer_answers") == chart_title(page, "explorer_answers")
        assert restored == original  # same seed ⇒ identical numbers, trace by trace

        # changing settings in the new session leaves the first one alone
        set_number(b, "seed", 4243)
        sidebar_has(b, "seed 4243")
        wait_idle(b)
        button(b, "explorer_run").click()
        b.wait_for_function(answers_title(4243))
        wait_idle(b)
        assert parse_qs(urlparse(b.url).query)["seed"] == ["4243"]
        assert chart_data(b, "explorer_answers") != original
        assert page.url == link
        assert page.locator(f"{key('seed')} input").input_value() == "4242"
        assert chart_data(page, "explorer_answers") == original
    finally:
        other.close()
