"""Coverage of the published 95 % intervals (issue 24 §1), on small data, with a stated power.

Each cell (algorithm × truncation × ε) makes R = 200 releases through :func:`release` (a seeded
Laplace source in place of OpenDP's unseedable one, so the test is deterministic; never
retried). For each query i the misses over the R independent releases are Binomial(R, p_i) with
p_i ≤ 0.05 if the interval holds; the test fails when a query misses more than ``CRIT`` times,
the Binomial(R, 0.05) critical value at α = 10⁻³ shared (Bonferroni) over every query of every
cell. Power: a query whose interval covers only 85 % is flagged with probability
``POWER_AT_85`` (≈ 0.75 per query; a broken rule breaks many queries at once), and the old
answer ± noise_halfwidth_95 on the same data is flagged (the negative control below).

The data is built to be hard for the bias bounds: a point mass at 0 (counted at the first bin's
upper edge), values just above bin edges (counted a whole bin width too high), a long tail
above any θ.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy.stats import binom

from dpsum_core.data.dataset import make_dataset
from dpsum_core.publish.release import _release_with, plan_release
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for
from dpsum_core.truncation.params import TruncationParams

R = 200
UPPER, BINS = 6400.0, 64
CELLS = [
    ("identity", "svt", 0.5), ("workload", "recursive", 0.5), ("timm", "fixed", 0.5),
    ("tamm", "svt", 0.1), ("tamm", "none", 1.0), ("sqm", "none", 0.5), ("sqm", "svt", 1.0),
    ("rawsum", None, 0.5), ("clampshells", None, 0.05), ("clampshells", None, 1.0),
]  # fmt: skip
QUERIES = 16  # every:4 over 64 bins
ALPHA = 1e-3 / (len(CELLS) * QUERIES)
CRIT = int(binom.isf(ALPHA, R, 0.05))
POWER_AT_85 = float(binom.sf(CRIT, R, 0.15))


class SeededLaplace:
    """numpy's Laplace on a fixed seed (a test stand-in for OpenDP: same law, reproducible)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def add_laplace(self, values, scale):
        values = np.asarray(values, float)
        return values + self.rng.laplace(0.0, 1.0, values.shape) * np.asarray(scale, float)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    values = np.concatenate([
        np.zeros(150), rng.lognormal(7.0, 0.8, 250),
        100.0 * rng.integers(2, 20, 80) + 0.01, rng.uniform(5000, 6400, 8),
    ])  # fmt: skip
    return make_dataset(values, upper=UPPER)


def _config(epsilon: float) -> ExperimentConfig:
    return ExperimentConfig(workload="every:4", epsilon=epsilon, upper=UPPER, bins=BINS,
                            truncation_params=TruncationParams(theta=1500.0))  # fmt: skip


def _misses(data, algorithm, truncation, epsilon, *, old: bool = False) -> np.ndarray:
    config = _config(epsilon)
    truth = inputs_for(data, config).true_answers
    noise = SeededLaplace(zlib.crc32(f"{algorithm}/{truncation}/{epsilon}".encode()))
    misses = np.zeros(truth.size, int)
    for _ in range(R):
        plan = plan_release(config, algorithm=algorithm, truncation=truncation)
        rel = _release_with(data, plan, noise, None)
        if old:
            lo = rel.private_answers - rel.noise_halfwidth
            hi = rel.private_answers + rel.noise_halfwidth
        else:
            assert rel.intervals is not None  # every release path publishes intervals
            lo, hi = rel.intervals.lower, rel.intervals.upper
        misses += (truth < lo) | (truth > np.where(np.isnan(hi), np.inf, hi))
    return misses


def test_the_test_has_power():
    assert 10 <= CRIT <= 30 and POWER_AT_85 > 0.5


@pytest.mark.parametrize(("algorithm", "truncation", "epsilon"), CELLS)
def test_every_query_is_covered_95_percent_of_the_time(data, algorithm, truncation, epsilon):
    misses = _misses(data, algorithm, truncation, epsilon)
    assert misses.max() <= CRIT, (misses, CRIT)


def test_the_old_noise_plus_minus_is_flagged(data):
    misses = _misses(data, "tamm", "none", 1.0, old=True)
    assert misses.max() > CRIT
