"""Data page in a real browser: a CSV upload flows into the explorer; bad files are refused
with the engine's message while the previous data stays selected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import (
    ERROR,
    EXCEPTION,
    ROOT,
    assert_clean,
    chart_title,
    goto_page,
    key,
    make_income_csv,
    open_app,
    run_q3,
    sidebar_has,
    true_answers,
    upload_data,
    wait_idle,
)

pytestmark = pytest.mark.e2e

BAD = ROOT / "tests" / "data" / "bad"


def income_csv(path: Path, column: str, rows: int, seed: int) -> dict:
    """Write an income CSV (conftest.make_income_csv) to ``path``; what the app should show."""
    body, expect = make_income_csv(column, rows, seed, name=path.name)
    path.write_bytes(body)
    return expect


def upload_and_check(page, path: Path, expect: dict) -> None:
    """On the Data page: upload, then the cleaning report and the sidebar describe this file."""
    upload_data(page, str(path))
    report = f"{expect['read']:,} rows read, {expect['kept']:,} kept."
    page.locator('[data-testid="stAlert"]', has_text=report).wait_for()
    sidebar_has(page, f"{expect['name']} · {expect['column']}")
    wait_idle(page)
    alert = page.locator('[data-testid="stAlert"]', has_text=report).inner_text()
    assert "1 non-numeric cell dropped." in alert
    assert "1 negative value set to 0." in alert
    assert "1 value above U set to U." in alert
    sidebar_has(page, f"{expect['kept']:,} records after cleaning")
    sidebar_has(page, "uploaded, kept for this session only")
    assert page.locator(f"{key('data_column')} input").input_value() == expect["column"]
    page.locator(f"{key('chart_data_histogram')} .main-svg").first.wait_for()
    assert_clean(page)


def test_uploaded_csv_runs_in_the_explorer(page, server, tmp_path):
    expect = income_csv(tmp_path / "zorblax.csv", "zorblax_income", rows=240, seed=7)
    open_app(page, server.url)
    goto_page(page, "Data")
    upload_and_check(page, tmp_path / "zorblax.csv", expect)

    goto_page(page, "Explorer")
    sidebar_has(page, "zorblax.csv · zorblax_income")
    run_q3(page)
    assert "zorblax.csv · Q3" in chart_title(page, "explorer_answers")
    assert true_answers(page) == pytest.approx(expect["truth"], rel=1e-12)
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 1
    assert_clean(page)


def test_bad_uploads_are_refused_and_previous_data_kept(page, server, tmp_path):
    manifest = json.loads((BAD / "manifest.json").read_text())
    expect = income_csv(tmp_path / "good.csv", "good_income", rows=50, seed=3)
    open_app(page, server.url)
    goto_page(page, "Data")
    upload_and_check(page, tmp_path / "good.csv", expect)

    for bad in ("binary.csv", "excel_renamed.csv"):  # a binary file, an .xlsx renamed .csv
        message = manifest[bad]["error"]
        page.locator(f"{key('data_upload')} input[type=file]").set_input_files(str(BAD / bad))
        error = page.locator(ERROR, has_text=message)
        error.wait_for()
        wait_idle(page)
        assert error.inner_text().startswith(f"Could not use {bad}:"), error.inner_text()
        assert page.locator(ERROR).count() == 1, page.locator(ERROR).all_inner_texts()
        assert page.locator(EXCEPTION).count() == 0
        page.get_by_text("Your previous data is still loaded.").wait_for()
        # the good file is still the data: sidebar, column, cleaning report
        sidebar_has(page, "good.csv · good_income")
        sidebar_has(page, f"{expect['kept']:,} records after cleaning")
        assert page.locator(f"{key('data_column')} input").input_value() == "good_income"
        page.locator('[data-testid="stAlert"]', has_text=f"{expect['read']} rows read").wait_for()
