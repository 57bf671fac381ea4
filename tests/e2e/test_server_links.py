"""A link naming a server dataset, opened in Chromium on a server with a data directory: the
dataset is selected and run once; a name leading outside is refused with a notice."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

import pandas as pd
import pytest

from dpsum_core.simulate.config import ExperimentConfig
from dpsum_ui import share
from tests.e2e.conftest import (
    SIDEBAR,
    Server,
    answers_title,
    assert_clean,
    chart_title,
    new_context,
    wait_idle,
)

pytestmark = pytest.mark.e2e
pytest.importorskip("duckdb")

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "incomes_small.csv"
CONFIG = ExperimentConfig(workload="Q3", trials=20, seed=7, upper=1_000_000.0, bins=500)


@pytest.fixture(scope="module")
def data_server(tmp_path_factory, browser):
    """A server whose data directory holds incomes.parquet; beside it, a file never to be read."""
    root = tmp_path_factory.mktemp("serverlink")
    (root / "data").mkdir()
    df = pd.read_csv(SAMPLE)
    df.to_parquet(root / "data" / "incomes.parquet")
    df.to_parquet(root / "secret.parquet")
    os.symlink(root / "secret.parquet", root / "data" / "escape.parquet")
    server = Server(env={"DPSUM_DATA_DIR": str(root / "data")})
    try:
        yield server
    finally:
        server.stop()


def open_link(browser, url: str, name: str):
    """A new browser session opened on a link to ``name`` (the explorer); its page."""
    query = urlencode(share.config_to_query(CONFIG, sample=None, server=name, column="income"))
    context = new_context(browser)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{url}/?{query}")
    page.locator(".st-key-explorer_run button").first.wait_for()
    wait_idle(page)
    return context, page


def test_a_server_link_selects_the_dataset_and_runs_once(browser, data_server):
    context, page = open_link(browser, data_server.url, "incomes.parquet")
    try:
        page.wait_for_function(answers_title(7), timeout=120_000)
        assert_clean(page)
        page.get_by_text("run once with the same seed").wait_for()
        sidebar = page.locator(SIDEBAR).inner_text()
        assert "incomes.parquet" in sidebar and "server dataset" in sidebar, sidebar
        assert "Domain [0, 1,000,000] · 500 bins" in sidebar, sidebar  # the link's U and n
        assert "incomes.parquet" in chart_title(page, "explorer_answers")
        address = parse_qs(urlparse(page.url).query)  # the address bar still holds the link
        assert address["data"] == ["server:incomes.parquet"] and address["column"] == ["income"]
    finally:
        context.close()


def test_a_server_link_leading_outside_is_refused(browser, data_server):
    context, page = open_link(browser, data_server.url, "escape.parquet")
    try:
        assert_clean(page)
        page.get_by_text("leads outside the data directory").wait_for()
        sidebar = page.locator(SIDEBAR).inner_text()
        assert "incomes.csv" in sidebar and "sample" in sidebar, sidebar
        assert page.locator(".st-key-chart_explorer_answers").count() == 0
    finally:
        context.close()
