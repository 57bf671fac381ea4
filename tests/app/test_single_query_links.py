"""Single query opened from a partial or hand-edited link (teacher's review P3-7): a link value
the page cannot use as given is said in one notice, with what was used instead and why; a link
with a view only (``?algorithm=clampshells``) is shown as asked."""

from __future__ import annotations

from app_helpers import assert_clean, lesson, open_link
from streamlit.testing.v1 import AppTest

PAGE = "app_pages/single_query.py"


def _open(params: dict[str, str]) -> AppTest:
    """A new session opened by a link to Single query with ``params``."""
    return open_link(PAGE, params)


def _notices(at: AppTest) -> list[str]:
    return [str(e.value) for e in (*at.toast, *at.info, *at.warning, *at.error)]


def test_a_link_with_only_the_algorithm_opens_that_algorithm_and_says_so() -> None:
    at = _open({"algorithm": "clampshells"})
    assert_clean(at)
    assert at.button_group(key="teach_algorithm").value == "clampshells"
    assert lesson(at)["algorithm"] == "clampshells"
    notices = _notices(at)
    assert len(notices) == 1, notices
    assert "algorithm=clampshells" in notices[0] and "default" in notices[0], notices


def test_a_tau_not_in_the_workload_is_replaced_by_the_nearest_and_said() -> None:
    at = _open({"tau": "123"})
    assert not at.exception
    taus = at.select_slider(key="teach_query").options
    used = at.select_slider(key="teach_query").value
    assert used == min(float(t.replace(",", "")) for t in taus)  # 123: the lowest threshold
    (warning,) = [str(w.value) for w in at.warning]
    assert "τ = 123 is not one of workload Q1's thresholds" in warning, warning
    assert f"τ = {used:,.0f}, the nearest, is used" in warning, warning
    assert "tau=123" in warning  # the one notice also says what the link carried
    assert not at.toast and not at.info, _notices(at)


def test_a_theta_off_the_grid_is_replaced_by_the_nearest_and_said() -> None:
    at = _open({"data": "incomes.csv", "workload": "Q1", "theta": "5000"})
    assert not at.exception and not at.error
    payload = lesson(at)
    used = payload["thetas"][payload["start"]]
    assert used != 5000.0 and abs(used - 5000.0) / 5000.0 < 0.15
    (warning,) = [str(w.value) for w in at.warning]
    assert "Settings restored from the link" in warning, warning
    assert "But not as in the link: θ = 5,000 is not on the page's θ grid" in warning, warning
    assert f"θ = {used:,.0f}, the nearest, is used" in warning, warning
    assert not at.toast and not at.info, _notices(at)


def test_a_link_as_the_page_wrote_it_needs_no_correction() -> None:
    """The page's own link (a τ of its workload, a θ of its grid): only 'restored'."""
    at = _open({"data": "incomes.csv", "workload": "Q1", "tau": "100000", "theta": "101000"})
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    assert any("Settings restored from the link" in n for n in _notices(at)), _notices(at)

