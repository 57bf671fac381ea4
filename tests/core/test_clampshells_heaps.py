"""ClampShells interpolates inside a leaf by the roundness of the bin edges, weights estimated from
the partition's noisy bin sums (issue 26, round 8): a heap at a round value (hourly wages at
whole dollars) is no longer spread over the bins below it in its leaf. Fails if the
interpolation is linear (the old code), if the weights are not read from the partition's sums,
or if a column without heaps is interpolated other than linearly."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.mechanisms import clampshells_partition as cp
from dpsum_core.mechanisms.clampshells_answers import query_cells
from dpsum_core.mechanisms.clampshells_heaps import ROUNDNESS_MAX, edge_roundness, heap_fractions
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment


@pytest.mark.parametrize(
    ("upper", "edges", "expected"),
    [
        (100.0, [0.1, 0.2, 0.5, 2.9, 3.0, 4.0, 10.0], [0, 1, 2, 0, 3, 4, 5]),  # $0.10 bins
        (250_000.0, [250, 500, 1000, 5000, 10_000, 1750], [0, 1, 2, 4, 5, 0]),  # $250 bins
        (7_000.0, [7, 14, 70, 700, 3500], [0, 0, 0, 3, 5]),  # an awkward width: $70 spans 1.4 bins
    ],
)
def test_edge_roundness(upper, edges, expected):
    domain = Domain(upper, 1000)
    j = np.rint(np.asarray(edges) / domain.width).astype(int) - 1
    r = edge_roundness(domain)
    assert r[j].tolist() == expected
    assert r.shape == (1000,) and r.max() <= ROUNDNESS_MAX and not r.flags.writeable


def _hourly_design(j_star: int = 512):
    domain = Domain(100.0, 1000)
    d = cs.design_for(domain, 1.0, make_workload("Q1", domain))
    return domain, cp.stage2_design(d, j_star, ())


def _leaves(d, per_bin: np.ndarray) -> np.ndarray:
    """The exact leaf sums of bins holding ``per_bin`` (the bins 1..J*), one trial."""
    cum = np.concatenate(([0.0], np.cumsum(per_bin)))
    cells = np.minimum(d.cells, per_bin.size)
    return (cum[cells[1:]] - cum[cells[:-1]])[None, :]


def test_without_heaps_the_interpolation_is_linear():
    domain, d = _hourly_design()
    j = 512
    per_bin = np.full(j, 50.0)
    scale = cp.partition_scale(d, j, 1.0)
    y = np.where(np.isfinite(scale), per_bin, 0.0)[None, :]
    counts = make_workload("Q1", domain).counts
    share = heap_fractions(d, _leaves(d, per_bin), y, scale, j, counts)
    np.testing.assert_allclose(share[0], query_cells(d, counts)[1], atol=1e-12)


def test_a_heap_at_a_round_edge_stays_in_its_bin():
    """Every whole dollar holds 10× an ordinary bin's sum: the share of the leaf ($2.80, $3.00]
    below $2.90 is about 1/11, not 1/2; the weights come from the partition's sums (the same
    leaves with flat partition sums give the linear share back)."""
    domain, d = _hourly_design()
    j = 512
    per_bin = np.full(j, 20.0)
    per_bin[edge_roundness(domain)[:j] >= 3] = 200.0  # whole dollars ($1.00, $2.00, …)
    scale = cp.partition_scale(d, j, 1.0)
    counts = make_workload("Q1", domain).counts
    leaves = _leaves(d, per_bin)
    i = 28  # τ = $2.90
    c, linear = query_cells(d, counts)
    assert d.cells[c[i]] == 28 and d.cells[c[i] + 1] == 30 and linear[i] == 0.5
    y = np.where(np.isfinite(scale), per_bin, 0.0)[None, :]
    share = heap_fractions(d, leaves, y, scale, j, counts)
    assert share[0, i] == pytest.approx(20.0 / 220.0, rel=0.05)
    flat = np.where(np.isfinite(scale), leaves[0, np.searchsorted(d.cells, np.arange(1, j + 1)) - 1]
                    / np.diff(d.cells)[np.searchsorted(d.cells, np.arange(1, j + 1)) - 1], 0.0)[None, :]  # fmt: skip
    assert heap_fractions(d, leaves, flat, scale, j, counts)[0, i] == pytest.approx(0.5, abs=1e-9)
    assert np.all((share >= 0) & (share <= 1))


def test_the_answer_below_a_heap_is_not_given_half_of_it():
    """End to end at ε = 1 on an hourly column (60,000 wages, a third at whole dollars; $123 at
    $3.00, $17 between $2.80 and $2.90): linear interpolation put half of the $3.00 heap into
    the answer at τ = $2.90 (true sum $38: a bias of +50 over 200 trials; now +13 to +15 over
    three noise seeds, the mean's sd ≈ 1)."""
    rng = np.random.default_rng(5)
    body = np.round(np.exp(rng.normal(np.log(18.0), 0.5, 40_000)), 2)
    whole = np.round(np.exp(rng.normal(np.log(18.0), 0.5, 20_000)))
    low = np.array([2.85] * 6 + [2.95] * 2 + [3.0] * 28 + [2.5] * 4)
    values = np.clip(np.concatenate([body, whole, low]), 0.01, 100.0)
    config = ExperimentConfig(workload="Q1", upper=100.0, bins=1000, epsilon=1.0, trials=200,
                              seed=2, algorithms=("clampshells",), truncations=("svt",))  # fmt: skip
    out = run_experiment(make_dataset(values, upper=100.0), config)
    answers = np.asarray(out.runs[0].answers)  # before isotonic regression
    truth = np.asarray(out.true_answers)
    i = 28
    heap = float(values[(values > 2.9) & (values <= 3.0)].sum())
    assert heap > truth[i]  # the heap outweighs the answer's own true sum
    assert abs(float(answers[:, i].mean()) - truth[i]) < heap / 4
