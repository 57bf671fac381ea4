"""A file the app refuses is not left listed in the uploader's box (researcher's review P3-6:
'wide.csv' stayed beside '+ add' under 'Could not use wide.csv', as if several files were
loaded): the box is reset, the error under it says why, and the data in use stays."""

from __future__ import annotations

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
