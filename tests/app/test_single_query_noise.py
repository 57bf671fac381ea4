"""Single query's noise and record counts say what the engine does (new-user review): the
readout's noise SD is the algorithm's own analytic variance, and a Laplace scale is named only
where the answer is one Laplace draw, at the scale the algorithm's noise used (SQM's is split
over the workload's m queries); the note under the truncation bias counts the records in
(θ, τ], the ones truncation moves."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean, lesson, new_app
from test_single_query_parts import hourly, number

from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms.registry import ALGORITHMS, get
from dpsum_core.mechanisms.sqm import sqm_scale
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.analytics import theta_curves
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_ui.datasets import SAMPLE_DIR

ONE_DRAW = {"sqm", "workload"}  # answers that are one Laplace draw each
# answers that sum many noisy counts or sums; the matrix mechanisms' depend on their strategy
COMBINED = {"identity", "rawsum", "clampshells"}
NOISE = re.compile(r"noise SD ([-\d.,]+(?: \w+illion)?)(?: = √2 × Laplace scale "
                   r"([-\d.,]+(?: \w+illion)?))?")


def noise_of(readout: str) -> tuple[float, float | None]:
    """The (SD, Laplace scale or None) a readout shows."""
    found = NOISE.search(readout)
    assert found, readout
    sd, scale = found.groups()
    return number(sd), None if scale is None else number(scale)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_noise_shown_is_the_engines_for_every_algorithm(algorithm: str) -> None:
    at = hourly(algorithm, private=False)
    payload = lesson(at)
    thetas = np.asarray(payload["thetas"])
    tau = float(np.asarray(at.select_slider(key="teach_query").value))
    values = np.array([15 + i % 40 for i in range(300)], dtype=float)
    data = make_dataset(pd.Series(values), upper=100.0, name="hourly.csv", column="wage")
    config = ExperimentConfig(workload="Q3", epsilon=float(at.session_state["epsilon"]),
                              bins=100, upper=100.0, algorithms=(algorithm,))  # fmt: skip
    workload = make_workload("Q3", config.domain)
    query = [float(t) for t in workload.thresholds].index(tau)
    engine = theta_curves(data, config, query=query, thetas=thetas, private_theta=False)
    sd_engine = np.sqrt(engine["variance"].to_numpy(dtype=float))
    for i, text in enumerate(payload["readout"]):
        sd, scale = noise_of(text)
        assert sd == pytest.approx(sd_engine[i], rel=6e-3, abs=0.5), (thetas[i], text)
        assert algorithm not in ONE_DRAW or scale is not None, text
        assert algorithm not in COMBINED or scale is None, text
        if scale is not None:
            assert sd == pytest.approx(np.sqrt(2) * scale, rel=1.2e-2, abs=0.5), text
        card = payload["cards"]["sensitivity"]["short"][i]
        assert noise_of(card) == (sd, scale), card
    if algorithm == "sqm":  # b = min(θ, τ)·m/ε_m: ε_m split over the workload's m queries
        want = sqm_scale(workload, thetas[:, None], epsilon_measure=config.epsilon)[:, query]
        shown = np.array([noise_of(t)[1] for t in payload["readout"]])
        assert shown == pytest.approx(want, rel=6e-3), (shown, want)


def test_sqm_on_the_default_page_shows_the_scale_of_the_workloads_split() -> None:
    """The review's case: SQM, τ = 100,000, θ = 101,000 said "Laplace scale 11.1 million"
    beside an SD of 15.7 billion; the scale is 100,000·m/ε_m ≈ 11.1 billion."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/single_query.py").run()
    at.button_group(key="teach_algorithm").set_value("sqm").run()
    assert_clean(at)
    payload = lesson(at)
    i = payload["start"]
    sd, scale = noise_of(payload["readout"][i])
    assert scale is not None and scale == pytest.approx(11.1e9, rel=1e-2), payload["readout"][i]
    assert sd == pytest.approx(np.sqrt(2) * scale, rel=1e-2)
    assert "11.1 billion" in payload["cards"]["sensitivity"]["short"][i]
    assert "11.1 million" not in payload["cards"]["sensitivity"]["short"][i]


def test_the_truncation_note_counts_the_records_between_theta_and_tau() -> None:
    """Default page (τ = 100,000), Identity: at θ = 800 the records in (800, 100,000] (zeros
    are not above θ), at θ ≥ τ none; the note says which records it counts."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/single_query.py").run()
    at.button_group(key="teach_algorithm").set_value("identity").run()
    assert_clean(at)
    payload = lesson(at)
    tau = float(np.asarray(at.select_slider(key="teach_query").value))
    values = pd.read_csv(SAMPLE_DIR / "incomes.csv")["income"]
    data = make_dataset(values, upper=800_000.0, name="incomes.csv", column="income")
    kept = np.asarray(data.values, dtype=float)
    notes = payload["notes"]["truncation"]
    for theta, note in zip(payload["thetas"], notes, strict=True):
        want = int(((kept > theta) & (kept <= tau)).sum())
        assert note == f"{want:,} records between θ and τ" or (
            want == 1 and note == "1 record between θ and τ"), (theta, note)
    assert notes[0] == "37,625 records between θ and τ"  # θ = 800
    assert get("identity").binned  # Identity's note is about the slider's cut


def test_an_algorithm_with_its_own_cut_does_not_count_records_at_the_sliders_theta() -> None:
    """ClampShells showed "Truncation bias −7.12 million" beside "0 records above θ": the
    count was at the slider's θ (its bias: as if its own cut were there)."""
    payload = lesson(hourly("clampshells"))
    assert payload["notes"]["truncation"] == "as if ClampShells cut at θ"
