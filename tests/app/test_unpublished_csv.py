"""CSV files computed from the data without noise are marked as such (economist's review P2-2:
the Explorer's answers CSV held the true answer, the Data page's histogram CSV exact counts and
summary.csv true answers, under names like a release's, with no mark): each name has a
``_not_for_publication`` part and each file a last column ``notice``, in every row, with the
PNG downloads' wording."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
import streamlit as st
from app_helpers import assert_clean, run_explorer

from dpsum_core.plots.export import NOT_FOR_PUBLICATION_MARK
from dpsum_core.publish.csvfile import csv_bytes
from dpsum_ui import tables

MARK = "_not_for_publication.csv"


@pytest.fixture
def offered(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[str, Callable[[], Any]]]:
    """Every download button drawn: key → (file name, its data, a callable or the bytes)."""
    seen: dict[str, tuple[str, Callable[[], Any]]] = {}
    real = st.download_button

    def recording(*args: Any, **kwargs: Any) -> Any:
        data = kwargs["data"] if "data" in kwargs else args[1]
        seen[kwargs["key"]] = (kwargs["file_name"], data if callable(data) else lambda: data)
        return real(*args, **kwargs)

    monkeypatch.setattr(st, "download_button", recording)
    return seen


def _read(data: Callable[[], Any]) -> pd.DataFrame:
    raw = data()
    return pd.read_csv(io.BytesIO(raw if isinstance(raw, bytes) else raw.encode()))


def _marked(frame: pd.DataFrame) -> None:
    assert frame.columns[-1] == tables.NOTICE_COLUMN
    assert (frame[tables.NOTICE_COLUMN] == NOT_FOR_PUBLICATION_MARK).all()
    assert "Not for publication" in NOT_FOR_PUBLICATION_MARK


def test_the_explorers_answers_and_summary_csv_are_marked(small, offered) -> None:
    run_explorer(small)
    assert_clean(small)
    name, data = offered["dl_explorer_answers_csv"]
    assert name.endswith(MARK) and "_answers_" in name
    answers = _read(data)
    _marked(answers)
    assert "true answer" in answers.to_csv()  # what made it unsafe to forward unmarked
    small.session_state["explorer_tab"] = "Summary & budget"
    small.run()
    assert_clean(small)
    name, data = offered["share_summary_csv"]
    assert name.endswith("_summary" + MARK)
    summary = _read(data)
    _marked(summary)
    assert "true_answer" in summary.columns
    # the CLI's summary.csv columns and numbers, the notice after them
    memo = small.session_state["_memo"]["result"]
    (result,) = [r for r in memo.values() if hasattr(r, "summary")][-1:]
    cli = pd.read_csv(io.BytesIO(csv_bytes(result.summary())))
    pd.testing.assert_frame_equal(summary.drop(columns=tables.NOTICE_COLUMN), cli)


def test_the_data_pages_histogram_csv_is_marked(app, offered) -> None:
    app.switch_page("app_pages/data.py").run()
    assert_clean(app)
    name, data = offered["dl_data_histogram_csv"]
    assert name.endswith("_histogram" + MARK)
    _marked(_read(data))


def test_decides_curves_csv_is_marked(small, offered) -> None:
    small.switch_page("app_pages/decide.py")
    small.session_state["decide_table"] = True  # the table and its CSV are built only open
    small.run()
    assert_clean(small)
    name, data = offered["decide_csv"]
    assert name.endswith("_error_vs_epsilon" + MARK)
    _marked(_read(data))


def test_a_stem_is_marked_once() -> None:
    assert tables.unpublished_name("a_b", "csv") == "a_b_not_for_publication.csv"
    assert tables.unpublished_name("a_not_for_publication", "csv") == "a_not_for_publication.csv"
