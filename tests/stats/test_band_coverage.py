"""Coverage of band totals' 95 % intervals (review 9 P2-5), on the data of
test_interval_coverage (hard for the bias bounds), with a stated power.

Each cell makes R = 200 releases (a seeded Laplace source in place of OpenDP's, never
retried); each band is the difference of two queries' answers: every pair of neighbouring
thresholds, and the widest (first to last). A band's misses over the R releases are
Binomial(R, p) with p ≤ 0.05 if its interval holds; the test fails when one misses more than
``CRIT`` times (α = 10⁻³ shared over every band of every cell). The negative control: the two
95 % intervals subtracted end by end, [L_h − L_l, U_h − U_l], is flagged.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy.stats import binom

from dpsum_core.publish.bands import band_total
from dpsum_core.publish.release import _release_with, plan_release
from dpsum_core.simulate.experiment import inputs_for
from tests.stats.test_interval_coverage import QUERIES, SeededLaplace, _config
from tests.stats.test_interval_coverage import data as data  # the module's fixture

R = 200
CELLS = [
    ("tamm", "none", 1.0), ("workload", "recursive", 0.5), ("rawsum", None, 0.5),
    ("clampshells", None, 0.05), ("clampshells", None, 1.0), ("sqm", "none", 0.5),
]  # fmt: skip
BANDS = [(i, i + 1) for i in range(QUERIES - 1)] + [(0, QUERIES - 1)]
ALPHA = 1e-3 / (len(CELLS) * len(BANDS))
CRIT = int(binom.isf(ALPHA, R, 0.05))


def _misses(data, algorithm, truncation, epsilon, *, naive: bool = False) -> np.ndarray:
    config = _config(epsilon)
    truth = inputs_for(data, config).true_answers
    noise = SeededLaplace(zlib.crc32(f"bands/{algorithm}/{truncation}/{epsilon}".encode()))
    misses = np.zeros(len(BANDS), int)
    for _ in range(R):
        plan = plan_release(config, algorithm=algorithm, truncation=truncation)
        rel = _release_with(data, plan, noise, None)
        t = rel.thresholds
        for k, (lo, hi) in enumerate(BANDS):
            true = truth[hi] - truth[lo]
            if naive:
                iv = rel.intervals
                assert iv is not None
                low, high = iv.lower[hi] - iv.lower[lo], iv.upper[hi] - iv.upper[lo]
            else:
                band = band_total(rel, t[lo], t[hi])
                low, high = band.lower, band.upper
            misses[k] += bool(true < low - 1e-9 or true > np.nan_to_num(high, nan=np.inf) + 1e-9)
    return misses


@pytest.mark.parametrize(("algorithm", "truncation", "epsilon"), CELLS)
def test_every_band_is_covered_95_percent_of_the_time(data, algorithm, truncation, epsilon):
    misses = _misses(data, algorithm, truncation, epsilon)
    assert misses.max() <= CRIT, (misses, CRIT)


def test_the_95_intervals_subtracted_end_by_end_are_flagged(data):
    misses = _misses(data, "tamm", "none", 1.0, naive=True)
    assert misses.max() > CRIT, (misses, CRIT)
