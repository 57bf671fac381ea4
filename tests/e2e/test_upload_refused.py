"""A file the app refuses leaves the uploader's box empty (researcher's review P3-6: refused
files stayed listed beside "+ add" as if several were loaded); the error under the box names
the file, and the file in use is said under it."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import (
    ERROR,
    ROOT,
    assert_clean,
    goto_page,
    key,
    open_app,
    upload_data,
    upload_payload,
    wait_idle,
)

pytestmark = pytest.mark.e2e

GOOD = b"amount\n" + b"".join(f"{10 + i % 90}\n".encode() for i in range(200))
CHIP = '[data-testid="stFileChip"]'  # a file listed in the box


def test_a_refused_file_is_not_left_in_the_box(page, server) -> None:
    open_app(page, server.url)
    goto_page(page, "Data")
    upload_data(page, upload_payload("good.csv", GOOD))
    page.get_by_text("Set U for good.csv").wait_for()
    wait_idle(page)
    box = page.locator(key("data_upload"))
    assert box.locator(CHIP).count() == 1  # an accepted file stays listed
    for bad in ("binary.csv", "excel_renamed.csv"):
        box.locator("input[type=file]").set_input_files(str(ROOT / "tests/data/bad" / bad))
        page.locator(ERROR, has_text=f"Could not use {bad}").wait_for()
        wait_idle(page)
        assert box.locator(CHIP).count() == 0, box.inner_text()  # old: the refused file
        page.get_by_text("In use: good.csv").wait_for()
        page.get_by_text("Your previous data is still loaded.").wait_for()
    page.screenshot(path="/tmp/uilinks/upload_refused.png")
    box.locator("input[type=file]").set_input_files(upload_payload("good2.csv", GOOD))
    page.get_by_text("Set U for good2.csv").wait_for()
    wait_idle(page)
    assert box.locator(CHIP).count() == 1 and page.locator(ERROR).count() == 0
    assert_clean(page)
