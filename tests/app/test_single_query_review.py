"""Single query after the new-user reviews (researcher P3-2, P3-4; statistician P3-6, P3-8): the
page opens on TaMM (its θ is the slider; the ★ named under the picker) unless a link names one, says beside its numbers that they are
computed without noise, and counts people, not records, when a person is the unit of privacy
(there, on the Data page's histogram and in the sidebar)."""

from __future__ import annotations

import re

from app_helpers import assert_clean, charts, lesson, new_app, open_link
from streamlit.testing.v1 import AppTest
from test_data_people import _jobs, _upload

from dpsum_core.mechanisms.recommend import recommend
from dpsum_ui.teaching import UNNOISED


def _single_query(at: AppTest) -> AppTest:
    at.switch_page("app_pages/single_query.py").run()
    assert_clean(at)
    return at


def _frame(at: AppTest) -> str:
    (frame,) = [f.proto.srcdoc for f in at.get("iframe") if 'id="lesson-data"' in f.proto.srcdoc]
    return frame


def test_the_page_opens_on_tamm_and_names_the_star_for_releases() -> None:
    """Review 9, P2-7: the page opened on the ★ (ClampShells), whose θ is hypothetical (it
    chooses its own; its answers do not move with the slider). A lesson on truncation now opens
    on TaMM, whose θ is the slider, and one line keeps the ★ in view; picking ClampShells keeps
    its own explanation (θ shows where it would cut) and drops the line."""
    at = new_app()
    at.run()
    at = _single_query(at)
    want = recommend(epsilon=0.01, upper=800_000.0, bins=1000, workload="Q1").algorithm
    assert want == "clampshells"
    picker = at.button_group(key="teach_algorithm")
    assert picker.value == "tamm" and lesson(at)["algorithm"] == "tamm"
    assert "★ ClampShells" in picker.options
    line = ("★ recommended for releases: ClampShells. The lesson uses TaMM because its θ is the "
            "slider.")  # fmt: skip
    assert line in [c.value for c in at.caption]
    assert "opens on TaMM" in picker.help
    picker.set_value("clampshells").run()
    assert_clean(at)
    assert lesson(at)["algorithm"] == "clampshells"
    assert line not in [c.value for c in at.caption]
    assert "chooses its own θ" in _frame(at)


def test_the_page_opens_on_the_star_of_its_own_settings() -> None:
    """Above ε = 3 the ★ is RawSum: the page still opens on TaMM, and the line names RawSum."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/explorer.py").run()
    at.session_state["epsilon"] = 5.0
    at = _single_query(at.run())
    assert at.button_group(key="teach_algorithm").value == "tamm"
    assert any(c.value.startswith("★ recommended for releases: RawSum.") for c in at.caption)


def test_a_link_that_names_an_algorithm_opens_on_it() -> None:
    at = open_link("app_pages/single_query.py", {"algorithm": "identity"})
    assert_clean(at)
    assert at.button_group(key="teach_algorithm").value == "identity"
    assert lesson(at)["algorithm"] == "identity"


def test_a_choice_made_on_the_page_is_kept() -> None:
    at = new_app()
    at.run()
    at = _single_query(at)
    at.button_group(key="teach_algorithm").set_value("sqm").run()
    at.switch_page("app_pages/about.py").run()
    at = _single_query(at)
    assert at.button_group(key="teach_algorithm").value == "sqm"


def test_the_numbers_are_labelled_as_computed_without_noise() -> None:
    """Old: only the downloaded lesson's footer said it; the frame on a projector did not."""
    at = new_app()
    at.run()
    frame = _frame(_single_query(at))
    found = re.search(r'<p class="hint" id="unnoised">(.*?)</p>', frame)
    assert found and found.group(1) == UNNOISED
    assert "without noise" in UNNOISED and "not for publication" in UNNOISED
    # beside the numbers: in their column, after them, before the chart
    assert frame.index('id="numbers"') < frame.index('id="unnoised"') < frame.index('id="chart"')


SIDEBAR_MARK = "(exact, without noise: not for publication)"  # third audit P3-4


def _sidebar_count(at: AppTest) -> str:
    (said,) = [c.value for c in at.sidebar.caption if "after cleaning" in c.value]
    return said


def _histogram_axis(at: AppTest) -> str:
    (axis,) = [s["layout"]["yaxis"]["title"]["text"] for s in charts(at)
               if "(log scale)" in str(s["layout"].get("yaxis", {}).get("title", ""))]  # fmt: skip
    return axis


def test_people_are_counted_as_people_when_a_person_is_the_unit() -> None:
    """Researcher P3-2: under person_id the page said "5,843 records between θ and τ", the
    histogram "records (log scale)", the sidebar "8,936 people (records)"."""
    at = _upload("jobs.csv", _jobs())
    assert _histogram_axis(at) == "records (log scale)"  # one row per person: rows
    assert _sidebar_count(at).endswith(f"records after cleaning {SIDEBAR_MARK}")
    at.selectbox(key="data_id_column").set_value("person_id").run()
    assert _histogram_axis(at) == "people (log scale)"
    (spec,) = [s for s in charts(at) if "(log scale)" in str(s["layout"]["yaxis"])]
    assert "people per bin" in spec["layout"]["title"]["text"]
    assert "records" not in str(spec["data"][0].get("hovertemplate"))
    said = _sidebar_count(at)
    assert re.fullmatch(r"400 people after cleaning, from [\d,]+ rows " + re.escape(SIDEBAR_MARK),
                        said), said  # fmt: skip
    at = _single_query(at)
    at.button_group(key="teach_algorithm").set_value("identity").run()
    notes = lesson(at)["notes"]["truncation"]
    assert all(re.fullmatch(r"[\d,]+ (people|person) between θ and τ", n) for n in notes), notes
