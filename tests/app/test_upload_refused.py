"""A file the app refuses is not left listed in the uploader's box (researcher's review P3-6:
'wide.csv' stayed beside '+ add' under 'Could not use wide.csv', as if several files were
loaded): the box is reset, the error under it says why, and the data in use stays."""

from __future__ import annotations

import pytest
from app_helpers import assert_clean, errors, new_app
from streamlit.testing.v1 import AppTest

GOOD = b"amount\n" + b"".join(f"{10 + i % 90}\n".encode() for i in range(200))
BAD = b"\x00\x01\x02 not a table"


def _page(key: str = "data_upload") -> AppTest:
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    if key == "data_upload":
        at.radio(key="data_source").set_value("upload").run()
    else:
        at.radio(key="release_data").set_value("upload").run()
    return at


def _upload(at: AppTest, key: str, name: str, content: bytes) -> AppTest:
    return at.file_uploader(key=key).set_value((name, content, "text/csv")).run()


def test_a_refused_planning_file_leaves_the_box_empty_and_the_data_in_use() -> None:
    at = _upload(_page(), "data_upload", "good.csv", GOOD)
    assert_clean(at)
    assert at.file_uploader(key="data_upload").value is not None  # an accepted file stays
    for attempt in range(2):  # each refusal resets the box again
        _upload(at, "data_upload", f"bad{attempt}.csv", BAD)
        assert not at.exception
        (error,) = errors(at)
        assert error.startswith(f"Could not use bad{attempt}.csv"), error
        assert at.file_uploader(key="data_upload").value is None  # old: the refused file
        assert "Your previous data is still loaded." in [c.value for c in at.caption]
        in_use = " ".join(s.value for s in at.success)
        assert "In use: **good.csv**" in in_use, in_use  # said under the empty box
    _upload(at, "data_upload", "good2.csv", GOOD)
    assert_clean(at)
    assert at.session_state["_data"].upload.name == "good2.csv"


def test_a_refused_release_file_leaves_its_box_empty() -> None:
    at = _upload(_page("release_data_upload"), "release_data_upload", "bad.csv", BAD)
    assert not at.exception
    assert any(e.startswith("Could not use bad.csv") for e in errors(at)), errors(at)
    assert at.file_uploader(key="release_data_upload").value is None


def test_a_file_the_browser_refused_as_too_large_is_said_with_what_to_do() -> None:
    """The browser refuses a file above the upload limit without telling the app; the page's
    script presses the uploader's hidden button (tests/e2e/test_upload_refused.py): the error
    says the limit in force and what to do, the box is reset and the data in use stays."""
    at = _upload(_page(), "data_upload", "good.csv", GOOD)
    for refused in range(2):
        at.button(key="data_upload_too_big").click().run()
        assert not at.exception
        (error,) = errors(at)
        assert error.startswith("That file is larger than the 200 MB upload limit"), error
        for what in ("random sample", "one total per person", "dpsum run --engine duckdb",
                     "a server dataset"):
            assert what in error, what
        assert at.session_state["_data"].refused == (refused + 1, 0)  # the box is reset
        assert "Your previous data is still loaded." in [c.value for c in at.caption]
    assert at.session_state["_data"].upload.name == "good.csv"
    release = _page("release_data_upload")
    release.button(key="release_data_upload_too_big").click().run()
    assert not release.exception
    (error,) = [e for e in errors(release) if "upload limit" in e]
    assert "release it with the command line" in error and "dpsum release" in error
    assert release.session_state["_data"].refused == (0, 1)


def test_the_limit_said_is_the_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server started with another server.maxUploadSize refuses above that limit: the error
    says that one (the uploader's own limit, given back after a reset, is dpsum's)."""
    import streamlit as st

    from dpsum_ui import oversize

    options = {"server.maxUploadSize": 50}
    monkeypatch.setattr(st, "get_option", options.__getitem__)  # set only at start-up
    assert oversize.limit_mb(0) == 50 and oversize.limit_mb(2) == 50
    assert oversize.limit_mb(1) == 200  # uploader_size(1): dpsum's own limit, given explicitly
    # the script finds an uploader's button by its key and this suffix
    assert all(button == key + oversize.SUFFIX for key, button in oversize.BUTTONS.items())
    assert oversize.message(50, "planning").startswith(
        "That file is larger than the 50 MB upload limit")
