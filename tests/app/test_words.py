"""Words that must agree with what is shown (the new-user review): counts computed from the
runs on screen, ★ reserved for the recommendation, no placeholder in the citation."""

from __future__ import annotations

from pathlib import Path


def test_the_compare_caption_counts_the_configurations_it_shows():
    """Not a fixed '5 × 3 = 15': RawSum runs once (it chooses θ itself), so 2 algorithms under
    2 truncation methods are 3 configurations, and the caption says so."""
    from dpsum_core.data.reading import load_column
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.experiment import run_experiment
    from dpsum_ui.compare import caption

    data = load_column("sample_data/incomes_small.csv", upper=800_000)
    config = ExperimentConfig(workload="Q3", truncations=("none", "svt"),
                              algorithms=("identity", "rawsum"), trials=2, seed=3)  # fmt: skip
    result = run_experiment(data, config)
    assert len(result.runs) == 3
    assert caption(result).endswith("2 algorithms (rows), 3 configurations")
    page = Path("app_pages/compare.py").read_text()
    assert "15 configurations" not in page and "5 × 3" not in page


def test_the_citation_has_no_placeholder_and_the_explorer_names_every_algorithm_it_lists():
    about = Path("app_pages/about.py").read_text()
    assert "add first names" not in about and "note   =" not in about
    explorer = Path("app_pages/explorer.py").read_text()
    assert "ClampShells" in explorer.split("st.title(")[1].split("guide.box")[0]
