"""What a data custodian's review of the dashboard found in its tables: a count shown where
nothing is counted, and a grey "None" where no value exists (each fixed, each tested here)."""

from __future__ import annotations

import pytest
from app_helpers import assert_clean, run_explorer
from streamlit.testing.v1 import AppTest

from dpsum_ui.present import NOT_SVT, SVT_FALLBACKS


def _summary(small: AppTest, truncation: str) -> tuple:
    """The explorer's overview table and captions after a run truncated with ``truncation``."""
    small.segmented_control(key="truncation").set_value(truncation).run()
    run_explorer(small)
    small.session_state["explorer_tab"] = "Summary & budget"
    small.run()
    assert_clean(small)
    return small.dataframe[0].value, " ".join(c.value for c in small.caption)


@pytest.mark.parametrize("truncation", ["recursive", "none"])
def test_the_svt_fallbacks_column_is_left_out_when_no_run_used_svt(small: AppTest,
                                                                    truncation: str) -> None:
    """A Recursive-only run (or none), with RawSum and ClampShells choosing their own θ: no
    SVT anywhere, so no fallbacks column (it read 0, as if fallbacks had been counted)."""
    table, captions = _summary(small, truncation)
    assert SVT_FALLBACKS not in table.columns, list(table.columns)
    assert "SVT fallbacks" not in captions


def test_the_svt_fallbacks_are_counted_on_svt_rows_and_dashed_elsewhere(small: AppTest) -> None:
    """With SVT the paper's five count their fallbacks; RawSum and ClampShells, which choose
    θ their own way, show a dash, and the caption says the count applies to SVT only."""
    table, captions = _summary(small, "svt")
    own = table["Algorithm"].isin(["RawSum", "ClampShells"])
    assert own.sum() == 2 and set(table["Truncation"][~own]) == {"SVT"}
    assert set(table[SVT_FALLBACKS][own]) == {NOT_SVT}
    counts = table[SVT_FALLBACKS][~own]
    assert all(v.isdigit() and 0 <= int(v) <= 20 * 10 for v in counts), list(counts)
    assert "The count applies to SVT only" in captions and NOT_SVT in captions


def test_decides_data_table_says_why_analytic_rows_have_no_isotonic_error(app: AppTest) -> None:
    """The analytic rows' isotonic cell is empty (the model has no isotonic regression): the
    table shows a dash there, not a grey "None", and its caption says why; the values stay
    numbers (sorting, the CSV)."""
    from dpsum_ui import decide as decide_view
    from dpsum_ui import keys as K

    app.selectbox(key="workload_kind").select("Q3")
    app.run()
    app.switch_page("app_pages/decide.py").run()
    app.session_state[K.DECIDE_TABLE] = True
    app.run()
    assert_clean(app)
    frame = app.dataframe[1]
    iso = frame.value["… with isotonic (%)"]
    assert iso.dtype.kind == "f" and iso.isna().all()  # analytic rows only: no value
    assert frame.proto.placeholder == decide_view.NO_VALUE == "—"
    captions = " ".join(c.value for c in app.caption)
    assert decide_view.CURVE_TABLE_NOTE in captions
    assert "only the simulation measures it" in captions


def test_a_wrapped_subtitle_keeps_every_item_on_short_lines() -> None:
    """The θ chart's subtitle (cut off in its half-page column) in lines of ≤ 44 characters,
    broken between its items only, every item kept in order; the figure grows by the lines."""
    import plotly.graph_objects as go

    from dpsum_ui.figs import SUBTITLE_CHARS, wrap_subtitle

    items = ["incomes.csv", "Q3", "U = 800,000, 1,000 bins", "ε = 0.01, ρ = 0.1", "20 trials",
             "seed 0"]  # fmt: skip
    fig = go.Figure(layout=dict(title_text="θ chosen per trial<br><sup>" + " · ".join(items)
                                + "</sup>", margin=dict(t=90), height=450))  # fmt: skip
    wrapped = wrap_subtitle(fig)
    head, sub = wrapped.layout.title.text.split("<br><sup>")
    lines = sub.removesuffix("</sup>").split("<br>")
    assert head == "θ chosen per trial" and len(lines) == 2
    assert all(len(line) <= SUBTITLE_CHARS for line in lines), lines
    assert " · ".join(lines) == " · ".join(items)
    assert wrapped.layout.height > 450 and wrapped.layout.margin.t > 90
    plain = go.Figure(layout=dict(title_text="no subtitle"))
    assert wrap_subtitle(plain).layout.title.text == "no subtitle"


def test_spaced_ticks_keep_their_labels_apart() -> None:
    """The small multiples' τ labels (they ran together): in a 174 px panel over Q3's
    thresholds, 100,000 and 500,000 (200,000 would touch 100,000); over Q1's three decades
    the powers of ten that fit; nothing outside the thresholds' range."""
    import numpy as np

    from dpsum_ui.figs import spaced_ticks

    q3, q1 = np.arange(1, 11) * 80_000.0, np.arange(1, 1001) * 800.0
    assert spaced_ticks(q3, 174) == [100_000.0, 500_000.0]
    assert spaced_ticks(q1, 174) == [1_000.0, 100_000.0]
    assert spaced_ticks(q1, 2000) == [1_000.0, 2_000.0, 5_000.0, 10_000.0, 20_000.0, 50_000.0,
                                      100_000.0, 200_000.0, 500_000.0]  # fmt: skip
    assert spaced_ticks(np.array([210_000.0, 480_000.0]), 174) == []
