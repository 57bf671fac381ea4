"""Review 9 P1-2: an ε carried from Decide ("Use ε = … on the Release page"), found on the
data released, is said in the release's files (release.json, report.md/html), not only on the
page; a release whose ε was not carried says nothing of it."""

from __future__ import annotations

import json

from app_helpers import assert_clean, kept, new_app
from streamlit.testing.v1 import AppTest

from dpsum_core.text import EPSILON_FROM_DATA
from dpsum_ui import keys as K
from dpsum_ui import release as release_view
from dpsum_ui.page_state import ReleaseState

PAGE = "app_pages/release.py"


def _release(at: AppTest) -> AppTest:
    from test_release_page import _release as release

    release(at, 1.0)
    assert_clean(at)
    return at


def _carried(at: AppTest) -> AppTest:
    """From the explorer: Q3, Decide, its "Use ε = …" button, the Release page."""
    at.selectbox(key="workload_kind").select("Q3")
    at.number_input(key="trials").set_value(10)
    at.run()
    at.switch_page("app_pages/decide.py").run()
    assert_clean(at)
    at.button(key=K.DECIDE_TO_RELEASE).click().run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    return at


def _files(at: AppTest) -> tuple[dict, str, str]:
    rel = kept(at, ReleaseState).last
    assert rel is not None
    record = json.loads(release_view.record_json(rel, "sample"))
    page, text, _ = release_view.report_files(rel, "incomes.csv", "sample")
    return record, text.decode(), page.decode()


def test_an_epsilon_carried_from_decide_is_said_in_the_release_files() -> None:
    at = new_app()
    at.run()
    _carried(at)
    assert "not covered by the privacy guarantee" in " ".join(i.value for i in at.info)
    record, text, page = _files(_release(at))
    assert record["epsilon_chosen_from_data"] is True  # old: no such field
    assert record["epsilon_note"] == EPSILON_FROM_DATA
    assert EPSILON_FROM_DATA in text and "Only the choice of ε itself looked at this data" in page


def test_an_epsilon_not_carried_leaves_the_files_as_they_were() -> None:
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3")
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    record, text, _ = _files(_release(at))
    assert "epsilon_chosen_from_data" not in record and "epsilon_note" not in record
    assert "not covered" not in text


def test_an_epsilon_carried_from_another_planning_file_is_not_flagged() -> None:
    """Decide read the planning sample; the release file is another (the Data page's release
    upload): the ε does not depend on the data released, and the files say nothing of it."""
    from test_planning_data import _two_files

    at = _two_files()
    at.switch_page("app_pages/explorer.py").run()
    _carried(at)
    assert "is the one Decide gave" in " ".join(i.value for i in at.info)  # it was carried
    record, text, _ = _files(_release(at))
    assert "epsilon_chosen_from_data" not in record
    assert EPSILON_FROM_DATA not in text
