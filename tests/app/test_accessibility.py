"""Accessibility without a browser: every chart has its numbers as a table (and as CSV), the
table is the chart's data, and algorithms differ by more than colour in every figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean, new_app, run_explorer
from streamlit.testing.v1 import AppTest

from dpsum_core.data.domain import Domain, histogram
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms.registry import ALGORITHMS, REGISTRY
from dpsum_core.plots.data import data_histogram_figure
from dpsum_core.plots.results import (
    answers_figure,
    comparison_heatmap,
    epsilon_sweep_figure,
    expected_error_figure,
    isotonic_figure,
    relative_error_figure,
    theta_figure,
)
from dpsum_core.plots.style import IN_UNIT
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import epsilon_sweep, run_experiment
from dpsum_ui import figs, share
from dpsum_ui import keys as K
from dpsum_ui.tables import figure_name, figure_table

ALGORITHM_NAMES = {a.label for a in REGISTRY.values()}


@pytest.fixture(scope="module")
def data():
    return load_column("sample_data/incomes_small.csv", upper=800_000)


@pytest.fixture(scope="module")
def result(data):
    config = ExperimentConfig(
        workload="Q3", trials=20, truncations=("none", "svt"), algorithms=ALGORITHMS, seed=3
    )
    return run_experiment(data, config)


def _algorithm_lines(fig) -> list:
    return [t for t in fig.data if t.name in ALGORITHM_NAMES and t.fill != "toself"]


def _assert_not_colour_alone(fig) -> None:
    lines = _algorithm_lines(fig)
    assert len(lines) == len(ALGORITHMS), [t.name for t in fig.data]
    for t in lines:
        assert "markers" in t.mode and t.marker.maxdisplayed, (t.name, t.mode)
    cues = {(t.marker.symbol, t.line.dash) for t in lines}
    symbols = {t.marker.symbol for t in lines}
    assert len(cues) == len(symbols) == len(ALGORITHMS), cues  # each its own symbol
    assert all(t.line.dash not in ("dash", "dot") for t in lines)  # kept for truth / analytic


def test_algorithms_differ_by_symbol_and_dash_in_every_figure(result, data) -> None:
    for fig in (
        answers_figure(result, "svt", iso=True),
        relative_error_figure(result, "svt"),
        epsilon_sweep_figure(
            epsilon_sweep(data, result.config.with_(trials=5), [0.01, 1.0]), "svt"
        ),
    ):
        _assert_not_colour_alone(fig)
    expected = expected_error_figure(result, "svt")
    # per algorithm a simulated (solid) and an analytic (dotted) line in one legend group; the
    # two ungrouped entries only name the line styles
    analytic = [t for t in expected.data if t.legendgroup and t.name.endswith("analytic")]
    simulated = [t for t in expected.data if t.legendgroup and not t.name.endswith("analytic")]
    assert [t.name for t in expected.data if not t.legendgroup] == [
        "solid: simulated", "dotted: analytic"
    ]
    assert {t.line.dash for t in analytic} == {"dot"} and {t.line.dash for t in simulated} == {
        "solid"
    }
    assert len({t.marker.symbol for t in simulated}) == len(ALGORITHMS)
    theta = theta_figure(result)
    assert len({t.marker.pattern.shape for t in theta.data}) == len(theta.data)


def test_teaching_figure_lines_differ_by_symbol(data) -> None:
    curves = pd.DataFrame(
        [
            {"algorithm": a, "theta": t, "total": (i + 1) * t}
            for i, a in enumerate(ALGORITHMS)
            for t in (1e3, 1e4, 1e5)
        ]
    )
    fig = figs.all_algorithms_figure(curves, theta=1e4, title="t")
    assert len({t.marker.symbol for t in fig.data}) == len(ALGORITHMS)


def test_answers_table_holds_the_drawn_numbers(result) -> None:
    fig = answers_figure(result, "svt", iso=False)
    table = figure_table(fig)
    m = len(result.workload.thresholds)
    assert len(table) == (len(ALGORITHMS) + 1) * m
    # the axis titles' two lines (a phone's width) in one header
    x, y = f"threshold τ{IN_UNIT} (query sums values ≤ τ)", "sum of values ≤ τ in the data's unit"
    assert list(table.columns) == ["series", x, y, "5th percentile", "95th percentile"]
    truth = table[table["series"] == "true answer"]
    np.testing.assert_array_equal(truth[y], result.true_answers)
    assert truth["5th percentile"].isna().all()
    for run in (r for r in result.runs if r.truncation == "svt"):
        rows = table[table["series"] == REGISTRY[run.algorithm].label]
        np.testing.assert_array_equal(rows[x], result.workload.thresholds)
        np.testing.assert_allclose(rows[y], run.answers.mean(axis=0))
        low, high = np.percentile(run.answers, [5, 95], axis=0)
        np.testing.assert_allclose(rows["5th percentile"], low)
        np.testing.assert_allclose(rows["95th percentile"], high)


def test_tables_are_named_after_their_chart(result) -> None:
    assert figure_name(relative_error_figure(result, "svt")) == "Relative error, SVT"


def test_subplot_heatmap_and_histogram_tables(result, data) -> None:
    iso = figure_table(isotonic_figure(result, "svt"))
    assert set(iso["panel"]) == {"without isotonic regression", "with isotonic regression"}
    heat = figure_table(comparison_heatmap(result))
    # RawSum and ClampShells run once, each in its own column ("θ after measuring", "θ located
    # by the algorithm"); empty cells are left out
    once = sum(REGISTRY[a].runs_once for a in ALGORITHMS)
    assert len(heat) == (len(ALGORITHMS) - once) * 2 + once
    assert set(heat["column"]) == {
        "no truncation", "SVT", "θ after measuring", "θ located by the algorithm"
    }
    values = heat.iloc[:, 2]
    assert values.notna().all() and (values > 0).all()
    domain = Domain(800_000, 100, "upper")
    hist = figure_table(data_histogram_figure(data, domain))
    assert len(hist) == 100
    counts = hist["records (log scale)"].to_numpy()
    np.testing.assert_array_equal(counts, histogram(data, domain))  # empty bins are 0, not NaN


PAGES_WITH_CHARTS = [
    ("app_pages/data.py", ["data_histogram"]),
    ("app_pages/single_query.py", ["teach_curves", "teach_all"]),
]
# Expanders whose chart is drawn only while open: opened before the page is checked.
OPEN_FIRST = {"app_pages/single_query.py": "teach_all_box"}
IN_FRAME = {"teach_curves"}  # drawn in the lesson frame (dpsum_ui.lesson), not by st.plotly_chart


def test_every_chart_has_a_table_and_a_csv_download(app: AppTest) -> None:
    app.selectbox(key="workload_kind").select("Q3")
    app.number_input(key="trials").set_value(20)
    run_explorer(app)
    assert_clean(app)
    for path, names in [("app_pages/explorer.py", ["explorer_answers"]), *PAGES_WITH_CHARTS]:
        app.switch_page(path).run()
        if path in OPEN_FIRST:
            app.session_state[OPEN_FIRST[path]] = True
            app.run()
        assert_clean(app)
        assert len(app.get("plotly_chart")) == len(set(names) - IN_FRAME), path
        expanders = {e.proto.id for e in app.expander}
        labels = [e.label for e in app.expander if "table_" in e.proto.id]
        assert len(set(labels)) == len(labels), labels  # each table named after its chart
        buttons = {b.proto.id for b in app.get("download_button")}
        for name in names:
            assert any(f"table_{name}" in e for e in expanders), (name, expanders)
            assert any(f"dl_{name}_csv" in b for b in buttons), (name, buttons)


def test_the_chart_library_is_preloaded_once_per_session(app: AppTest) -> None:
    from dpsum_ui import warmup

    name = warmup.chart_chunk()
    assert name is not None, "the installed Streamlit has no single PlotlyChart chunk"
    scripts = [h for h in app.sidebar.get("html") if name in h.proto.body]
    assert len(scripts) == 1 and scripts[0].proto.unsafe_allow_javascript
    app.run()
    assert not [h for h in app.sidebar.get("html") if name in h.proto.body]


def test_a_page_that_opens_on_a_chart_imports_the_chart_library_at_once(app: AppTest) -> None:
    """The Explorer (no chart before a Run) waits for the browser to be idle; Data and Decide
    start the import at the top of their first run, in the hidden slot (Single query's chart
    is in its lesson frame, which loads plotly.js itself)."""
    from dpsum_ui import store, warmup

    name = warmup.chart_chunk()
    (idle,) = [h for h in app.sidebar.get("html") if name in h.proto.body]
    assert "if (false)" in idle.proto.body
    for path in ("app_pages/data.py", "app_pages/decide.py"):
        fresh = new_app()
        fresh.run()
        fresh.session_state[store.CHART_PRELOADED] = False  # as if this page were opened first
        fresh.switch_page(path).run()
        assert_clean(fresh)
        (eager,) = [h for h in fresh.sidebar.get("html") if name in h.proto.body]
        assert "if (true)" in eager.proto.body, path
        if path.endswith("decide.py") and not fresh.get("plotly_chart"):
            # the default curves (7 algorithms, ClampShells recommended) are priced above a
            # link's budget: the page says what they cost and waits for this button
            fresh.button(key=K.DECIDE_COMPUTE).click().run()
        assert fresh.get("plotly_chart"), path  # the page did draw a chart
    # a shared Explorer link runs by itself: its answers figure is drawn in the first run
    params = share.config_to_query(ExperimentConfig(seed=3), sample="incomes.csv", column="income")
    linked = new_app(**params)
    linked.run()
    assert_clean(linked)
    (eager,) = [h for h in linked.sidebar.get("html") if name in h.proto.body]
    assert "if (true)" in eager.proto.body and linked.get("plotly_chart")


def test_a_percent_axis_names_its_table_column_as_fractions(result) -> None:
    """An axis drawn in percent holds fractions (0.05 is 5 %): its table column and CSV say
    so, as the Decide and Explorer error charts' downloads were unlabelled fractions."""
    table = figure_table(relative_error_figure(result, "svt"))
    assert "relative error (fraction)" in table.columns
    assert (table["relative error (fraction)"] < 50).all()  # fractions, not percentages
