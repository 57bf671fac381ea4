"""ClampShells measures bin J* as a leaf of its own (from tree depth 1, with the partition):
every record clamped to θ* = e_{J*}, and every value cleaned to U, sits in that bin, and
interpolating it over the top leaf biased every query inside that leaf (issue 26: the hourly
column's queries just below U, bench/ACCURACY.md round 7). Fails if the top leaf is not cut, or
if the cut is made where no query edge lies inside the top leaf."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.mechanisms import clampshells_partition as cp
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment

U, BINS = 1_000.0, 1_000


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_bin_j_star_is_its_own_leaf_for_q1(epsilon):
    d = cs.design_for(Domain(U, BINS), epsilon)
    for j in d.clamp_bins().tolist():
        cells = cp.stage2_design(d, j, ()).cells
        k = int(np.searchsorted(cells, j))
        assert cells[k] == j and cells[k - 1] == j - 1, j


def test_no_cut_where_no_query_lies_inside_the_top_leaf():
    """Q2's leaves already end on its query edges: no query interpolates in the top leaf."""
    domain = Domain(U, BINS)
    d = cs.design_for(domain, 1.0, make_workload("Q2", domain))
    assert d.aligned
    for j in d.clamp_bins().tolist():
        assert cp.top_cut(d, j) == () or np.any((d.aligned_on > j - 2) & (d.aligned_on < j))


def test_the_point_mass_at_u_stays_out_of_the_queries_below_it():
    """At ε = 1 (tree depth 2: leaves of 8 bins in the top shell) on 22,000 records the noise
    is ≈ 0.2 % of the answers just below U: they are the true ones, not the true ones plus up
    to 7/8 of the point mass at U (15 % of them), which the top leaf used to spread."""
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.uniform(0, U, 20_000), np.full(2_000, U)])
    config = ExperimentConfig(workload="Q1", upper=U, bins=BINS, epsilon=1.0, trials=3, seed=1,
                              algorithms=("clampshells",), truncations=("svt",))  # fmt: skip
    out = run_experiment(make_dataset(values, upper=U), config)
    answers = np.asarray(out.runs[0].answers)  # trials × queries, before isotonic regression
    truth = np.asarray(out.true_answers)
    below = slice(BINS - 8, BINS - 1)  # the queries inside the top leaf, below U
    np.testing.assert_allclose(answers[:, below], np.broadcast_to(truth[below], answers[:, below].shape), rtol=1e-2)


def test_the_tail_scan_keeps_bin_j_star_with_the_leaf_below_it():
    """The tail scan decides where the tail ends at the uncut leaves: bin J* alone (the clamped
    mass) is kept whenever the leaf it was cut from is, even where its own noisy value is not
    significant — and both go when neither is."""
    from dpsum_core.mechanisms.clampshells_answers import tail_scan

    d = cs.design_for(Domain(U, BINS), 1.0)
    j = 512
    d_j = cp.stage2_design(d, j, ())
    top = int(np.searchsorted(d_j.cells, j)) - 1  # the leaf of bin J* alone
    x = np.zeros((2, d_j.cells.size - 1))
    x[:, : top - 1] = 1e6  # every leaf below is plainly there
    x[0, top - 1], x[0, top] = 1e6, -1.0  # the leaf below J*'s is significant, J*'s own is not
    kept = tail_scan(d_j, x, np.array([j, j]), 1.0)
    assert kept[0, top] == -1.0 and kept[0, top - 1] == 1e6
    x[1, top - 1], x[1, top] = -1.0, -1.0  # neither is: the tail ends below them
    kept = tail_scan(d_j, x, np.array([j, j]), 1.0)
    assert kept[1, top] == 0.0 and kept[1, top - 1] == 0.0
