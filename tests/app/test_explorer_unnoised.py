"""Third audit P3-4: the explorer's figures of the data without noise — the true-answer curve,
the exact counts per bin, the sidebar's record count — say they are not for publication where
they are shown, not only at the bottom of the last tab (a screenshot keeps no other tab)."""

from __future__ import annotations

from app_helpers import assert_clean, run_explorer
from streamlit.testing.v1 import AppTest

from dpsum_ui.explorer import TABS, UNNOISED


def _captions(small: AppTest, tab: str) -> str:
    small.session_state["explorer_tab"] = tab
    small.run()
    assert_clean(small)
    return " ".join(c.value for c in small.main.caption)


def test_each_unnoised_figure_is_marked_where_it_is_shown(small: AppTest) -> None:
    assert "without noise" in UNNOISED and "not for publication" in UNNOISED
    run_explorer(small)
    answers = _captions(small, TABS[0])  # the true answer, beside the noisy ones
    assert f"the true answer (Fig. 2). The true answer is {UNNOISED}." in answers
    data = _captions(small, next(t for t in TABS if "θ" in t))  # the exact counts per bin
    assert f"with θ marked: exact counts, {UNNOISED}." in data
    (count,) = [c.value for c in small.sidebar.caption if "after cleaning" in c.value]
    assert count.endswith("records after cleaning (exact, without noise: not for publication)")
