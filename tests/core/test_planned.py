"""Decide's published-interval widths (dpsum_core.publish.planned): the release's own intervals,
and the smallest ε meeting a half-width target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.noise import SimulatedNoise
from dpsum_core.publish.planned import (
    interval_reaches,
    interval_summary,
    relative_halfwidths,
    search_cost,
    summarize,
)
from dpsum_core.publish.release import _release_with, plan_release
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import interval_cost
from dpsum_core.simulate.decision import (
    Reach,
    epsilon_grid,
    error_vs_epsilon,
    query_subset,
    smallest_epsilon,
)
from dpsum_core.simulate.experiment import inputs_for


@pytest.fixture(scope="module")
def small():
    return load_column("sample_data/incomes_small.csv", upper=800_000)


@pytest.mark.parametrize(
    ("algorithm", "truncation", "own"),
    [("tamm", "svt", "svt"), ("clampshells", "inside", None), ("rawsum", "posthoc", None)],
)
def test_the_half_widths_are_those_the_releases_publish_for_the_same_draws(
    small, algorithm, truncation, own
) -> None:
    """Each row is (upper_95 − lower_95) / 2 of answers.csv of a release drawing the same
    noise (a numpy generator with the same seed, consumed release after release), divided
    by max(true answer, δ)."""
    config = ExperimentConfig(workload="Q2", epsilon=0.2)
    rel = relative_halfwidths(small, config, algorithm, truncation, releases=3, seed=11)
    plan = plan_release(config, algorithm=algorithm, truncation=own)
    rng = np.random.default_rng(11)
    floor = np.maximum(inputs_for(small, plan.config).true_answers, config.delta)
    assert rel.shape == (3, floor.size)
    for row in rel:
        frame = _release_with(small, plan, SimulatedNoise(rng), None).answers_frame()
        published = (frame["upper_95"] - frame["lower_95"]).to_numpy(float) / 2
        np.testing.assert_allclose(row * floor, published, rtol=1e-8, atol=1e-6)
    # another seed draws other noise: the widths are the draws', not a formula's
    other = relative_halfwidths(small, config, algorithm, truncation, releases=3, seed=12)
    assert not np.allclose(other, rel, rtol=1e-6)


def test_an_interval_open_above_is_infinitely_wide_and_counted(small) -> None:
    """SQM truncated below τ cannot bound its bias from above: its upper end is empty in
    answers.csv, so its half-width is ∞ and the summary counts those queries."""
    config = ExperimentConfig(workload="Q2", epsilon=0.2)
    rel = relative_halfwidths(small, config, "sqm", "svt", releases=2, seed=0)
    mask = np.ones(rel.shape[1], bool)
    width = summarize(rel, mask, "sqm", "svt", 0.2)
    assert np.isinf(rel).any()
    assert width.open_above == int(np.isinf(rel).any(axis=0).sum()) > 0
    assert "no upper end" in width.sentence()


def test_the_summary_is_the_median_and_the_worst_decile_of_the_per_query_means() -> None:
    rel = np.array([[0.1, 0.2, 0.3, 0.4, 10.0], [0.3, 0.2, 0.5, 0.4, 30.0]])
    keep = np.array([False, True, True, True, True])
    width = summarize(rel, keep, "tamm", "svt", 0.5)
    assert width.typical == pytest.approx(np.median([0.2, 0.4, 0.4, 20.0]))
    assert width.worst_decile == pytest.approx(20.0)  # the 90th percentile of 4: the largest
    assert width.open_above == 0 and width.releases == 2
    assert width.sentence().startswith(
        "Published at ε = 0.5 by TaMM with SVT: 95 % intervals of typically **±40 %** of the "
        "answer (a tenth of the queries: wider than ±2,000 %), from 2 simulated releases"
    )


def test_the_search_measures_few_points_and_finds_the_full_grids_crossing() -> None:
    """On monotone widths the bisection gives the ε that smallest_epsilon finds on the whole
    grid (same interpolation), measuring a handful of points per configuration; one that does
    not meet the target at the best's ε is left there ("needs a larger ε")."""
    eps = epsilon_grid()
    scale = {"a": 0.02, "b": 0.01, "c": 0.5}
    calls: list[tuple[str, float]] = []

    def width(name: str, truncation: str, epsilon: float) -> float:
        calls.append((name, epsilon))
        return scale[name] / epsilon

    target = 0.1
    found, behind = interval_reaches([("a", "x"), ("b", "x"), ("c", "x")], eps, target, width)
    full = pd.DataFrame(
        [(e, n, "x", scale[n] / e) for n in scale for e in eps],
        columns=["epsilon", "algorithm", "truncation", "metric"],
    )
    expected = {r.algorithm: r for r in smallest_epsilon(full, target)}
    by_name = {r.algorithm: r for r in found}
    for name in ("a", "b"):
        assert by_name[name].epsilon == pytest.approx(expected[name].epsilon, rel=1e-9)
    assert [r.algorithm for r in found][:2] == ["b", "a"]
    assert by_name["c"].epsilon is None and set(behind) == {("c", "x")}
    assert len(calls) <= 16 < 3 * eps.size
    # started at each one's crossing, it measures fewer and never the largest ε
    calls.clear()
    again = interval_reaches([("a", "x"), ("b", "x"), ("c", "x")], eps, target, width,
                             [0.2, 0.1, None])  # fmt: skip
    assert [(r.algorithm, r.epsilon) for r in again[0]] == [(r.algorithm, r.epsilon) for r in found]
    assert again[1] == behind
    assert len(calls) <= 10 and max(e for _, e in calls) < eps[-1]
    lines = interval_summary(found, behind, target, eps)
    assert lines[0].startswith("b with x publishes a typical 95 % half-width of ±10 % at ε ≈")
    assert lines[-1].startswith("c with x needs a larger ε (")


def test_the_interval_target_needs_a_larger_epsilon_than_the_error_target(small) -> None:
    """The same number (10 %) as a target on the published half-width asks for more ε than as
    a target on the median relative error: the interval covers the truth 95 % of the time and
    bounds the bias, so it is wider than the typical error."""
    config = ExperimentConfig(workload="Q2", algorithms=("tamm", "clampshells"))
    mask = query_subset(make_workload("Q2", config.domain).thresholds, 10)
    target = 0.10
    error = {(r.algorithm, r.truncation): r
             for r in smallest_epsilon(error_vs_epsilon(small, config, above=10), target)}  # fmt: skip

    def width(name: str, truncation: str, epsilon: float) -> float:
        rel = relative_halfwidths(small, config.with_(epsilon=epsilon), name, truncation)
        return summarize(rel, mask, name, truncation, epsilon).typical

    found, _ = interval_reaches(list(error), epsilon_grid(), target, width)
    met = [r for r in found if r.epsilon is not None]
    assert met
    for r in met:
        before = error[(r.algorithm, r.truncation)].epsilon
        assert before is not None and r.epsilon is not None, (r, before)
        assert r.epsilon > 1.5 * before, (r, before)
    assert isinstance(found[0], Reach)


def test_the_search_is_priced_before_it_runs_at_the_epsilon_it_will_reach() -> None:
    """ClampShells' design grows with ε: its releases at ε = 10 are priced far above those at
    0.01; without an error-target ε to start from, the search is priced at the grid's top."""
    config = ExperimentConfig(workload="Q1", algorithms=("tamm", "clampshells"))
    low = interval_cost(config, [("clampshells", "inside", 0.01)], 8).seconds
    high = interval_cost(config, [("clampshells", "inside", 10.0)], 8).seconds
    assert 0 < low < high / 10
    order = [("clampshells", "inside"), ("tamm", "svt")]
    started = search_cost(config, order, [0.002, 0.004], epsilon_grid())
    unknown = search_cost(config, order, [None, None], epsilon_grid())
    assert started.seconds < 3 < unknown.seconds
    assert unknown.parts[0][0] == "the releases of ClampShells"
