"""Issue 27.3 on the Data page: an upload is listed without being decoded, the chosen value
and identifier columns alone are decoded, and what it holds counts against the process-wide
budget until the session drops it."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean, charts, errors, title
from streamlit.testing.v1 import AppTest

from dpsum_ui import uploads


def _parquet() -> bytes:
    rows = 600
    frame = pd.DataFrame({
        "note": ["x" * 50] * rows,
        "amount": np.arange(rows, dtype=float),
        "pid": [f"p{i % 200}" for i in range(rows)],
        "hours": np.arange(rows) % 40,
        "blob": ["y" * 200] * rows,
    })  # fmt: skip
    buf = io.BytesIO()
    frame.to_parquet(buf)
    return buf.getvalue()


def _decoded(at: AppTest) -> list[list[str]]:
    """The columns of each frame this session decoded from its upload."""
    memo = at.session_state["_memo"]
    return [sorted(df.columns) for df in memo.get("decoded", {}).values()]


@pytest.fixture
def page(app: AppTest) -> AppTest:
    app.switch_page("app_pages/data.py").run()
    app.radio(key="data_source").set_value("upload").run()
    return app


def test_a_column_and_an_identifier_are_chosen_and_decoded_alone(page: AppTest) -> None:
    page.file_uploader(key="data_upload").set_value(
        ("people.parquet", _parquet(), "application/octet-stream")
    )
    page.run()
    assert_clean(page)
    column = page.selectbox(key="data_column")
    assert column.options == ["amount", "hours"] and column.value == "amount"
    assert _decoded(page) == [["amount"]]  # nothing else of the file was decoded
    column.set_value("hours").run()
    ids = page.selectbox(key="data_id_column")
    named = [o.rsplit(" ", 1)[-1].strip("'") for o in ids.options[1:]]  # …the same 'NAME'
    assert named == ["note", "amount", "pid", "blob"]  # every other column may name a person
    ids.set_value("pid").run()
    assert_clean(page)
    assert ["hours", "pid"] in _decoded(page)
    assert all("note" not in d and "blob" not in d for d in _decoded(page))
    assert "600 rows → 200 people" in " ".join(w.value for w in [*page.success, *page.warning])
    assert "people.parquet: hours" in title(charts(page)[-1])
    assert uploads.HELD.used >= len(_parquet())


def test_an_upload_is_refused_when_the_server_budget_is_full(page: AppTest, monkeypatch) -> None:
    monkeypatch.setattr(uploads, "HELD", uploads.ByteBudget(1000))
    page.file_uploader(key="data_upload").set_value(
        ("people.parquet", _parquet(), "application/octet-stream")
    )
    page.run()
    assert not page.exception
    (error,) = errors(page)
    assert "people.parquet" in error and "try again later" in error


def test_an_uploaded_files_names_are_text_in_titles_and_messages(page: AppTest) -> None:
    """Issue 27.5 on screen: a file named like a link and an identifier named like an image
    are shown as text in the chart titles, never as Plotly markup."""
    link = '<a href="https://evil.example/login">Session expired</a>.csv'
    frame = pd.DataFrame({"v": [1.0, 2.0, 3.0, 4.0], "<img src=x onerror=alert(1)>": list("abab")})
    page.file_uploader(key="data_upload").set_value(
        (link, frame.to_csv(index=False).encode(), "text/csv")
    )
    page.run()
    assert_clean(page)
    page.selectbox(key="data_id_column").set_value("<img src=x onerror=alert(1)>").run()
    assert_clean(page)
    shown = title(charts(page)[-1])
    assert shown.startswith("&lt;a href=")
    assert "<a " not in shown and "<img" not in shown and "&lt;img src=x" in shown
    warned = " ".join(w.value for w in page.warning)
    assert "**Set U for \\<a href=" in warned  # Markdown shows it as typed
