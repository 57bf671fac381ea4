"""Accessibility in a real browser: axe-core on every page, with the guide on and off (no
violation of any impact),
and the main flow — choose data, set parameters, Run, read the results, download them — with
the keyboard alone."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from dpsum_core.plots.export import NOT_FOR_PUBLICATION_MARK
from tests.e2e.conftest import (
    ARTIFACTS,
    answers_title,
    assert_clean,
    button,
    goto_page,
    key,
    open_app,
    run_q3,
    sidebar_has,
    wait_idle,
    wait_rendered,
)

pytestmark = pytest.mark.e2e

# Every axe impact counts (minor and moderate included): nothing is accepted.
# Known violations inside Streamlit's own frame that the app cannot fix, each as the exact
# (rule id, CSS target) it is excused for, with the reason. Empty: nothing is excused today.
EXCUSED: dict[tuple[str, str], str] = {}


def axe_violations(page, state: str) -> list[dict]:
    """Run axe-core (bundled by axe-playwright-python, offline) on the whole page; return the
    violations as plain records and append them to artifacts/axe.json for the record."""
    from axe_playwright_python.sync_playwright import Axe

    wait_rendered(page)
    response = Axe().run(page).response
    found = [
        {
            "state": state,
            "rule": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "targets": [" ".join(map(str, n["target"])) for n in v["nodes"]],
        }
        for v in response["violations"]
    ]
    log = ARTIFACTS / "axe.json"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    previous = json.loads(log.read_text()) if log.exists() else {}
    previous[state] = {"axe_version": response["testEngine"]["version"], "violations": found}
    log.write_text(json.dumps(previous, indent=2))
    return found


def assert_accessible(page, state: str) -> None:
    blocking = [
        {**v, "targets": [t for t in v["targets"] if (v["rule"], t) not in EXCUSED]}
        for v in axe_violations(page, state)
    ]
    blocking = [v for v in blocking if v["targets"]]
    assert not blocking, json.dumps(blocking, indent=2)


def open_table(page, name: str) -> None:
    page.locator(f"{key(f'table_{name}')} summary").click()
    page.locator(f'{key(f"table_{name}")} [data-testid="stDataFrame"]').wait_for()
    wait_idle(page)


@pytest.mark.parametrize("guide", [False, True], ids=["guide off", "guide on"])
def test_every_page_passes_axe(page, server, guide):
    open_app(page, server.url + ("/?guide=1" if guide else ""))
    tag = " (guide on)" if guide else ""
    if guide:
        page.locator(key("guide_explorer")).wait_for()
    assert_accessible(page, "explorer, before a run" + tag)
    run_q3(page, seed=0, trials=20)
    open_table(page, "explorer_answers")
    assert_accessible(page, "explorer, answers with the data table open" + tag)
    page.locator('[data-testid="stTab"]', has_text="Summary").click()
    page.locator('[data-testid="stDataFrame"]').first.wait_for()
    wait_idle(page)
    assert_accessible(page, "explorer, summary tab" + tag)
    goto_page(page, "Data")
    assert_accessible(page, "data" + tag)
    page.locator(f"{key('data_source')} label", has_text="an uploaded file").click()
    page.get_by_text("No file uploaded yet").wait_for()
    wait_idle(page)
    assert_accessible(page, "data, the uploader shown" + tag)
    page.locator(f"{key('data_source')} label", has_text="a sample dataset").click()
    wait_idle(page)
    for title in ("Single query", "Decide", "Release"):
        goto_page(page, title)
        assert_accessible(page, title.lower() + tag)
    goto_page(page, "Compare")
    assert_accessible(page, "compare, before a run" + tag)
    button(page, "compare_run").click()
    page.locator(f"{key('chart_compare_grid')} .main-svg").first.wait_for(timeout=120_000)
    wait_idle(page, 120_000)
    assert_accessible(page, "compare, grid" + tag)
    goto_page(page, "About")
    assert_accessible(page, "about" + tag)
    assert_clean(page)


# --------------------------------------------------------------------------------------------
# Keyboard only: from the first page load on, no mouse action at all
# --------------------------------------------------------------------------------------------
_FOCUSED = """(sel) => { const a = document.activeElement;
  return !!(a && a.closest(sel)) ? (a.innerText || a.value || '') : null; }"""


def tab_to(page, selector: str, text: str | None = None, *, limit: int = 120) -> None:
    """Press Tab until the focused element lies inside ``selector`` (and shows ``text``)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(_FOCUSED, selector)
        if focused is not None and (text is None or text in focused):
            return
    raise AssertionError(f"Tab never reached {selector} {text or ''}")


def nav_by_keyboard(page, title: str, heading: str) -> None:
    tab_to(page, '[data-testid="stTopNavLink"]', title)
    page.keyboard.press("Enter")
    page.locator("h1", has_text=heading).wait_for()
    wait_idle(page)


def choose_by_keyboard(page, name: str, option: str) -> None:
    """A selectbox: focus its combobox, type to filter, Enter picks the highlighted option."""
    tab_to(page, f"{key(name)} input")
    page.keyboard.type(option)
    page.get_by_role("option", name=option).first.wait_for()
    page.keyboard.press("Enter")


def type_number(page, name: str, value: int) -> None:
    tab_to(page, f"{key(name)} input")
    page.keyboard.press("Control+A")
    page.keyboard.type(str(value))
    page.keyboard.press("Enter")


def test_main_flow_with_the_keyboard_only(page, server):
    open_app(page, server.url)  # the explorer; from here on only keys are pressed

    # 1. choose the data: Data page, the small sample
    nav_by_keyboard(page, "Data", "Data")
    choose_by_keyboard(page, "data_sample", "incomes_small.csv")
    sidebar_has(page, "incomes_small.csv")
    wait_idle(page)

    # 2. set parameters on the explorer: workload Q3, ε one step up, 20 trials, seed 7
    nav_by_keyboard(page, "Explorer", "Workload explorer")
    choose_by_keyboard(page, "workload_kind", "Q3 · every 100th edge")
    sidebar_has(page, "Workload Q3")
    wait_idle(page)
    tab_to(page, f"{key('epsilon')} input[type=range]")
    page.keyboard.press("ArrowRight")  # 0.01 → 0.02
    sidebar_has(page, "ε = 0.02")
    wait_idle(page)
    type_number(page, "trials", 20)
    sidebar_has(page, "20 trials")
    wait_idle(page)
    type_number(page, "seed", 7)
    sidebar_has(page, "seed 7")
    wait_idle(page)

    # 3. Run
    tab_to(page, f"{key('explorer_run')} button")
    page.keyboard.press("Enter")
    page.wait_for_function(answers_title(7), timeout=120_000)
    wait_idle(page)
    assert_clean(page)

    # 4. read the results: the answers chart's numbers in its data table
    tab_to(page, f"{key('table_explorer_answers')} summary")
    page.keyboard.press("Enter")
    table = page.locator(f'{key("table_explorer_answers")} [data-testid="stDataFrame"]')
    table.wait_for()
    wait_idle(page)

    # 5. download them as CSV
    tab_to(page, f"{key('dl_explorer_answers_csv')} button")
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    d = info.value
    assert d.failure() is None, d.failure()
    assert d.suggested_filename == (
        "dpsum_incomes_small_Q3_eps0.02_seed7_answers_svt_iso_not_for_publication.csv"
    )
    rows = list(csv.DictReader(io.StringIO(Path(d.path()).read_text(encoding="utf-8"))))
    assert len(rows) == 8 * 10  # 7 algorithms + the true answers, 10 queries each
    series = {r["series"] for r in rows}
    assert series == {"SQM", "Identity", "Workload", "TiMM", "TaMM", "RawSum", "ClampShells",
                      "true answer"}, series
    assert {r["notice"] for r in rows} == {NOT_FOR_PUBLICATION_MARK}  # every row says so
    for r in rows:
        if r["series"] != "true answer":
            assert float(r["5th percentile"]) <= float(r["95th percentile"]), r
    assert_clean(page)
