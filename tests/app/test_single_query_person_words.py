"""What q_τ sums, said on Single query, in the guide and in About (fix6's loose end): with an
identifier column the query sums people's totals ≤ τ (dpsum_core.text.summed), not the values
≤ τ; one row per person keeps the row-level words (the page's first line as recorded)."""

from __future__ import annotations

from app_helpers import assert_clean, lesson, new_app
from streamlit.testing.v1 import AppTest
from test_data_people import _jobs, _upload

from dpsum_ui import guide

PER_ROW = "q_τ = the total of the values ≤ τ. Move θ"  # the recorded first line (goldens)
PER_PERSON = (
    "q_τ = the total of the people's totals ≤ τ (a person's total: all their rows summed, then "
    "clipped to [0, U]). Move θ"
)


def _single_query(at: AppTest) -> AppTest:
    at.switch_page("app_pages/single_query.py").run()
    assert_clean(at)
    return at


def _said(at: AppTest) -> dict[str, str]:
    """The page's first line, the workload's help, the guide's box, the lesson's truncation
    and binning explanations and short notes (at the first θ), and its huge-value demo."""
    payload = lesson(at)
    notes, binning, demo = (payload["cards"]["truncation"], payload["cards"]["binning"],
                            payload["demo"])  # fmt: skip
    (box,) = [i.value for i in at.info if str(i.value).startswith("**Step 3")]
    return {
        "first": at.caption[0].value,
        "workload": at.selectbox(key="workload_kind").help,
        "guide": box,
        "lesson": notes["long"][0],
        "short": notes["short"][0],
        "binning": binning["long"],
        "binning_short": binning["short"][0],
        "demo": f"{demo['title']}. {demo['intro']}",
    }


def test_with_an_identifier_column_the_page_says_it_sums_peoples_totals() -> None:
    at = _upload("jobs.csv", _jobs())
    at.toggle(key="guide").set_value(True).run()
    at = _single_query(at)
    at.button_group(key="teach_algorithm").set_value("identity").run()  # θ moved, not its own
    row = _said(at)
    assert row["first"].startswith(PER_ROW), row["first"]
    assert "people" not in " ".join(row.values()), row
    assert row["binning_short"].startswith("Values count as the upper edge of their bin (bins")
    assert "so the values count as the upper edge of their bin" in row["binning"]
    assert row["demo"].startswith("Add one person with a huge value. A newcomer with the value ")

    at.switch_page("app_pages/data.py").run()
    at.selectbox(key="data_id_column").set_value("person_id").run()
    person = _said(_single_query(at))
    # old: "q_τ = the total of the values ≤ τ", "sums every value ≤ τ", "adds up every value"
    assert person["first"].startswith(PER_PERSON), person["first"]
    assert "Query q_τ sums the people's totals ≤ τ." in person["workload"]
    assert "q_τ adds up the people's totals ≤ τ" in person["guide"]
    assert "totals above θ count as θ" in person["guide"]
    assert "q_τ sums the people's totals ≤ τ" in person["lesson"]
    assert "largest total ≤ τ" in person["lesson"]
    assert person["short"].startswith("People's totals above θ = ")
    # fix9: the binning card and the huge-value demo (old: "Each record counts as its bin's
    # upper edge", "so each record counts as", "A newcomer with the value …, the largest value")
    assert person["binning_short"].startswith("People's totals count as the upper edge of their")
    assert "so the people's totals count as the upper edge of their bin" in person["binning"]
    assert person["demo"].startswith("Add one person with a huge total. A newcomer whose total")
    assert "the largest total q_τ counts (a total above τ" in person["demo"]
    at.button_group(key="teach_algorithm").set_value("sqm").run()  # sums them exactly
    short = lesson(at)["cards"]["binning"]["short"]
    assert short == "SQM sums the people's totals exactly: no binning bias.", short
    for said in person.values():
        assert "values ≤ τ" not in said and "value ≤ τ" not in said, said
        assert "record" not in said, said


def test_the_guide_words_follow_the_unit() -> None:
    row, person = guide.text("single-query"), guide.text("single-query", by_person=True)
    assert row == guide.TEXTS["single-query"] and "adds up the values ≤ τ" in row
    assert "adds up the people's totals ≤ τ" in person and "values ≤ τ" not in person
    assert guide.text("data", by_person=True) == guide.TEXTS["data"]  # only Step 3 defines q_τ


def test_the_about_glossary_defines_the_query_both_ways() -> None:
    at = new_app()
    at.run()
    at.switch_page("app_pages/about.py").run()
    assert_clean(at)
    (entry,) = [m.value for m in at.markdown if "**Prefix-sum query q_τ**" in m.value]
    assert "the total of all values ≤ τ" in entry
    assert "the total of the people's totals ≤ τ" in entry  # old: values only
    assert "clipped to [0, U]" in entry
