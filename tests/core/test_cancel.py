"""Issue 17: long runs stop at the next checkpoint when their caller asks (a closed tab, a new
click), between θ groups, design stages and sweep points, not at the end of the run."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.checkpoint import checkpoints
from dpsum_core.data.domain import Domain
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms import greedy_h, matrix, rawsum
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.decision import simulated_error_vs_epsilon
from dpsum_core.simulate.experiment import epsilon_sweep, run_experiment

# TaMM with the recursive θ: every trial has its own θ, hence its own strategy (one group each).
LONG = ExperimentConfig(workload="Q3", bins=200, trials=150, truncations=("recursive",),
                        algorithms=("tamm",))  # fmt: skip


class Stop(Exception):
    """What a caller raises from its callback to stop a run (the app: Streamlit's StopException)."""


@pytest.fixture(scope="module")
def small():
    return load_column("sample_data/incomes_small.csv", upper=800_000)


@pytest.fixture
def groups(monkeypatch) -> list[float]:
    """The θ of every TaMM group measured (each builds or fetches its own strategy)."""
    seen: list[float] = []
    measure = matrix.tamm_measure

    def counted(inputs, theta, trials, **kw):
        seen.append(theta)
        return measure(inputs, theta, trials, **kw)

    monkeypatch.setattr(matrix, "tamm_measure", counted)
    return seen


def stop_after(calls: int, groups: list[float], at_stop: list[int]):
    """A progress callback that raises at its ``calls``-th call, noting the groups run so far."""
    made = []

    def progress(fraction: float, message: str) -> None:
        made.append((fraction, message))
        if len(made) == calls:
            at_stop.append(len(groups))
            raise Stop

    return progress


def test_progress_is_reported_between_theta_groups(small, groups) -> None:
    calls: list[tuple[float, str]] = []
    run_experiment(small, LONG, progress=lambda f, m: calls.append((f, m)))
    assert len(groups) == LONG.trials  # a continuous θ: one group per trial
    # at least once per group (each group is a checkpoint), not only once per algorithm
    assert len(calls) >= len(groups)
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_a_stop_raised_by_the_callback_ends_the_run_within_one_group(small, groups) -> None:
    at_stop: list[int] = []
    with pytest.raises(Stop):
        run_experiment(small, LONG, progress=stop_after(20, groups, at_stop))
    # no group starts after the stop: it propagates from the checkpoint before the next one
    assert at_stop and len(groups) - at_stop[0] <= 1
    assert len(groups) < LONG.trials // 2


def test_a_sweep_stops_within_its_current_point(small, groups) -> None:
    at_stop: list[int] = []
    eps = [0.5, 1.0, 2.0, 4.0]
    with pytest.raises(Stop):
        epsilon_sweep(small, LONG, eps, progress=stop_after(LONG.trials + 30, groups, at_stop))
    assert len(groups) - at_stop[0] <= 1
    assert len(groups) < 2 * LONG.trials  # the second point was cut short, the rest never ran


def test_the_decide_simulation_stops_too(small, groups) -> None:
    at_stop: list[int] = []
    with pytest.raises(Stop):
        simulated_error_vs_epsilon(small, LONG, np.array([0.5, 1.0, 2.0]), above=0.0,
                                   progress=stop_after(10, groups, at_stop))  # fmt: skip
    assert len(groups) - at_stop[0] <= 1 and len(groups) < LONG.trials


def test_without_a_callback_an_outer_hook_still_stops_the_run(small, groups) -> None:
    """The app binds a stop check around every engine call, including those without a bar."""
    at_stop: list[int] = []
    hook = stop_after(25, groups, at_stop)
    with pytest.raises(Stop), checkpoints(lambda: hook(0.0, "")):
        epsilon_sweep(small, LONG, [1.0, 2.0])
    assert len(groups) - at_stop[0] <= 1 and len(groups) < LONG.trials


def test_rawsum_design_and_clampshells_groups_are_checkpoints(small) -> None:
    calls: list[int] = []
    domain = Domain(upper=800_000.0, bins=300)
    rawsum._DESIGNS.clear()
    greedy_h.clear_caches()
    with checkpoints(lambda: calls.append(1)):
        rawsum.design(domain, make_workload("Q3", domain))
    assert len(calls) >= 3  # between the stages of a build that takes ~40 s at 5 000 bins
    reports: list[float] = []
    config = ExperimentConfig(workload="Q3", bins=300, trials=50, algorithms=("clampshells",))
    run_experiment(small, config, progress=lambda f, m: reports.append(f))
    assert len(reports) > 2  # its J* groups report, besides its one step and "done"
