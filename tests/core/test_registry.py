"""The algorithm registry: records, name-keyed streams, and a ledger built from what was spent."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.reading import load_column
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.registry import ALGORITHMS, REGISTRY, get
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from dpsum_core.simulate.streams import SQM_THETA_STREAM, THETA_STREAM
from dpsum_core.truncation.params import TruncationParams

SMALL = "sample_data/incomes_small.csv"


@pytest.fixture(scope="module")
def small():
    return load_column(SMALL, upper=800_000)


def test_records_are_frozen_complete_and_uniquely_keyed():
    ids = [a.stream_id for a in REGISTRY.values()]
    assert len(set(ids)) == len(ids)
    assert not {THETA_STREAM, SQM_THETA_STREAM} & set(ids)  # θ streams are separate
    for name, alg in REGISTRY.items():
        assert alg.name == name and alg.label and alg.color.startswith("#") and alg.measures
        assert alg.theta_rule in ("shared", "per_query", "posthoc", "inside")
        assert alg.runs_once == (alg.theta_rule in ("posthoc", "inside"))
        assert (alg.theta_share > 0) == (alg.theta_rule == "inside")
        with pytest.raises(dataclasses.FrozenInstanceError):
            alg.label = "x"  # type: ignore[misc]
    with pytest.raises(ParameterError, match="unknown algorithm 'nope'"):
        get("nope")


def test_no_algorithm_is_drawn_like_the_true_answer_or_like_another():
    from dpsum_core.plots.style import TRUE_COLOR

    colors = [a.color.lower() for a in REGISTRY.values()]
    assert TRUE_COLOR.lower() not in colors  # the truth is black (dashed)
    assert len(set(colors)) == len(colors)
    assert "dash" not in {a.dash for a in REGISTRY.values()}  # the truth's dash pattern


def test_adding_algorithms_leaves_every_other_algorithms_answers_bit_identical(small):
    base = dict(workload="Q2", trials=20, seed=11, truncations=("svt", "recursive"))
    full = run_experiment(small, ExperimentConfig(**base, algorithms=ALGORITHMS))
    for subset in (("tamm",), ("identity", "sqm"), ("rawsum",), ("workload", "timm", "rawsum")):
        part = run_experiment(small, ExperimentConfig(**base, algorithms=subset))
        for r in part.runs:
            other = full.run(r.algorithm, r.truncation)
            np.testing.assert_array_equal(r.answers, other.answers)
            np.testing.assert_array_equal(r.theta, other.theta)


def test_adding_a_new_registry_record_changes_no_existing_stream(small, monkeypatch):
    """A new algorithm gets its own stream id: registering one leaves existing draws alone."""
    before = run_experiment(small, ExperimentConfig(workload="Q3", trials=10, seed=3))
    twin = dataclasses.replace(get("identity"), name="identity2", label="Identity 2", stream_id=99)
    monkeypatch.setitem(REGISTRY, "identity2", twin)
    monkeypatch.setattr("dpsum_core.simulate.config.ALGORITHMS", (*ALGORITHMS, "identity2"))
    after = run_experiment(
        small, ExperimentConfig(workload="Q3", trials=10, seed=3, algorithms=(*ALGORITHMS, "identity2"))
    )
    for r in before.runs:
        np.testing.assert_array_equal(r.answers, after.run(r.algorithm, r.truncation).answers)
    new = after.run("identity2", "svt").answers
    assert not np.array_equal(new, after.run("identity", "svt").answers)


def test_ledger_matches_a_noise_scale_measured_from_the_answers():
    """With a public θ (no θ noise), the Laplace scale estimated from the answers' residuals,
    with sensitivities computed independently from dense matrices, gives back the ledger's ε_m."""
    rng = np.random.default_rng(0)
    data = make_dataset(rng.lognormal(9, 1, 500), upper=64_000)
    cfg = ExperimentConfig(workload="every:4", epsilon=0.8, upper=64_000, bins=32, trials=10_000,
                           truncations=("fixed",), algorithms=("sqm", "workload"),
                           truncation_params=TruncationParams(theta=20_000.0), seed=4)
    result = run_experiment(data, cfg)
    w, n = result.workload, cfg.bins
    v = cfg.domain.bin_weights
    T = np.minimum(v, 20_000.0)
    x = np.bincount(np.minimum(np.ceil(data.values / 2000).astype(int) - 1, n - 1).clip(0), minlength=n)
    W = (np.arange(1, n + 1)[None, :] <= w.counts[:, None]).astype(float)
    # Workload: one scale b for every query; mean |residual| of Laplace(b) is b.
    r = result.run("workload", "fixed")
    b_hat = np.abs(r.answers - W @ (T * x)).mean()
    sensitivity = np.abs(W * T[None, :]).sum(axis=0).max()
    assert sensitivity / b_hat == pytest.approx(r.budget.epsilon_measure, rel=0.02)
    # SQM: per-query scales b_i; ε = Σ_i min(θ, τ_i)/b_i (sequential composition).
    r = result.run("sqm", "fixed")
    exact = np.array([np.minimum(data.values[data.values <= t], 20_000.0).sum() for t in w.thresholds])
    b_hat = np.abs(r.answers - exact).mean(axis=0)
    assert (np.minimum(20_000.0, w.thresholds) / b_hat).sum() == pytest.approx(
        r.budget.epsilon_measure, rel=0.02
    )
    for run in result.runs:
        assert math.isclose(run.budget.total, 0.8, rel_tol=1e-12)


def test_ledger_is_refused_when_a_step_spends_the_wrong_amount(small, monkeypatch):
    """The runner checks ε_θ + ε_m = ε from what was spent: a mechanism that drew half the
    noise it should (and so bought 2ε_m) is caught, not reported as ε."""
    from dpsum_core.mechanisms.baselines import workload_mechanism

    honest = workload_mechanism

    def greedy(inputs, theta, *, epsilon, rng):
        return honest(inputs, theta, epsilon=2 * epsilon, rng=rng)

    monkeypatch.setitem(REGISTRY, "workload", dataclasses.replace(get("workload"), measure=greedy))
    with pytest.raises(RuntimeError, match="ledger of workload/svt"):
        run_experiment(small, ExperimentConfig(workload="Q3", trials=5, algorithms=("workload",)))
