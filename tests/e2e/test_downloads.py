"""Downloads in a real browser: a figure as self-contained HTML, the run's summary.csv (named
and marked not for publication) and the settings JSON; on the way, every explorer tab draws
its figures."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from dpsum_core.data.reading import load_column
from dpsum_core.publish.csvfile import csv_bytes
from dpsum_core.publish.release import published_frame
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from tests.e2e.conftest import (
    ROOT,
    assert_clean,
    button,
    chart_data,
    chart_title,
    key,
    open_app,
    run_q3,
    wait_idle,
)

pytestmark = pytest.mark.e2e

TABS = {
    "Relative error": ["explorer_error"],
    "Isotonic regression": ["explorer_isotonic"],
    "θ and data": ["explorer_theta", "explorer_data"],
    "Expected error": ["explorer_expected"],
}


def download(page, name: str) -> tuple[str, bytes]:
    """Click a keyed download button; the suggested file name and the bytes."""
    with page.expect_download() as info:
        button(page, name).click()
    d = info.value
    assert d.failure() is None, d.failure()
    return d.suggested_filename, Path(d.path()).read_bytes()


def open_tab(page, label: str) -> None:
    page.locator('[data-testid="stTab"]', has_text=label).click()


def test_tabs_and_downloads(page, server):
    open_app(page, server.url)
    run_q3(page, seed=0, trials=20)
    assert_clean(page)

    # 1. the answers figure as a self-contained HTML page
    name, body = download(page, "dl_explorer_answers_html")
    # descriptive names: dataset, workload, ε, seed and what the file shows
    assert name == "dpsum_incomes_Q3_eps0.01_seed0_answers_svt_iso.html"
    html = body.decode("utf-8")
    assert html.lstrip().lower().startswith("<html") or html.lstrip().lower().startswith(
        "<!doctype html"
    ), html[:80]
    assert "Plotly.newPlot" in html
    assert len(body) > 1_000_000, len(body)  # plotly.js itself is inlined (≈ 4.8 MB)
    external = re.findall(r"<script[^>]*\bsrc=[\"']([^\"']+)", html)
    assert external == [], external  # nothing fetched from a CDN: works offline
    assert "Noisy answers, SVT + isotonic" in html
    assert "seed 0" in html

    # 2. every other tab draws its figures (tabs are lazy: each click reruns the page)
    titles = {}
    for label, charts in TABS.items():
        open_tab(page, label)
        for chart in charts:
            page.locator(f"{key('chart_' + chart)} .main-svg").first.wait_for()
        wait_idle(page)
        for chart in charts:
            assert chart_data(page, chart), chart
            titles[chart] = chart_title(page, chart)
        assert_clean(page)
    assert titles["explorer_error"].startswith("Relative error"), titles
    assert "seed 0" in titles["explorer_expected"], titles

    # 3. summary.csv: exactly the engine's summary of the same run (same seed ⇒ same numbers)
    open_tab(page, "Summary & budget")
    button(page, "share_summary_csv").wait_for()
    wait_idle(page)
    page.get_by_text("Privacy-budget ledger").wait_for()
    name, body = download(page, "share_summary_csv")
    assert name == "dpsum_incomes_Q3_eps0.01_seed0_summary_not_for_publication.csv"
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8"))))
    data = load_column(ROOT / "sample_data" / "incomes.csv", upper=800_000)
    # the Explorer's default selection: the engine's defaults and the recommended ClampShells
    config = ExperimentConfig(workload="Q3", trials=20, seed=0,
                              algorithms=(*ExperimentConfig().algorithms, "clampshells"))
    summary = run_experiment(data, config).summary()
    expected = published_frame(summary)
    assert list(rows[0]) == [*expected.columns, "notice"]  # a last column says what it is
    assert all("not for publication" in r["notice"].lower() for r in rows)
    assert len(rows) == len(config.algorithms) * 10  # the default algorithms × Q3's 10 queries
    assert {r["algorithm"] for r in rows} == set(config.algorithms)
    engine = list(csv.DictReader(io.StringIO(csv_bytes(summary).decode("utf-8"))))
    # before the notice, field for field what `dpsum run` writes (9 digits)
    assert [{k: v for k, v in r.items() if k != "notice"} for r in rows] == engine

    # 4. the settings file, from the Share popover
    button(page, "explorer_share").click()
    button(page, "share_config_download").wait_for()
    name, body = download(page, "share_config_download")
    assert name == "dpsum_incomes_Q3_eps0.01_seed0_settings.json"
    doc = json.loads(body)
    assert set(doc) == {"config", "dataset", "dpsum_version", "isotonic", "note"}, set(doc)
    assert doc["dataset"] == {"sample": "incomes.csv", "column": "income"}
    assert doc["isotonic"] is True
    restored = ExperimentConfig.from_dict(doc["config"])
    assert restored == config, (restored, config)
    assert_clean(page)
