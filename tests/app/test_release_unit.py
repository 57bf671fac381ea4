"""Issue 24 §3: the unit of privacy belongs to the file that is released. A release file gets
its own choice; the planning file's is never carried over; nothing is released before it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean, kept, new_app
from streamlit.testing.v1 import AppTest

from dpsum_core.data.identifiers import looks_like_identifier
from dpsum_ui.datasets import ONE_ROW
from dpsum_ui.page_state import ReleaseState

RELEASE = "jobs_2025.csv"


def _jobs(seed: int = 3) -> bytes:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"person": rng.integers(0, 150, 600), "income": rng.uniform(0, 9e4, 600)})
    return frame.to_csv(index=False).encode()


def _planning_by_person_then_release_file() -> AppTest:
    """Planning on a per-person upload (identifier ``person``), then a release file that also
    has a ``person`` column."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("plan.csv", _jobs(), "text/csv")).run()
    at.button(key="domain_keep").click().run()
    at.selectbox(key="data_column").set_value("income").run()
    at.selectbox(key="data_id_column").set_value("person").run()
    at.radio(key="release_data").set_value("upload").run()
    at.file_uploader(key="release_data_upload").set_value((RELEASE, _jobs(), "text/csv")).run()
    assert_clean(at)
    return at


def _release_infos(at: AppTest) -> str:
    at.switch_page("app_pages/release.py").run()
    return " ".join(i.value for i in at.info) + " ".join(w.value for w in at.warning)


def test_the_planning_files_unit_is_not_carried_over_to_the_release_file():
    at = _planning_by_person_then_release_file()
    box = at.selectbox(key="release_id_column")
    assert box.value is None  # not chosen: neither the planning file's person nor one row
    assert "not carried over" in box.proto.placeholder
    assert at.session_state["data_id_column"] == "person"  # the planning file keeps its own
    text = _release_infos(at)
    assert "release file's unit of privacy is not chosen" in text
    assert at.checkbox(key="release_unit_confirm").disabled
    at.number_input(key="release_total").set_value(0.05).run()
    assert at.checkbox(key="release_confirm").disabled and at.button(key="release_go").disabled


def test_the_release_files_own_identifier_is_used_for_the_release():
    at = _planning_by_person_then_release_file()
    at.selectbox(key="release_id_column").set_value("person").run()
    at.switch_page("app_pages/release.py").run()
    assert "Unit of privacy: one person = all rows with the same 'person'" in " ".join(
        m.value for m in at.markdown
    )
    at.number_input(key="release_total").set_value(0.05).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    assert kept(at, ReleaseState).last.id_column == "person"
    assert kept(at, ReleaseState).ledger.id_column == "person"


def test_one_row_per_person_must_be_chosen_explicitly_and_another_file_asks_again():
    at = _planning_by_person_then_release_file()
    at.selectbox(key="release_id_column").set_value(ONE_ROW).run()
    assert "not chosen" not in _release_infos(at)
    assert not at.checkbox(key="release_unit_confirm").disabled
    at.switch_page("app_pages/data.py").run()
    at.file_uploader(key="release_data_upload").set_value(("other.csv", _jobs(seed=4), "text/csv")).run()
    assert at.selectbox(key="release_id_column").value is None
    assert "release file's unit of privacy is not chosen" in _release_infos(at)


def test_a_file_with_an_identifier_like_column_is_not_one_row_per_person_by_default():
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("jobs.csv", _jobs(), "text/csv")).run()
    at.button(key="domain_keep").click().run()
    at.selectbox(key="data_column").set_value("income").run()
    text = _release_infos(at)  # the same file for planning and release, no identifier chosen
    assert "Column person repeats values that look like codes of people" in text
    assert at.checkbox(key="release_unit_confirm").disabled
    at.checkbox(key="release_one_row_sure").check().run()
    assert not at.checkbox(key="release_unit_confirm").disabled
    assert "look like codes of people" not in _release_infos(at)


@pytest.mark.parametrize(
    ("cells", "looks"),
    [
        (["A1", "B2", "A1"], True),  # text codes, repeated
        (["7", "12", "7", "3"], True),  # integer codes, repeated
        (["1.5", "2.25", "1.5"], False),  # another measurement
        (["A1", "B2", "C3"], False),  # no repeated value: one row per code
    ],
)
def test_what_looks_like_an_identifier(cells, looks):
    assert looks_like_identifier(pd.Series(cells)) is looks


def test_with_an_identifier_chosen_the_blocker_asks_only_to_tick_the_box():
    """With 'person' chosen, the blocker still said "or choose the column that identifies a
    person on the Data page" (a researcher had already chosen it)."""
    at = _planning_by_person_then_release_file()
    at.selectbox(key="release_id_column").set_value("person").run()
    text = _release_infos(at)
    assert "unit of privacy is not confirmed" in text and "tick its box" in text
    assert "on the Data page" not in text


def test_the_sidebar_counts_people_when_an_identifier_groups_the_rows():
    """The sidebar said "600 records after cleaning" for a file read by person: the records are
    the people (each person's rows summed), not the rows."""
    at = _planning_by_person_then_release_file()
    at.switch_page("app_pages/explorer.py").run()
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "people after cleaning, from 600 rows" in captions, captions
    assert "600 records" not in captions and "(records)" not in captions  # researcher P3-2
