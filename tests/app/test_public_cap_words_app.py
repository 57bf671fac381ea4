"""A release made in the app with a public cap says θ comes from the cap, on the page and in
its report (no "spends a quarter of ε locating" beside ε_θ = 0)."""

from __future__ import annotations

from app_helpers import assert_clean, kept, new_app

from dpsum_ui.page_state import ReleaseState
from dpsum_ui.release import report_files


def test_a_capped_release_says_theta_comes_from_the_cap():
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3")
    at.run()
    at.switch_page("app_pages/release.py").run()
    at.selectbox(key="release_algorithm").set_value("clampshells").run()
    at.number_input(key="release_public_cap").set_value(400_000.0).run()
    at.number_input(key="release_total").set_value(0.05).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    (line,) = [m.value for m in at.markdown if m.value.startswith("ClampShells, truncation:")]
    assert line.startswith("ClampShells, truncation: θ from the public cap,")
    rel = kept(at, ReleaseState).last
    _, markdown, _ = report_files(rel, "incomes.csv", "sample")
    text = markdown.decode()
    assert "quarter of ε locating" not in text and "own share of ε" not in text
    assert "θ from the stated public cap, no ε spent locating it" in text


def test_a_cap_that_moves_up_to_a_clamp_point_is_said_before_releasing():
    """A cap of 400,000 (U = 800,000, 1,000 bins) clamps at 409,600, the 512th bin's edge: the
    page said "public cap 400,000" and the report "θ = 409,600" only after ε was spent."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/release.py").run()
    at.selectbox(key="release_algorithm").set_value("clampshells").run()
    at.number_input(key="release_public_cap").set_value(400_000.0).run()
    assert_clean(at)
    said = [w.value for w in at.warning if "becomes θ" in w.value]
    assert len(said) == 1 and "public cap 400,000 becomes θ = 409,600" in said[0]
    at.number_input(key="release_public_cap").set_value(409_600.0).run()  # a clamp point
    assert not [w.value for w in at.warning if "becomes θ" in w.value]


def test_the_public_cap_is_kept_when_the_user_leaves_the_page_and_comes_back():
    """After About and back, the cap field read "none" while the page's last release still
    said θ came from the cap: Streamlit drops a widget's value on another page."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/release.py").run()
    at.selectbox(key="release_algorithm").set_value("clampshells").run()
    assert at.number_input(key="release_public_cap").value is None  # empty by default
    at.number_input(key="release_public_cap").set_value(409_600.0).run()
    at.switch_page("app_pages/about.py").run()
    at.switch_page("app_pages/release.py").run()
    assert_clean(at)
    assert at.selectbox(key="release_algorithm").value == "clampshells"
    assert at.number_input(key="release_public_cap").value == 409_600.0


def test_the_release_choices_are_kept_when_the_user_leaves_the_page_and_comes_back():
    """The algorithm, truncation and isotonic switch chosen on the Release page went back to
    the explorer's (or the recommended) ones after another page: Streamlit drops a widget's
    value when its page is not shown."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/release.py").run()
    assert at.selectbox(key="release_algorithm").value == "clampshells"  # ★ auto at ε = 0.01
    at.selectbox(key="release_algorithm").set_value("tamm").run()
    at.selectbox(key="release_truncation").set_value("recursive").run()
    iso = at.toggle(key="release_iso").value
    at.toggle(key="release_iso").set_value(not iso).run()
    at.switch_page("app_pages/about.py").run()
    at.switch_page("app_pages/release.py").run()
    assert_clean(at)
    assert at.selectbox(key="release_algorithm").value == "tamm"
    assert at.selectbox(key="release_truncation").value == "recursive"
    assert at.toggle(key="release_iso").value is (not iso)


def test_an_algorithm_set_from_the_explorer_is_kept_not_an_older_choice():
    """The explorer's single algorithm replaces the choice made here (and says so); coming back
    from another page must show that one, not the choice it replaced."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/release.py").run()
    at.selectbox(key="release_algorithm").set_value("tamm").run()
    at.switch_page("app_pages/explorer.py").run()
    at.button_group(key="algorithms").set_value(["identity"]).run()
    at.switch_page("app_pages/release.py").run()
    assert at.selectbox(key="release_algorithm").value == "identity"
    at.switch_page("app_pages/about.py").run()
    at.switch_page("app_pages/release.py").run()
    assert_clean(at)
    assert at.selectbox(key="release_algorithm").value == "identity"
