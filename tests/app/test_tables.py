"""The numbers behind a chart (dpsum_ui.tables): the text alternative and the CSV."""

from __future__ import annotations


def test_the_heatmaps_data_table_holds_full_precision_values():
    """The Compare heatmap prints 3 significant digits in its cells, but its data table and
    CSV carry the full-precision headline values, as the sweep's CSV does (issue 19)."""
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
    values = table.iloc[:, 2].to_numpy()
    expected = sorted(headline(result.relative_errors(r, iso=True)) for r in result.runs)
    assert sorted(values) == expected  # exact floats, not the 3-digit text
    assert len(table) == len(result.runs)  # RawSum under none/SVT is not a configuration
