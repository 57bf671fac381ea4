"""One budget split per algorithm (new-user review of Single query): what
:func:`~dpsum_core.simulate.budget.algorithm_split` plans is what every run's ledger records
(the Explorer's ledger table), for every algorithm and truncation, with and without a cap."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms.clampshells_design import LOCATE_SHARE
from dpsum_core.mechanisms.registry import ALGORITHMS
from dpsum_core.simulate.budget import algorithm_split, budget_split
from dpsum_core.simulate.config import ExperimentConfig, TruncationParams
from dpsum_core.simulate.experiment import run_experiment


@pytest.mark.parametrize("cap", [None, 300_000.0])
def test_every_runs_ledger_is_the_planned_split(cap: float | None) -> None:
    values = 1_000.0 + 997.0 * (np.arange(500) % 400)
    data = make_dataset(values, upper=800_000.0, name="split", column="income")
    config = ExperimentConfig(
        workload="Q3", epsilon=0.8, rho=0.2, truncations=("fixed", "svt", "recursive"),
        algorithms=ALGORITHMS, trials=2, bins=100,
        truncation_params=TruncationParams(theta=100_000.0), public_cap=cap,
    )  # fmt: skip
    runs = run_experiment(data, config).runs
    assert {r.algorithm for r in runs} == set(ALGORITHMS)
    for r in runs:
        planned = algorithm_split(r.algorithm, 0.8, 0.2, r.truncation, public_cap=cap)
        assert r.budget.epsilon_theta == pytest.approx(planned[0], rel=1e-9, abs=1e-12)
        assert r.budget.epsilon_measure == pytest.approx(planned[1], rel=1e-9)


def test_the_algorithms_with_their_own_theta_ignore_the_truncation() -> None:
    for rule in ("fixed", "svt", "posthoc"):
        assert algorithm_split("rawsum", 1.0, 0.1, rule) == (0.0, 1.0)
    assert algorithm_split("clampshells", 1.0, 0.1, "inside") == pytest.approx(
        (LOCATE_SHARE, 1 - LOCATE_SHARE))
    assert algorithm_split("clampshells", 1.0, 0.1, "inside", public_cap=5.0) == (0.0, 1.0)
    assert algorithm_split("tamm", 1.0, 0.1, "svt") == budget_split(1.0, 0.1, "svt")
