"""Every algorithm's noise half-width (``Release.noise_halfwidth``: no longer published, it
ignores the bias; the intervals' noise margins and bench/coverage.py's "before" use it)
against simulated noise (issue 27.6).

noise_halfwidth = HALF_WIDTH_95 · σ with σ² the analytic variance at the released θ. Here σ²
is checked against the variance of K = 4000 simulated answers at the same θ (numpy, fixed
seed, never retried): each query's ratio must lie in [0.85, 1.18] (a Laplace variance
estimate has a relative standard error ≈ √(5/K) ≈ 3.5 %, so ±15 % is beyond 4 SE) and their
mean in [0.95, 1.05]. Power: a noise scale off by ×0.8 or ×1.25 moves the variance by
×0.64 or ×1.56 and fails every query. ClampShells was off by 1.33× (ε = 0.01) and 0.67×
(ε = 0.04) when it was given ε_m instead of ε.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.mechanisms import rawsum
from dpsum_core.mechanisms.clampshells_locate import combine_stage1, locate_measured
from dpsum_core.mechanisms.registry import get
from dpsum_core.noise import SimulatedNoise
from dpsum_core.publish.release import HALF_WIDTH_95, noise_halfwidth, plan_release
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for

K = 4000
UPPER, BINS = 6400.0, 64
THETA = 1500.0


class NoNoise:
    def add_laplace(self, values, scale):
        return np.array(values, float, copy=True)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    return make_dataset(np.concatenate([rng.lognormal(6.5, 0.7, 2000), np.zeros(100)]),
                        upper=UPPER)  # fmt: skip


def _simulated(alg: str, inputs, eps: float, theta: float, rng) -> np.ndarray:
    """K noisy answers minus the noise-free answer at the same θ (before isotonic)."""
    if alg == "rawsum":
        rd, s_hat, _ = rawsum.reconstruct(inputs, K, epsilon=eps, rng=rng)
        _, exact, _ = rawsum.reconstruct(inputs, 1, epsilon=eps, rng=NoNoise())
        th = np.full(K, theta)
        return rawsum.answers_at(rd, s_hat, th) - rawsum.answers_at(rd, exact, th[:1])
    if alg == "clampshells":
        d = cs.design_for(inputs.domain, eps, inputs.workload)
        stats = cs.edge_statistics(inputs.data, inputs.domain)
        j = np.full(K, int(np.searchsorted(inputs.domain.edges, theta)) + 1)
        counts = inputs.workload.counts
        out = []
        for source, rows in ((SimulatedNoise(rng), j), (NoNoise(), j[:1])):
            # stage 1's noisy shell sums (its located J* is replaced by the fixed one: their
            # law does not depend on it), then stage 2 and their GLS combination, as released;
            # the ± describes the noise before the onset gate (which only zeroes answers)
            _, z1, _ = locate_measured(stats, d, rows.size, epsilon=eps, rng=source)
            z, _ = cs.measure_clamped(stats, d, rows, epsilon=eps, rng=source)
            leaves = combine_stage1(d, np.asarray(d.reconstruct @ z.T).T, z1, rows)
            out.append(cs.answers_from_cells(d, leaves, rows, counts))
        return out[0] - out[1]
    record = get(alg)
    m = inputs.workload.size
    shape = (lambda k: np.full((k, m), theta)) if record.per_query else (lambda k: np.full(k, theta))
    noisy = record.run(inputs, shape(K), epsilon=eps, rng=rng).answers
    return noisy - record.run(inputs, shape(1), epsilon=eps, rng=NoNoise()).answers


CASES = [
    ("sqm", 0.5), ("identity", 0.5), ("workload", 0.5), ("timm", 0.5), ("tamm", 0.5),
    ("rawsum", 0.5), ("clampshells", 0.01), ("clampshells", 0.04), ("clampshells", 1.0),
]  # fmt: skip


@pytest.mark.parametrize(("algorithm", "epsilon"), CASES)
def test_the_published_noise_width_matches_simulated_noise(data, algorithm, epsilon):
    config = ExperimentConfig(workload="every:4", epsilon=epsilon, upper=UPPER, bins=BINS,
                              truncation_params={"theta": THETA})  # fmt: skip
    runs_once = get(algorithm).runs_once
    plan = plan_release(config, algorithm=algorithm, truncation=None if runs_once else "fixed")
    theta = THETA if algorithm != "clampshells" else float(config.domain.edges[15])  # J* = 16
    inputs = inputs_for(data, plan.config)
    eps = plan.epsilon if runs_once else plan.epsilon_measure
    noise = _simulated(algorithm, inputs, eps, theta, np.random.default_rng(17))
    released = [theta] * inputs.workload.size if get(algorithm).per_query else theta
    analytic = (noise_halfwidth(plan, released) / HALF_WIDTH_95) ** 2
    ratio = noise.var(axis=0) / analytic
    assert np.all((ratio > 0.85) & (ratio < 1.18)), ratio
    assert 0.95 < ratio.mean() < 1.05, ratio.mean()
