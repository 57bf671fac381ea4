"""The Release page: plan from the explorer's settings, confirm, release once, kept ledger."""

from __future__ import annotations

import re

import numpy as np
import pytest
from app_helpers import assert_clean, charts, errors, kept, new_app, title
from streamlit.testing.v1 import AppTest

from dpsum_core.data.reading import load_column
from dpsum_core.publish.above_theta import MARK
from dpsum_core.publish.ledger import Ledger
from dpsum_core.publish.report import answer_cells, isotonic_words
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for
from dpsum_core.text import query_words
from dpsum_ui.page_state import ReleaseState

PAGE = "app_pages/release.py"


@pytest.fixture
def page() -> AppTest:
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3")
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    return at


def _release(at: AppTest, total: float | None = 0.05) -> AppTest:
    if total is not None:
        at.number_input(key="release_total").set_value(total).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    return at


def _frames(at: AppTest) -> list:
    return [df.value for df in at.dataframe]


def test_the_page_starts_from_the_explorers_settings_and_shows_the_expected_error(page):
    # The engine's recommendation from public inputs first (ClampShells at ε = 0.01, never
    # ranked on this data's errors), then the explorer's
    # the recommended one first, marked as what auto runs (the CLI's --algorithm auto)
    assert page.selectbox(key="release_algorithm").options[:2] == ["★ ClampShells (auto)", "SQM"]
    assert page.selectbox(key="release_algorithm").value == "clampshells"
    assert page.selectbox(key="release_truncation").value == "inside"
    assert any(m.value.startswith("★ ClampShells is recommended for ε = 0.01,")
               and "public inputs only" in m.value for m in page.markdown)
    page.selectbox(key="release_algorithm").set_value("tamm").run()
    assert page.selectbox(key="release_truncation").value == "svt"
    text = " ".join(m.value for m in page.markdown)
    assert "Workload **Q3**" in text and "Expected error" in text
    # Nothing can be released before a total is set and the release is confirmed.
    assert page.button(key="release_go").disabled
    page.number_input(key="release_total").set_value(1.0).run()
    assert page.button(key="release_go").disabled
    page.checkbox(key="release_unit_confirm").check().run()
    page.checkbox(key="release_confirm").check().run()
    assert not page.button(key="release_go").disabled


def _origin(at: AppTest) -> str:
    """The sentence saying which settings came from the explorer."""
    (line,) = [m.value for m in at.markdown if "explorer's settings" in m.value]
    return line


def test_one_algorithm_chosen_on_the_explorer_is_the_one_released_and_said_so():
    """Review: an Explorer link with algorithms=tamm, then the Release page: the page started
    on ClampShells (and released it) while it said "from the explorer's settings"."""
    at = new_app(algorithms="tamm", workload="Q3")
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert at.selectbox(key="release_algorithm").value == "tamm"
    assert at.selectbox(key="release_truncation").value == "svt"  # the explorer's, too
    assert _origin(at).endswith(
        "The workload, ε and truncation come from the explorer's settings; the algorithm, "
        "**TaMM**, is the one algorithm chosen on the explorer."
    )
    _release(at)
    rel = kept(at, ReleaseState).last
    assert rel is not None and rel.config["algorithm"] == "tamm"


def test_several_explorer_algorithms_keep_the_recommended_one_and_say_it_is_not_theirs(page):
    # The default explorer compares all seven: the recommended one, and the page says so.
    assert page.selectbox(key="release_algorithm").value == "clampshells"
    line = _origin(page)
    assert line.endswith(
        "The workload and ε come from the explorer's settings; the algorithm, **ClampShells**, "
        "is the recommended one (from public inputs only), not taken from the explorer, which "
        "compared 7 algorithms."
    )
    assert "· from the explorer's settings" not in line
    page.selectbox(key="release_algorithm").set_value("sqm").run()
    assert _origin(page).endswith("the algorithm, **SQM**, is the one chosen above.")


def test_choosing_one_algorithm_on_the_explorer_later_moves_the_release_default(page):
    """The page was opened first (ClampShells); one algorithm chosen on the explorer afterwards
    is the Release page's next start, and a choice made here then stays."""
    page.switch_page("app_pages/explorer.py").run()
    page.button_group(key="algorithms").set_value(["identity"]).run()
    page.switch_page(PAGE).run()
    assert page.selectbox(key="release_algorithm").value == "identity"
    page.selectbox(key="release_algorithm").set_value("clampshells").run()
    assert _origin(page).endswith(
        "the algorithm, **ClampShells**, is the recommended one (from public inputs only), "
        "not Identity, the one algorithm chosen on the explorer."
    )
    page.run()  # a choice made here stays on later reruns
    assert page.selectbox(key="release_algorithm").value == "clampshells"


def test_rawsum_has_only_the_posthoc_truncation(page):
    page.selectbox(key="release_algorithm").select("rawsum").run()
    assert page.selectbox(key="release_truncation").options == ["θ after measuring"]
    assert page.selectbox(key="release_truncation").value == "posthoc"
    assert_clean(page)


def test_the_queries_are_defined_per_row_without_an_identifier(page):
    queries = [c.value for c in page.caption if c.value.startswith("Queries: ")]
    assert queries == [f"Queries: {query_words(False)}."]
    assert "sums of the values ≤ each threshold τ" in queries[0]


def test_release_once_shows_only_private_answers_and_keeps_the_ledger(page):
    _release(page)
    assert_clean(page)
    assert [s.value for s in page.success] == ["Released: ε = 0.01 spent, 0.04 of 0.05 left."]
    book: Ledger = kept(page, ReleaseState).ledger
    assert book.spent == 0.01 and book.total == 0.05
    assert page.checkbox(key="release_confirm").value is False  # confirm again for another
    last = kept(page, ReleaseState).last
    shown = [f for f in _frames(page) if "Private answer" in f.columns]
    # the answers as the report rounds them (two significant digits of the half-width)
    cells = [cell[1] + (f" {MARK}" if above else "")  # † where θ moves it, as the report
             for cell, above in zip(answer_cells(last), last.above_theta, strict=True)]
    assert len(shown) == 1 and list(shown[0]["Private answer"]) == cells
    # the success line stays on later reruns (a download click reruns the page)
    page.run()
    assert [s.value for s in page.success] == ["Released: ε = 0.01 spent, 0.04 of 0.05 left."]
    # No true answer and no N anywhere on the page (tables, text), only the private answers.
    data = load_column("sample_data/incomes.csv", upper=800_000.0)
    truth = inputs_for(data, ExperimentConfig(workload="Q3")).true_answers
    numbers = np.concatenate([f.select_dtypes("number").to_numpy().ravel() for f in _frames(page)])
    assert not np.any(np.isclose(numbers[:, None], truth[None, :], rtol=1e-9))
    text = " ".join(m.value for m in page.markdown) + " ".join(c.value for c in page.caption)
    assert f"{data.size:,}" not in text and str(data.size) not in text
    # which answers the intervals are for, beside the table (third audit P3-1)
    assert last.config["isotonic"] is True and f"Isotonic regression: {isotonic_words(True)}" in text


def test_over_budget_is_refused_and_the_ledger_is_unchanged(page):
    _release(page, total=0.015)
    before = kept(page, ReleaseState).ledger
    assert before.spent == 0.01
    assert page.checkbox(key="release_confirm").disabled
    assert any("not enough budget left" in w.value.lower() for w in page.warning)
    assert page.button(key="release_go").disabled
    assert kept(page, ReleaseState).ledger == before


def test_a_downloaded_ledger_continues_against_the_same_total(page):
    earlier = Ledger(total=0.02).with_release({"epsilon": 0.015, "algorithm": "tamm"})
    page.file_uploader(key="release_ledger_upload").set_value(
        ("dpsum_ledger.json", earlier.to_json().encode(), "application/json")
    ).run()
    assert page.number_input(key="release_total").value == 0.02
    assert kept(page, ReleaseState).ledger.spent == 0.015
    assert any("not enough budget" in w.value.lower() for w in page.warning)  # 0.015+0.01 > 0.02


def test_a_damaged_ledger_upload_is_a_clear_error(page):
    page.file_uploader(key="release_ledger_upload").set_value(
        ("notes.json", b'{"hello": 1}', "application/json")
    ).run()
    assert any("not a dpsum ledger" in e for e in errors(page))
    assert kept(page, ReleaseState).ledger is None


def _warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


def test_a_release_that_spends_the_last_of_the_budget_is_shown_as_released(page):
    """Issue 16 §4: no red "release refused … nothing was drawn" under a successful release."""
    _release(page, total=0.01)
    assert [s.value for s in page.success] == ["Released: ε = 0.01 spent, 0 of 0.01 left."]
    assert errors(page) == [] and kept(page, ReleaseState).last is not None
    assert any("not enough budget left" in w.lower() for w in _warnings(page))


def test_what_is_missing_before_a_release_is_listed(page):
    infos = [i.value for i in page.info]
    assert any("No total ε" in i for i in infos)
    assert any("unit of privacy is not confirmed (one row = one person)" in i for i in infos)
    page.number_input(key="release_total").set_value(1.0).run()
    assert page.checkbox(key="release_confirm").disabled  # the unit is still to be confirmed
    assert page.button(key="release_go").disabled
    page.checkbox(key="release_unit_confirm").check().run()
    page.checkbox(key="release_confirm").check().run()
    assert not page.button(key="release_go").disabled
    assert not any("unit of privacy" in i.value for i in page.info)


def test_the_unit_of_privacy_is_chosen_on_the_data_page_and_shown_on_the_release_page():
    """Issue 16 §2: the Data page's identifier changes the summary (people, not rows) and the
    histogram's subtitle; the Release page and the release name the unit."""
    import pandas as pd

    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"person": rng.integers(0, 300, 2000), "income": rng.uniform(0, 9e4, 2000)})
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(
        ("jobs.csv", frame.to_csv(index=False).encode(), "text/csv")
    ).run()
    at.button(key="domain_keep").click().run()
    at.selectbox(key="data_column").set_value("income").run()
    by_row = " ".join(w.value for w in [*at.success, *at.warning])
    assert "one row = one person" in by_row and "2,000 rows read" in by_row
    id_box = at.selectbox(key="data_id_column")
    assert id_box.options == [
        "One row per person", "One person = all rows with the same 'person'"
    ]  # fmt: skip
    # None is the state's value: Streamlit draws it as the placeholder, which must say so
    assert id_box.value is None and id_box.proto.placeholder == "One row per person"
    id_box.set_value("person").run()
    assert_clean(at)
    people = frame.person.nunique()
    shown = " ".join(w.value for w in [*at.success, *at.warning])
    assert f"2,000 rows → {people} people" in shown, shown
    assert "one person = all rows with the same 'person'" in shown
    assert any("all rows with the same 'person'" in title(spec) for spec in charts(at))
    at.switch_page(PAGE).run()
    assert_clean(at)
    text = " ".join(m.value for m in at.markdown)
    assert "Unit of privacy: one person = all rows with the same 'person'" in text
    # what each query sums, for this unit: people's totals, never "the values" (audit6 P1-1)
    queries = [c.value for c in at.caption if c.value.startswith("Queries: ")]
    assert queries == [f"Queries: {query_words(True)}."]
    _release(at)
    assert_clean(at)
    rel = kept(at, ReleaseState).last
    assert rel.id_column == "person"
    assert "unit of privacy: one person = all rows with the same 'person'" in " ".join(
        m.value for m in at.markdown
    )
    queries = [c.value for c in at.caption if c.value.startswith("Queries: ")]
    assert queries == [f"Queries: {query_words(True)}."] * 2  # the plan's and the release's
    assert all("sums of the values" not in q for q in queries)



def test_a_larger_total_after_an_upload_is_a_recorded_raise_never_silent(page):
    earlier = Ledger(total=0.02).with_release({"epsilon": 0.015, "algorithm": "tamm"})
    page.file_uploader(key="release_ledger_upload").set_value(
        ("dpsum_ledger.json", earlier.to_json().encode(), "application/json")
    ).run()
    page.number_input(key="release_total").set_value(1.0).run()
    assert any("--raise-budget" in e or "raise" in e.lower() for e in errors(page))
    assert page.button(key="release_go").disabled
    page.checkbox(key="release_raise").check().run()
    _release(page, total=None)
    assert_clean(page)
    book: Ledger = kept(page, ReleaseState).ledger
    assert book.total == 1.0 and book.spent == 0.025
    (change,) = book.total_changes
    assert change["old_total"] == 0.02 and change["new_total"] == 1.0


def test_another_datasets_ledger_is_refused_with_both_names(page):
    other = Ledger(total=1.0, fingerprint="sha256:" + "0" * 64, dataset="other.csv")
    page.file_uploader(key="release_ledger_upload").set_value(
        ("dpsum_ledger.json", other.to_json().encode(), "application/json")
    ).run()
    (message,) = [e for e in errors(page) if "belongs to" in e]
    assert "other.csv" in message and "incomes" in message
    assert page.button(key="release_go").disabled


def test_the_report_is_offered_with_the_other_files(page):
    from dpsum_ui.release import report_files

    _release(page)
    labels = {b.proto.label for b in page.get("download_button")}
    assert {"answers.csv", "release.json", "report.html", "report.md"} <= labels
    rel = kept(page, ReleaseState).last
    html, markdown, stem = report_files(rel, "incomes.csv", "sample")
    assert re.fullmatch(r"incomes_\d{8}-\d{6}_[0-9a-f]{6}", stem)  # data, date-time, short id
    assert b"<script" not in html and b"http" not in html  # self-contained, offline
    assert b"incomes.csv" in markdown and b"one row = one person" in markdown


def test_an_upload_whose_u_is_still_the_samples_is_listed_as_missing():
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(
        ("hours.csv", b"hours\n" + b"\n".join(str(i).encode() for i in range(1, 60)), "text/csv")
    ).run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    (note,) = [w.value for w in at.warning if "Before a release can be made" in w.value]
    assert "U is still 800,000, the value set for incomes.csv: set U for hours.csv" in note
    assert "No total ε" in note


def test_the_release_page_credits_u_as_the_data_page_does():
    """A U typed for one upload, still set when another file is uploaded, is credited to the
    user on the Release page (not called "the sample's"), in the Data page's words."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    rows = b"\n".join(str(i).encode() for i in range(1, 60))
    at.file_uploader(key="data_upload").set_value(("a.csv", b"x\n" + rows, "text/csv")).run()
    at.number_input(key="domain_upper").set_value(20_000.0).run()
    at.file_uploader(key="data_upload").set_value(("b.csv", b"y\n" + rows, "text/csv")).run()
    (said,) = [w.value for w in at.warning if "Set U for" in w.value]
    assert "U is still 20,000, the value you entered for a.csv" in said
    at.switch_page(PAGE).run()
    (note,) = [w.value for w in at.warning if "Before a release can be made" in w.value]
    assert "U is still 20,000, the value you entered for a.csv: set U for b.csv" in note
    assert "sample" not in note


def test_a_public_cap_is_offered_for_clampshells_said_and_checked(page):
    """Issue 26 item 4 in the app: an optional public cap for ClampShells, said to be given
    (not read from the data), released at θ = the cap's shell edge; a cap above U is refused."""
    assert page.selectbox(key="release_algorithm").value == "clampshells"
    page.number_input(key="release_public_cap").set_value(100_000.0).run()
    assert_clean(page)
    text = " ".join(m.value for m in page.markdown)
    assert "public cap 100,000 (given, not read from the data)" in text
    _release(page)
    rel = kept(page, ReleaseState).last
    assert rel is not None and rel.config["public_cap"] == 100_000.0
    page.number_input(key="release_public_cap").set_value(10_000_000.0).run()
    assert any("above U" in e and "public cap" in e for e in errors(page))
    # a negative cap is echoed as typed (the field once clamped it to 0: "got 0")
    page.number_input(key="release_public_cap").set_value(-5.0).run()
    assert "Public cap must be > 0, got -5. Change or clear the public cap." in errors(page)
    page.selectbox(key="release_algorithm").set_value("tamm").run()
    assert all(n.key != "release_public_cap" for n in page.number_input)  # TaMM: not offered


def test_no_theta_on_the_page_says_cleaning_clips_at_u_without_a_count(page):
    """A release with no clamp point (truncation none) names cleaning's public clip at U, in
    the report's words, never "θ = ∞" alone nor how many values were clipped."""
    page.selectbox(key="release_algorithm").set_value("identity").run()
    page.selectbox(key="release_truncation").set_value("none").run()
    _release(page, total=1.0)
    assert_clean(page)
    (line,) = [m.value for m in page.markdown if "released θ:" in m.value]
    assert "released θ: none beyond U: cleaning clips values above U to U (a public rule)" in line
    assert "θ = ∞" not in line
    clipped = load_column("sample_data/incomes.csv", upper=800_000.0).report.clipped_above_upper
    # the creation time (06:51:09 held the 51 values clipped by chance) is not a count
    words = re.sub(r"created \S+", "", line)
    assert not re.search(rf"\b({clipped:,}|{clipped})\b", words), line


def _upload(at: AppTest, book: Ledger) -> AppTest:
    at.file_uploader(key="release_ledger_upload").set_value(
        ("dpsum_ledger.json", book.to_json().encode(), "application/json")
    ).run()
    return at


def test_a_ledger_lacking_this_sessions_release_is_refused_and_the_ledger_kept(page):
    """Custodian review P1-1: a release made (and charged) in this session, then an upload of
    another ledger of the same data: the session's release vanished and the total jumped."""
    _release(page)
    before = kept(page, ReleaseState).ledger
    (made,) = before.releases
    other = Ledger(total=100.0).with_release({**made, "created": "2026-11-27T08:26:26+00:00"})
    other = other.with_release({**made, "created": "2026-11-27T08:28:27+00:00", "epsilon": 1.5})
    _upload(page, other)
    assert kept(page, ReleaseState).ledger == before  # the charge stays recorded
    assert page.number_input(key="release_total").value == 0.05  # no jump to 100
    assert not any("Ledger loaded" in s.value for s in page.success)
    (message,) = [e for e in errors(page) if "not loaded" in e]
    assert f"lacks 1 release that this session's ledger records: {made['created']} " in message
    assert "(ε = 0.01, ClampShells)" in message
    assert "download this session's ledger first" in message
    assert "Upload the ledger that includes it" in message


def test_this_sessions_ledger_extended_by_the_cli_is_loaded_and_said_so(page, tmp_path):
    """The other half of P1-1: the ledger downloaded here, extended by `dpsum release --ledger`
    (a raised total), holds the session's release: it is loaded, and the total's change said."""
    from dpsum_core.cli import main
    from dpsum_core.publish import ledger as ledgers
    from dpsum_ui.release import ledger_json

    _release(page)
    session = kept(page, ReleaseState).ledger
    book = tmp_path / "dpsum_ledger.json"
    book.write_bytes(ledger_json(session))  # the page's download
    argv = ["release", "--data", "sample_data/incomes.csv", "--column", "income",
            "--workload", "Q3", "--algorithm", "identity", "--truncation", "none",
            "--epsilon", "0.5", "--budget", "1", "--raise-budget", "--ledger", str(book),
            "--out", str(tmp_path / "cli")]  # fmt: skip
    assert main(argv) == 0
    extended = ledgers.load(book)
    _upload(page, extended)
    assert_clean(page)
    loaded = kept(page, ReleaseState).ledger
    assert loaded.releases == extended.releases and loaded.releases[0] == session.releases[0]
    (said,) = [s.value for s in page.success if "Ledger loaded" in s.value]
    assert said == (
        "Ledger loaded: 2 releases (the 1 release of this session's ledger among them), "
        "ε spent 0.51, total 1 from the ledger (was 0.05)."
    )
    assert page.number_input(key="release_total").value == 1.0


def test_a_total_above_the_public_limit_is_refused_in_one_line(page):
    """Custodian review P3: a total of 1e9 was accepted while one release is capped at 100."""
    page.number_input(key="release_total").set_value(1e9).run()
    (message,) = [e for e in errors(page) if "total ε of a ledger" in e]
    assert message == (
        "The total ε of a ledger must be at most 1,000 (ten releases at the largest ε, 100), "
        "got 1,000,000,000."
    )
    page.checkbox(key="release_unit_confirm").check().run()
    assert page.checkbox(key="release_confirm").disabled and page.button(key="release_go").disabled


def test_a_large_epsilon_is_warned_about_where_it_is_spent():
    """Custodian review P2-3: the explorer warned at ε = 10, the Release page did not."""
    at = new_app()
    at.run()
    at.select_slider(key="epsilon").set_value(10.0).run()
    explorer = [w.value for w in at.warning if "is large" in w.value]
    at.switch_page(PAGE).run()
    (warned,) = [w.value for w in at.warning if "is large" in w.value]
    assert warned.startswith(
        "ε = 10 is large: one person can change the odds of a result by a factor of up to "
        "22,026, which protects little. Lower ε on the Workload explorer page"
    )
    assert explorer and explorer[0].split(".")[0] == warned.split(".")[0]  # the same words
    at.switch_page("app_pages/explorer.py").run()
    at.select_slider(key="epsilon").set_value(1.0).run()
    at.switch_page(PAGE).run()
    assert not [w for w in at.warning if "is large" in w.value]


def test_a_u_that_clips_most_values_is_warned_about_above_the_expected_error():
    """Custodian review P2-2: with U = 1 the Data page said "U looks too small", the Release
    page said nothing and showed a reassuringly small expected error (measured against the
    clipped truth)."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.number_input(key="domain_upper").set_value(1000.0).run()
    on_data = [w.value for w in at.warning if "U looks too small" in w.value]
    at.switch_page(PAGE).run()
    assert_clean(at)
    (warned,) = [w.value for w in at.warning if "U looks too small" in w.value]
    assert [f"For you only (computed from the data, without noise; never publish it): {w}"
            for w in on_data] == [warned]  # the Data page's very words, said to be private
    assert re.search(r"\(\d+\.\d%\) were above U = 1,000 and were set to U", warned), warned
    (expected,) = [m.value for m in at.markdown if "**Expected error**" in m.value]
    assert (
        "measured against the answers of the values clipped at U, so a U that clips many "
        "values makes it look small" in expected
    )
    # the warning comes before the expected error
    kinds = [(type(e).__name__, getattr(e, "value", "")) for e in at.main]
    at_warning = next(i for i, (_, v) in enumerate(kinds) if "U looks too small" in str(v))
    at_error = next(i for i, (_, v) in enumerate(kinds) if "**Expected error**" in str(v))
    assert at_warning < at_error


def test_a_u_that_fits_gives_no_domain_warning_on_the_release_page(page):
    assert not [w for w in page.warning if "looks too" in w.value]


def _interval_text(at: AppTest) -> str:
    (line,) = [m.value for m in at.markdown if "95 % intervals published" in m.value]
    return line


@pytest.mark.parametrize(
    ("algorithm", "truncation", "said"),
    [
        ("clampshells", "inside", "bias of ClampShells without the data (at small ε, the whole "
         "shell of bins around a threshold)"),
        ("rawsum", "posthoc", "bias of RawSum without the data (its estimate of the whole "
         "prefix, whatever θ* dropped)"),
        ("tamm", "svt", "bias of TaMM without the data (each value anywhere between its bin's "
         "edges"),
    ],
)  # fmt: skip
def test_the_interval_words_are_the_chosen_algorithms(page, algorithm, truncation, said):
    """Custodian review P2-6: the page explained its intervals with ClampShells' words whatever
    the algorithm."""
    page.selectbox(key="release_algorithm").set_value(algorithm).run()
    page.selectbox(key="release_truncation").set_value(truncation).run()
    text = _interval_text(page)
    assert said in text, text
    assert ("ClampShells" in text) == (algorithm == "clampshells")
    assert not [w for w in page.warning if "open (unbounded)" in w.value]


def test_sqm_says_before_releasing_that_upper_ends_may_be_open(page):
    page.selectbox(key="release_algorithm").set_value("sqm").run()
    page.selectbox(key="release_truncation").set_value("svt").run()
    text = _interval_text(page)
    assert "ClampShells" not in text and "several times wider" not in text
    assert "elsewhere they are **open above** (see below)" in text
    (before,) = [w.value for w in page.warning if "open (unbounded)" in w.value]
    assert before.startswith("**Some upper ends may be open (unbounded)**: SQM's truncated sum ")
    assert "where θ_i is below the threshold τ_i, nothing it measured bounds" in before
    # without truncation nothing is truncated: every interval is two-sided, nothing warned
    page.selectbox(key="release_truncation").set_value("none").run()
    assert not [w for w in page.warning if "open (unbounded)" in w.value]
    assert "open above" not in _interval_text(page)


def test_the_spend_confirmation_names_the_column_whose_sums_are_released(page):
    """Custodian review: a defaulted value column (a job number) could be released unnoticed;
    the confirmation names the column and writes ε as typed."""
    label = page.checkbox(key="release_confirm").label
    assert "on the sums of 'income', once, and cannot be undone" in label
    assert "ε = 0.01 of this dataset's budget" in label


def test_a_session_without_a_ledger_says_its_budget_starts_at_zero(page):
    """After a reload the page showed "ε = 0 in 0 releases" and allowed a release with nothing
    saying a new budget had started (author review)."""
    assert any("holds no ledger yet: its budget starts at ε = 0" in i.value for i in page.info)
    _release(page)
    assert not any("holds no ledger yet" in i.value for i in page.info)


def test_the_released_theta_says_what_rawsum_did_above_it(page):
    """RawSum leaves out the bins above its θ*: the page's θ line says so, not "counted as θ"
    (review 10: the words were TaMM's for every algorithm)."""
    page.selectbox(key="release_algorithm").select("rawsum").run()
    _release(page)
    assert_clean(page)
    [line] = [m.value for m in page.markdown if "released θ:" in m.value]
    assert "counted as θ" not in line
    # the release's noise is OpenDP's, unseeded: θ* can be U or beyond, where nothing is left out
    assert any(w in line for w in ("left out (RawSum drops the bins above its θ*)", "θ = U",
                                   "none beyond U"))
