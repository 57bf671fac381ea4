"""Planning and release data in a real browser (issue 19): with two different files, the
Release page reads the release file only and the other pages the planning file only."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import (
    SIDEBAR,
    assert_clean,
    button,
    chart_title,
    goto_page,
    key,
    open_app,
    run_explorer,
    upload_payload,
    wait_idle,
)

pytestmark = pytest.mark.e2e

PRIVATE = "private_2025.csv"


def _private_csv() -> bytes:
    return b"income\n" + b"\n".join(str(1_000 + 1_733 * i).encode() for i in range(400)) + b"\n"


def _main(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def test_release_reads_the_release_file_and_the_other_pages_the_planning_file(page, server):
    open_app(page, server.url)
    goto_page(page, "Data")
    page.locator(f"{key('data_sample')} input").click()
    page.get_by_role("option", name="incomes_small.csv").click()
    wait_idle(page)
    page.locator(f"{key('release_data')} label", has_text="an uploaded file").click()
    wait_idle(page)
    page.locator(f"{key('release_data_upload')} input[type=file]").set_input_files(
        upload_payload(PRIVATE, _private_csv())
    )
    page.get_by_text(f"Release reads {PRIVATE}").wait_for()
    wait_idle(page)

    goto_page(page, "Explorer")
    run_explorer(page)
    assert "planning data · incomes_small.csv" in chart_title(page, "explorer_answers")
    for title in ("Explorer", "Single query", "Compare", "Decide"):
        goto_page(page, title)
        text = _main(page) + page.locator(SIDEBAR).inner_text()
        assert "planning data incomes_small.csv · income" in text, title
        assert PRIVATE not in _main(page), title  # the sidebar names it, as the release data

    goto_page(page, "Release")
    main = _main(page)
    assert f"release data {PRIVATE} · income" in main
    assert "incomes_small" not in main
    assert "Release data" in page.locator(SIDEBAR).inner_text()
    assert_clean(page)

    # Back on the Data page Streamlit's uploader box is empty; the file in use is named there.
    goto_page(page, "Data")
    page.get_by_text(f"In use: {PRIVATE}").wait_for()
    assert button(page, "release_data_upload_remove").is_visible()
    assert_clean(page)
