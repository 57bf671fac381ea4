"""Words that must agree with what is shown (the new-user review): counts computed from the
runs on screen, ★ reserved for the recommendation, no placeholder in the citation."""

from __future__ import annotations

from pathlib import Path

import pytest


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


@pytest.mark.parametrize(("epsilon", "expected"), [(1.0, "ClampShells"), (5.0, "RawSum")])
def test_star_decide_and_release_follow_one_rule(epsilon, expected):
    """★ in the Explorer's picker, Decide's recommendation and the Release page's default name
    the same algorithm, recommend()'s: ClampShells up to ε = 3, RawSum above."""
    from app_helpers import new_app

    from dpsum_core.mechanisms.recommend import recommend

    assert recommend(epsilon=epsilon, upper=800_000, bins=1000, workload="Q3").algorithm == {
        "ClampShells": "clampshells", "RawSum": "rawsum"}[expected]  # fmt: skip
    at = new_app(workload="Q3", epsilon=f"{epsilon:g}")
    at.run()
    assert not at.exception
    assert at.select_slider(key="epsilon").value == epsilon
    starred = [o for o in at.button_group(key="algorithms").options if "★" in o]
    assert starred == [f"★ {expected}"]
    at.switch_page("app_pages/decide.py").run()
    assert not at.exception
    said = " ".join(m.value for m in at.markdown)
    assert f"★ {expected} is recommended for ε = {epsilon:g}, 1,000 bins and workload Q3" in said
    at.switch_page("app_pages/release.py").run()
    assert not at.exception
    assert at.selectbox(key="release_algorithm").options[0] == f"★ {expected} (auto)"
