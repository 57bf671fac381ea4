"""Single query, ClampShells (teacher's review P1-2): its bias at θ ≥ τ is interpolation inside
a shell, not truncation. The page showed "Truncation bias −1.4 million" at θ = U next to "θ ≥ τ,
so truncation changes nothing in q_τ"; the bias is now split into the truncation bias (records
above θ* clamped) and the shell bias, each named for what it is."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean, lesson, new_app
from test_single_query_parts import number

from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms.clampshells import clampshells_bias_parts, clampshells_error
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for
from dpsum_ui.datasets import SAMPLE_DIR


def incomes():
    values = pd.read_csv(SAMPLE_DIR / "incomes.csv")["income"]
    return make_dataset(values, upper=800_000.0, name="incomes.csv", column="income")


def test_the_two_parts_add_up_to_the_engines_bias() -> None:
    """clampshells_bias_parts splits clampshells_error's bias exactly: (clamp + shell)² =
    bias², the clamping part 0 for a query below θ*, the shell part 0 at or above θ*."""
    config = ExperimentConfig()
    inputs = inputs_for(incomes(), config)
    grid = np.array([900.0, 20_000.0, 50_000.0, 99_000.0, 101_000.0, 400_000.0, 800_000.0])
    clamp, shell = clampshells_bias_parts(inputs, grid, config.epsilon)
    bias2, _ = clampshells_error(inputs, grid, config.epsilon)
    scale = float(np.max(bias2))
    assert (clamp + shell) ** 2 == pytest.approx(bias2, rel=1e-9, abs=1e-9 * scale)
    tau = inputs.workload.thresholds
    above = grid[:, None] > tau[None, :]  # θ* ≥ θ > τ: nothing of q_τ is clamped
    assert np.all(clamp[above] == 0.0)
    assert np.any(shell[above] != 0.0)  # the review's case: a bias with nothing truncated
    assert np.all(shell[~above & (clamp != 0.0)] == 0.0)


def test_clampshells_shows_no_truncation_bias_once_theta_is_above_tau() -> None:
    at = new_app()
    at.run()
    at.switch_page("app_pages/single_query.py").run()
    at.button_group(key="teach_algorithm").set_value("clampshells").run()
    assert_clean(at)
    payload = lesson(at)
    tau = float(np.asarray(at.select_slider(key="teach_query").value))
    thetas = np.asarray(payload["thetas"])
    above = np.flatnonzero(thetas > tau)
    assert above.size and thetas[-1] == 800_000.0  # θ = U is among them
    assert payload["number_labels"]["binning"] == "Shell bias"
    assert payload["card_titles"]["binning"] == "Shell bias"
    # "Without truncation: 1,529,734,785 → …": the true answer, every digit
    truth = payload["demo"]["untruncated"].split(": ", 1)[1].split(" →")[0]
    for i in above:
        assert payload["numbers"]["truncation"][i] == "0", (thetas[i], payload["numbers"])
        assert number(payload["numbers"]["binning"][i]) != 0.0
        readout = payload["readout"][i]
        assert "truncation bias 0 · shell bias" in readout, readout
        demo = payload["demo"]["truncated"][i]
        assert "changes nothing" in demo
        # the sum before the newcomer is the true answer: truncation changed nothing
        assert demo.split(": ", 1)[1].startswith(f"{truth} →"), (demo, truth)
    assert "no binning bias" not in str(payload["cards"]["binning"])
    assert "shell bias" in payload["cards"]["binning"]["long"]
    legend = [t.get("name") for t in payload["figure"]["data"]]
    assert "|shell bias|" in legend and "|binning bias|" not in legend, legend
