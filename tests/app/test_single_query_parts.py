"""Single query's numbers add up (new-user review): the budget split is the algorithm's own
(the Explorer's ledger), RMSE² = (truncation + binning bias)² + noise variance for every
algorithm, floating-point residue is an exact 0, and the chart's axes read as numbers."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from app_helpers import array, assert_clean, lesson, new_app
from streamlit.testing.v1 import AppTest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import histogram
from dpsum_core.mechanisms.error import bias_parts
from dpsum_core.mechanisms.measurement import Inputs
from dpsum_core.mechanisms.registry import ALGORITHMS
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.analytics import theta_curves
from dpsum_core.simulate.budget import algorithm_split
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_ui import present
from dpsum_ui.datasets import SAMPLE_DIR
from dpsum_ui.teaching import components

# An hourly-wage upload: 300 values from 15 to 54, U = 100 (100 bins of width 1).
HOURLY = b"wage\n" + b"".join(f"{15 + i % 40}\n".encode() for i in range(300))


def hourly(algorithm: str, *, private: bool = True) -> AppTest:
    """Single query on the hourly upload (Q3), showing ``algorithm``."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("hourly.csv", HOURLY, "text/csv")).run()
    at.number_input(key="domain_upper").set_value(100.0).run()
    at.number_input(key="domain_bins").set_value(100).run()
    at.switch_page("app_pages/explorer.py").run()
    at.selectbox(key="workload_kind").select("Q3")
    at.run()
    at.switch_page("app_pages/single_query.py").run()
    at.button_group(key="teach_algorithm").set_value(algorithm).run()
    if not private:
        at.toggle(key="teach_private").set_value(False).run()
    assert_clean(at)
    return at


def number(text: str) -> float:
    """A number as :func:`present.money` writes it (“-25,315”, “1.53 million”)."""
    words = {"million": 1e6, "billion": 1e9, "trillion": 1e12}
    value, *word = text.split()
    return float(value.replace(",", "")) * (words[word[0]] if word else 1.0)


@pytest.mark.parametrize("algorithm", ["rawsum", "clampshells", "tamm", "sqm"])
def test_the_budget_card_is_the_algorithms_own_split(algorithm: str) -> None:
    at = hourly(algorithm)
    epsilon, rho = float(at.session_state["epsilon"]), float(at.session_state["rho"])
    rule = {"rawsum": "posthoc", "clampshells": "inside"}.get(algorithm, "svt")  # θ private
    eps_theta, eps_m = algorithm_split(algorithm, epsilon, rho, rule)
    payload = lesson(at)
    short = payload["cards"]["budget"]["short"]
    assert f"ε_θ = {eps_theta:g}" in short and f"ε_m = {eps_m:g}" in short, short
    long = payload["cards"]["budget"]["long"]
    assert re.search(f"ε_θ = (ρ·ε = )?{re.escape(f'{eps_theta:g}')}[;. ]", long), long
    # what the review saw: RawSum spends nothing on θ, ClampShells a quarter of ε
    expected = {"rawsum": 0.0, "clampshells": epsilon / 4, "tamm": rho * epsilon,
                "sqm": rho * epsilon}[algorithm]  # fmt: skip
    assert eps_theta == pytest.approx(expected, rel=1e-12)


def test_the_numbers_at_every_theta_add_up_for_rawsum() -> None:
    """The review's case: RawSum at θ = 25 showed RMSE 65,257 from parts making about 25,085."""
    payload = lesson(hourly("rawsum"))
    numbers = payload["numbers"]
    (noise,) = [t for t in payload["figure"]["data"] if t.get("name") == "noise (SD)"]
    sd = array(noise["y"])
    for i, theta in enumerate(payload["thetas"]):
        bias = number(numbers["truncation"][i]) + number(numbers["binning"][i])
        rmse = number(numbers["rmse"][i])
        want = float(np.hypot(bias, np.nan_to_num(sd[i])))
        assert rmse == pytest.approx(want, rel=0.01, abs=1.0), (theta, numbers["rmse"][i])


def test_rmse_squared_is_bias_squared_plus_variance_for_every_algorithm() -> None:
    """For every algorithm at several θ: RMSE² = (truncation + binning bias)² + variance, and
    that total is the algorithm's own expected error (its record's error function)."""
    values = pd.read_csv(SAMPLE_DIR / "incomes.csv")["income"]
    data = make_dataset(values, upper=800_000.0, name="incomes.csv", column="income")
    config = ExperimentConfig(workload="Q1", epsilon=1.0, bins=100, algorithms=ALGORITHMS)
    grid = np.asarray(present.theta_grid(config.domain), dtype=float)[::6]
    workload = make_workload(config.workload, config.domain)
    query = 40  # τ = 328,000
    tau = float(workload.thresholds[query])
    single = make_workload(f"values:{tau!r}", config.domain)
    inputs = Inputs(data, histogram(data, config.domain), single, config.domain,
                    data.sum_at_most(single.thresholds))  # fmt: skip
    truncation, binning = bias_parts(inputs, grid)
    curves = theta_curves(data, config, query=query, thetas=grid)
    for algorithm in ALGORITHMS:
        table = components(curves, (truncation[:, 0], binning[:, 0]), algorithm)
        own = curves[curves["algorithm"] == algorithm]["total"].to_numpy()
        bias = table["truncation_bias"] + table["binning_bias"]
        parts = bias**2 + table["variance"]
        assert np.allclose(table["total"], parts, rtol=1e-9), algorithm
        assert np.allclose(table["total"], own, rtol=1e-9, atol=1e-6 * own.max()), algorithm


@pytest.mark.parametrize("algorithm", ["identity", "rawsum"])
def test_residue_is_zero_and_the_axes_read_as_numbers(algorithm: str) -> None:
    """Below θ = 8 the binning bias is 0 in exact arithmetic (every record counts as θ either
    way): no ~1e-11 residue drawn, and no tick in e-notation."""
    payload = lesson(hourly(algorithm))
    figure = payload["figure"]
    curves = {t["name"]: array(t["y"]) for t in figure["data"]
              if t.get("yaxis", "y") == "y" and t.get("name")}  # fmt: skip
    top = max(float(np.nanmax(y)) for y in curves.values())
    for name, y in curves.items():
        drawn = y[np.isfinite(y)]
        assert (drawn >= 1e-6 * top).all(), (name, drawn.min())
    thetas = np.asarray(payload["thetas"])
    below = [n for n, t in zip(payload["numbers"]["binning"], thetas, strict=True) if t < 8]
    assert below and set(below) == {"0"}, below  # was "-2.73e-12"
    layout = figure["layout"]
    ticks = [str(t) for key in layout if key.startswith(("xaxis", "yaxis"))
             for t in layout[key].get("ticktext", [])]  # fmt: skip
    assert ticks and not [t for t in ticks if re.search(r"\de[+-]?\d", t)], ticks
    low, high = layout["yaxis"]["range"]
    assert high - low < 12, (low, high)  # decades: the residue stretched it to 1e-11


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_amounts_and_tick_labels_are_never_in_e_notation(sign: float) -> None:
    for k in range(-12, 19):
        for mantissa in (1.0, 1.234, 9.996):
            text = present.money(sign * mantissa * 10.0**k)
            assert not re.search(r"\de[+-]?\d", text), text
            whole = 10 <= mantissa * 10.0**k < 1e6  # whole units there, else 3 digits
            assert number(text) == pytest.approx(sign * mantissa * 10.0**k, rel=6e-3,
                                                 abs=0.5 if whole else 0), text
    assert present.money(1e-5) == "0.00001" and present.money(1.2345e-7) == "0.000000123"
    assert present.money(25.0) == "25" and present.money(-25_315.4) == "-25,315"
    assert present.money(1e15) == "1,000 trillion" and present.money(2e6) == "2 million"
    # rounded first, then named: never "1e+03 million" nor "1,000,000"
    assert present.money(999_600_000) == "1 billion" and present.money(999_999.6) == "1 million"


def test_the_truncation_card_of_an_algorithm_with_its_own_theta_says_it_is_its_own() -> None:
    """RawSum drops bins above its θ, ClampShells clamps at its shells' edges: neither card
    may say that values above the slider's θ count as θ with the histogram's number."""
    for algorithm, name, edge in (("rawsum", "RawSum", "a bin edge; if θ* were θ"),
                                  ("clampshells", "ClampShells",
                                   "a shell edge; if θ* were θ (the next shell edge up)")):  # fmt: skip
        at = hourly(algorithm)
        payload = lesson(at)
        assert not [c.value for c in at.caption if "Recursive marks" in str(c.value)]
        card = payload["cards"]["truncation"]
        assert all(s.startswith(f"{name} picks its own cut θ*, at {edge}") for s in card["short"])
        assert payload["slider_label"] == f"θ: if {name} cut here"
        assert payload["notes"]["truncation"] == f"as if {name} cut at θ"
        assert all(t.startswith(f"If {name} cut at θ = ") for t in payload["demo"]["truncated"])
        # neither uses SVT nor Recursive: no rugs of their θ choices
        rows = {t.get("yaxis") for t in payload["figure"]["data"]}
        assert rows == {"y"}, rows
        assert all(s.endswith(f"bias {n}.") for s, n in
                   zip(card["short"], payload["numbers"]["truncation"], strict=True))
        own = "chooses its own θ" if name == "RawSum" else "cuts at its own θ*"
        assert f"{name}</b> {own}" in card["long"][0], card["long"][0]
