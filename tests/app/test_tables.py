"""The numbers behind a chart (dpsum_ui.tables): the text alternative and the CSV."""

from __future__ import annotations


def test_the_heatmaps_data_table_holds_full_precision_values():
    """The Compare heatmap prints 3 significant digits in its cells, but its data table and
    CSV carry the full-precision headline values, as the sweep's CSV does (issue 19)."""
    import numpy as np

    from dpsum_core.data.reading import load_column
    from dpsum_core.plots.results import comparison_heatmap
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.experiment import run_experiment
    from dpsum_core.simulate.results import headline
    from dpsum_ui.tables import figure_table

    data = load_column("sample_data/incomes_small.csv", upper=800_000)
    config = ExperimentConfig(workload="Q3", truncations=("none", "svt"),
                              algorithms=("identity", "rawsum"), trials=5, seed=3)
    result = run_experiment(data, config)
    table = figure_table(comparison_heatmap(result))
    assert table.columns[2] == "Median relative error with isotonic (%)"  # the unit is named
    values = table.iloc[:, 2].to_numpy()
    expected = sorted(100 * headline(result.relative_errors(r, iso=True)) for r in result.runs)
    np.testing.assert_allclose(sorted(values), expected, rtol=1e-12)  # not the 3-digit text
    assert len(table) == len(result.runs)  # RawSum under none/SVT is not a configuration


def test_downloads_take_an_edited_name_and_a_note() -> None:
    """Downloads carry a file name and a note the user may edit (issue 19): the name is made
    safe, the note is written under the figure as text, never as markup."""
    import plotly.graph_objects as go

    from dpsum_ui.widgets import file_name, with_note

    assert file_name("board figure: Q1/2020", "dpsum_x") == "board_figure_Q1_2020"
    assert file_name("  ", "dpsum_x") == "dpsum_x" and file_name("../..", "d") == "d"
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    assert with_note(fig, "   ") is fig
    noted = with_note(fig, "for the board <b>now</b>\nsecond line")
    (note,) = noted.layout.annotations
    assert note.text == "for the board &lt;b&gt;now&lt;/b&gt;<br>second line"
    assert not fig.layout.annotations  # the chart on screen is unchanged


def test_the_name_and_note_widgets_follow_the_shown_run() -> None:
    from app_helpers import assert_clean, new_app, run_explorer

    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3")
    at.number_input(key="trials").set_value(10)
    at.run()
    run_explorer(at)
    assert_clean(at)
    stem = at.text_input(key="dl_explorer_answers_stem")
    assert stem.value.startswith("dpsum_incomes") and "answers" in stem.value
    stem.set_value("my name").run()
    at.text_area(key="dl_explorer_answers_note").set_value("kept for the report").run()
    assert_clean(at)
    assert at.text_input(key="dl_explorer_answers_stem").value == "my name"
    at.number_input(key="seed").set_value(5)
    run_explorer(at)  # a new run: its own default name again
    assert at.text_input(key="dl_explorer_answers_stem").value != "my name"


def test_the_explorer_summary_gives_its_text_columns_room_for_their_longest_cell() -> None:
    """New-user review: the Summary tab cut "θ located by the algorit…" (a stretched grid
    sizes its columns by their headers). Every text column but the last whose longest cell is
    longer than its header gets a width that holds that cell at the grid's font, in the
    overview and in the ledger."""
    import json

    from dpsum_ui.tables import CELL_PAD_PX, CHAR_PX

    at = _summary_tab()
    for frame in at.dataframe[:2]:
        table, columns = frame.value, json.loads(frame.proto.columns)
        assert "θ located by the algorithm" in set(table["Truncation"])  # ClampShells
        for name in table.columns[:-1]:
            if table[name].dtype.kind in "iuf":
                continue
            longest = max(len(str(v)) for v in table[name])
            width = columns.get(name, {}).get("width")
            if longest > len(name):  # a header at least as long sizes the column itself
                assert isinstance(width, int) and width >= CHAR_PX * longest + CELL_PAD_PX, name
            else:
                assert width is None, name


def test_the_explorer_summary_cells_are_short_and_say_rho_is_not_for_rawsum_and_clampshells(
) -> None:
    """Researcher's review at 1280×800: the ledger's "θ chosen by" cell was cut ("with its own
    s…") and so was the Median θ cell ("none beyond U: cleaning clips values above U t…").
    Their cells are now a few words, the full sentences in the columns' help and in captions;
    the captions say that ClampShells and RawSum choose θ without ρ (measured in Chromium by
    tests/e2e/test_researcher_review.py)."""
    import json

    from dpsum_core.text import NO_THETA

    at = _summary_tab(truncation="none")
    overview, ledger = at.dataframe[0], at.dataframe[1]
    assert "none beyond U" in set(overview.value["Median θ"])
    assert max(len(c) for c in ledger.value["θ chosen by"]) <= 36, set(ledger.value["θ chosen by"])
    assert max(len(str(c)) for c in overview.value["Median θ"]) <= 36
    helps = {name: json.loads(f.proto.columns).get(name, {}).get("help", "")
             for f, name in ((overview, "Median θ"), (ledger, "θ chosen by"))}  # fmt: skip
    assert NO_THETA.partition(": ")[2] in helps["Median θ"]
    assert "with its own share of ε (not ρ)" in helps["θ chosen by"]
    captions = " ".join(c.value for c in at.caption)
    assert "ClampShells locates θ itself from noisy shell sums, with its own share of ε" in captions
    assert "RawSum chooses θ after measuring" in captions
    assert "recursive mechanism only, not to RawSum or ClampShells." in captions


def _summary_tab(truncation: str | None = None):
    """The explorer's Summary & budget tab after a Q3 run of 5 trials (optionally with one
    truncation method), checked clean."""
    from app_helpers import assert_clean, new_app, run_explorer

    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3")
    if truncation is not None:
        at.segmented_control(key="truncation").set_value(truncation)
    at.number_input(key="trials").set_value(5)
    at.run()
    run_explorer(at)
    at.session_state["explorer_tab"] = "Summary & budget"
    at.run()
    assert_clean(at)
    return at


def test_a_median_theta_at_or_above_u_reads_none_beyond_u():
    """A clamp point at U (ClampShells on an hourly column with U = 200) read "200" while
    RawSum's θ = ∞ read "none beyond U" in the same table: both truncate nothing beyond the
    clip at U, and SVT's last grid point may lie above U."""
    import numpy as np

    from dpsum_core.data.dataset import make_dataset
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.experiment import run_experiment
    from dpsum_ui.present import NO_THETA_CELL, money, overview_table

    rng = np.random.default_rng(1)
    values = np.concatenate([rng.lognormal(np.log(20), 0.5, 20_000), np.full(300, 250.0)])
    data = make_dataset(values, upper=200.0)  # 300 values clipped to U: a point mass at U
    config = ExperimentConfig(workload="Q2", epsilon=1.0, upper=200.0, bins=200, trials=20,
                              truncations=("svt",), algorithms=("tamm", "clampshells"), seed=0)  # fmt: skip
    result = run_experiment(data, config)
    medians = dict(zip(result.overview()["algorithm"], result.overview()["median_theta"], strict=True))
    assert medians["clampshells"] >= 200.0  # the case at hand: θ* at U
    table = overview_table(result)
    cells = dict(zip(table["Algorithm"], table["Median θ"], strict=True))
    assert cells["ClampShells"] == NO_THETA_CELL
    assert cells["TaMM"] == (NO_THETA_CELL if medians["tamm"] >= 200.0 else money(medians["tamm"]))


def test_a_median_theta_is_rounded_as_theta_is_read_elsewhere():
    """Review9 P3: the Summary showed "Median θ 74.6496" beside "128" (six significant digits);
    it is rounded as the pages read θ in the data's unit (present.money: whole from 10 up)."""
    import numpy as np

    from dpsum_core.data.dataset import make_dataset
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.experiment import run_experiment
    from dpsum_ui.present import overview_table

    rng = np.random.default_rng(1)
    data = make_dataset(rng.lognormal(np.log(20), 0.5, 20_000), upper=200.0)
    config = ExperimentConfig(workload="Q2", epsilon=1.0, upper=200.0, bins=200, trials=20,
                              truncations=("recursive",), algorithms=("tamm",), seed=0)  # fmt: skip
    result = run_experiment(data, config)
    (median,) = result.overview()["median_theta"]
    assert 10 < median < 200 and median != round(median)  # a θ with decimals
    (cell,) = overview_table(result)["Median θ"]
    assert cell == f"{median:,.0f}"  # was f"{median:,.6g}", e.g. "164.251"
