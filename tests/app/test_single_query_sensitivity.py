"""Single query's Sensitivity card (teacher's review P1-3): its arithmetic gives the noise it
prints. For SQM it said "scale 100,000 / 0.009 ≈ 11.1 million … SQM answers every query of the
workload with ε_m" next to a scale of 11.1 billion (SQM splits ε_m over the m queries); for
the algorithms that combine many noisy measurements it gave no reason for their SD."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean, lesson, new_app
from test_single_query_parts import number

from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms.sqm import sqm_scale
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.analytics import theta_curves
from dpsum_core.simulate.budget import algorithm_split
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_ui.datasets import SAMPLE_DIR

AMOUNT = r"([\d.,]+(?: \w+illion)?)"
SQM = re.compile(
    rf"m = ([\d,]+) queries .*? each gets ε_m / m = ([\d.]+) / ([\d,]+) = ([\d.]+), so this "
    rf"answer's scale is m × min\(θ, τ\) / ε_m = ([\d,]+) × ([\d,]+) / ([\d.]+) ≈ {AMOUNT}, and "
    rf"its noise SD = √2 × scale ≈ {AMOUNT}\.")
COMBINED = re.compile(rf"combines them into this answer, .*? noise SD is {AMOUNT}\.")


@pytest.mark.parametrize("workload_name", ["Q1", "Q3"])
@pytest.mark.parametrize("algorithm", ["sqm", "identity"])
def test_the_sensitivity_text_gives_the_engines_noise(algorithm: str, workload_name: str) -> None:
    at = new_app(workload=workload_name)
    at.run()
    at.switch_page("app_pages/single_query.py").run()
    at.button_group(key="teach_algorithm").set_value(algorithm).run()
    assert_clean(at)
    payload = lesson(at)
    thetas = np.asarray(payload["thetas"])
    tau = float(np.asarray(at.select_slider(key="teach_query").value))
    epsilon, rho = float(at.session_state["epsilon"]), float(at.session_state["rho"])
    config = ExperimentConfig(workload=workload_name, epsilon=epsilon, rho=rho,
                              algorithms=(algorithm,))  # fmt: skip
    values = pd.read_csv(SAMPLE_DIR / "incomes.csv")["income"]
    data = make_dataset(values, upper=config.domain.upper, name="incomes.csv", column="income")
    workload = make_workload(workload_name, config.domain)
    assert workload.size == {"Q1": 1000, "Q3": 10}[workload_name]
    query = [float(t) for t in workload.thresholds].index(tau)
    engine = theta_curves(data, config, query=query, thetas=thetas, private_theta=True)
    sd_engine = np.sqrt(engine["variance"].to_numpy(dtype=float))
    _, eps_m = algorithm_split(algorithm, epsilon, rho, "svt")
    scale_engine = sqm_scale(workload, thetas[:, None], epsilon_measure=eps_m)[:, query]
    for i, long in enumerate(payload["cards"]["sensitivity"]["long"]):
        text = re.sub(r"<.*?>", "", long)
        cap = min(thetas[i], tau)
        if algorithm == "sqm":
            found = SQM.search(text)
            assert found, text
            m, eps, m2, each, m3, shown_cap, eps2, scale, sd = found.groups()
            assert int(m.replace(",", "")) == workload.size == int(m3.replace(",", ""))
            assert m2 == m and float(eps) == float(eps2) == pytest.approx(eps_m, rel=1e-9)
            assert float(each) == pytest.approx(eps_m / workload.size, rel=1e-2)
            assert number(shown_cap) == pytest.approx(cap, rel=1e-9)
            # the equation's own arithmetic gives the scale it prints, the engine's
            worked = workload.size * cap / eps_m
            assert number(scale) == pytest.approx(worked, rel=6e-3), text
            assert number(scale) == pytest.approx(scale_engine[i], rel=6e-3), text
            assert number(sd) == pytest.approx(np.sqrt(2) * scale_engine[i], rel=6e-3), text
            assert number(sd) == pytest.approx(sd_engine[i], rel=6e-3), text
        else:
            found = COMBINED.search(text)
            assert found, text
            assert number(found.group(1)) == pytest.approx(sd_engine[i], rel=6e-3), text
            assert "measures many noisy counts or sums" in text
        # one query alone: scale = min(θ, τ) / ε_m, a scale, never an SD, in that equation
        alone = re.search(rf"alone would need scale ([\d,]+) / ([\d.]+) ≈ {AMOUNT} ", text)
        assert alone, text
        assert number(alone.group(3)) == pytest.approx(cap / eps_m, rel=6e-3)
        assert "answers every query of the workload with ε_m" not in text
