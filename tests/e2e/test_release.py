"""A release in a real browser: from the explorer's settings to answers.csv, release.json and the report."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.e2e.conftest import (
    assert_clean,
    button,
    choose,
    open_app,
    release_now,
    sidebar_has,
    wait_idle,
)
from tests.e2e.test_downloads import download

pytestmark = pytest.mark.e2e


def test_release_from_the_explorers_settings(page, server):
    open_app(page, server.url)
    choose(page, "workload_kind", "Q3")
    sidebar_has(page, "Workload Q3")  # applied before leaving (else Q1 was released at times)
    wait_idle(page)
    release_now(page, 0.05)
    page.get_by_text("Released: ε = 0.01 spent, 0.04 of 0.05 left.").wait_for(timeout=60_000)
    wait_idle(page)
    assert_clean(page)

    name, body = download(page, "release_answers_csv")
    rows = list(csv.reader(io.StringIO(body.decode())))
    assert name.endswith("_answers.csv")
    # no ± of the noise alone: next to a biased answer it reads as an interval that misses
    assert rows[0] == ["threshold", "private_answer", "lower_95", "upper_95", "bias_bounded",
                       "lower_97_5", "upper_97_5", "gated", "above_theta"]  # fmt: skip
    assert len(rows) == 11  # Q3: 10 queries
    name, body = download(page, "release_record_json")
    record = json.loads(body)
    assert set(record) == {
        "column", "unit_of_privacy", "id_column", "config", "budget", "theta", "intervals", "versions",
        "created", "engine", "gated_thresholds", "above_theta_thresholds",
    }  # fmt: skip
    assert record["unit_of_privacy"] == "one row = one person" and record["id_column"] is None
    assert record["engine"] == "memory"  # the sample data, read in memory
    assert record["config"]["workload"] == "Q3" and "opendp" in record["versions"]
    name, body = download(page, "release_report_html")
    assert name.endswith("_report.html") and b"one row = one person" in body
    _, body = download(page, "release_ledger_download")
    ledger = json.loads(body)
    assert ledger["spent"] == 0.01 and ledger["total"] == 0.05
    # The confirmation is spent with the release: the button waits for a new one.
    assert button(page, "release_go").is_disabled()
