"""The browser asks before leaving while a release or its ledger exists only in the session
(researcher's review P2-5: one reload lost both without a word), and never once they are
downloaded or when nothing was released. Playwright sees the ``beforeunload`` dialog once
the page has had a user gesture (the clicks here)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import (
    assert_clean,
    goto_page,
    open_app,
    release_now,
    set_number,
    wait_idle,
)
from tests.e2e.test_downloads import download

pytestmark = pytest.mark.e2e


def _dialogs(page) -> list[str]:
    """The types of the dialogs the page opens from now on (each accepted: the page leaves)."""
    seen: list[str] = []

    def answer(dialog) -> None:
        seen.append(dialog.type)
        dialog.accept()

    page.on("dialog", answer)
    return seen


def _release(page) -> None:
    release_now(page, 0.05)
    page.get_by_text("Released: ε = 0.01 spent").wait_for(timeout=60_000)
    wait_idle(page)
    assert_clean(page)


def _flag(page, armed: bool) -> None:
    """Wait until the page's script has set the warning as the last run decided (a download's
    rerun ends a moment after the file is saved)."""
    page.wait_for_function(f"() => window.__dpsumUnsaved === {'true' if armed else 'false'}")


def _reload(page) -> None:
    page.reload()
    page.locator("h1").first.wait_for()
    wait_idle(page)


def test_a_reload_after_a_release_asks_first(page, server) -> None:
    dialogs = _dialogs(page)
    open_app(page, server.url)
    _release(page)
    goto_page(page, "Explorer")  # moving between the app's pages never asks
    goto_page(page, "Release")
    assert dialogs == []
    _flag(page, armed=True)
    _reload(page)
    assert dialogs == ["beforeunload"]
    page.get_by_text("Spent so far: ε = 0 in 0 releases").wait_for()  # what the reload lost


def test_no_question_once_the_ledger_and_the_release_are_downloaded(page, server) -> None:
    dialogs = _dialogs(page)
    open_app(page, server.url)
    _release(page)
    download(page, "release_ledger_download")
    wait_idle(page)
    _flag(page, armed=True)  # the release is still only here
    download(page, "release_answers_csv")
    wait_idle(page)
    _flag(page, armed=False)
    _reload(page)
    assert dialogs == []


def test_no_question_when_nothing_was_released(page, server) -> None:
    dialogs = _dialogs(page)
    open_app(page, server.url)
    goto_page(page, "Release")
    set_number(page, "release_total", 0.05)  # a gesture: the browser could ask
    wait_idle(page)
    _flag(page, armed=False)
    _reload(page)
    assert dialogs == []
