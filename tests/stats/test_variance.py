"""Monte Carlo per-query variance against the analytic formulas (SPEC §6), with power checks.

Each mechanism runs ≥ 2000 trials at a fixed, public θ; the normalised squared deviation
r_ti = (ŷ_ti − μ_i)² / σ²_i has mean 1 when the noise scale is right. The same test must reject
copies of the mechanism whose noise is ×0.8 or ×1.25, so it has the power to catch a wrong scale.
Seeds are fixed: these tests are deterministic, never retried.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms import rawsum
from dpsum_core.mechanisms.measurement import Inputs, truncated_weights
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment

TRIALS = 4000
EPS = 0.5
THETA = 3000.0


@pytest.fixture(scope="module")
def setup():
    domain = Domain(6400.0, 64)
    rng = np.random.default_rng(2024)
    data = make_dataset(rng.lognormal(7.5, 0.9, 400), upper=domain.upper)
    w = make_workload("every:4", domain)
    x = histogram(data, domain)
    y = data.sum_at_most(w.thresholds)
    return Inputs(data, x, w, domain, y)


def _draw(name, inputs, noise_factor, seed):
    """Answers, their exact mean and analytic variance; noise_factor scales the noise.

    RawSum is checked at a fixed drop threshold θ = THETA (its measurement and least squares;
    the post-hoc θ* is a function of the same noise and is tested separately)."""
    domain, data, w, x = inputs.domain, inputs.data, inputs.workload, inputs.x
    rng = np.random.default_rng(seed)
    eps = EPS / noise_factor
    if name == "sqm":
        theta = np.full((TRIALS, w.size), THETA)
        answers = get(name).run(inputs, theta, epsilon=eps, rng=rng).answers
        mean = data.truncated_sum(w.thresholds, np.full(w.size, THETA))
    elif name == "rawsum":
        d, s_hat, _ = rawsum.reconstruct(inputs, TRIALS, epsilon=eps, rng=rng)
        answers = rawsum.answers_at(d, s_hat, np.full(TRIALS, THETA))
        kept = rawsum.kept_bins(domain, np.array([THETA]))[0]
        mean = w.prefix(np.where(np.arange(domain.bins) < kept, rawsum.bin_sums(data, domain), 0.0))
    else:
        theta = np.full(TRIALS, THETA)
        answers = get(name).run(inputs, theta, epsilon=eps, rng=rng).answers
        mean = w.prefix(truncated_weights(domain, theta[:1])[0] * x)
    _, var = get(name).error(inputs, np.array([THETA]), EPS)
    return answers, mean, var[0]


def _consistent(answers, mean, var) -> tuple[bool, str]:
    r = (answers - mean[None, :]) ** 2 / var[None, :]
    pooled = r.mean(axis=1)  # one number per trial, mean 1
    z_pooled = (pooled.mean() - 1) / (pooled.std(ddof=1) / np.sqrt(r.shape[0]))
    z_query = (r.mean(axis=0) - 1) / (r.std(axis=0, ddof=1) / np.sqrt(r.shape[0]))
    ok = abs(z_pooled) < 4 and np.max(np.abs(z_query)) < 5
    return ok, f"pooled ratio {pooled.mean():.3f} (z = {z_pooled:.1f}), max |z| per query {np.max(np.abs(z_query)):.1f}"


ALGS = ["sqm", "identity", "workload", "timm", "tamm", "rawsum"]


@pytest.mark.parametrize("name", ALGS)
def test_monte_carlo_variance_matches_analytic(setup, name):
    ok, detail = _consistent(*_draw(name, setup, 1.0, seed=10))
    assert ok, detail


@pytest.mark.parametrize("factor", [0.8, 1.25])
@pytest.mark.parametrize("name", ALGS)
def test_power_rejects_wrong_noise_scale(setup, name, factor):
    ok, detail = _consistent(*_draw(name, setup, factor, seed=20))
    assert not ok, f"a ×{factor} noise scale was not detected: {detail}"


@pytest.mark.parametrize("truncation", ["svt", "recursive"])
def test_expected_error_matches_simulation_with_private_theta(truncation):
    """With θ drawn privately per trial, the analytic MSE averaged over the drawn θ values
    matches the simulated mean squared error (bias included)."""
    data = load_column("sample_data/incomes_small.csv", upper=800_000)
    # 250 bins keep the 2000 per-θ TaMM strategies of the recursive case cheap.
    cfg = ExperimentConfig(workload="every:25", bins=250, epsilon=1.0, trials=2000,
                           truncations=(truncation,), seed=5,
                           algorithms=("identity", "workload", "timm", "tamm", "sqm"))
    result = run_experiment(data, cfg)
    for r in result.runs:
        sq = (r.answers - result.true_answers[None, :]) ** 2
        per_trial = sq.sum(axis=1) / r.expected_mse.sum()
        z = (per_trial.mean() - 1) / (per_trial.std(ddof=1) / np.sqrt(per_trial.size))
        assert abs(z) < 4, (r.algorithm, per_trial.mean(), z)
