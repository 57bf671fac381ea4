"""ClampShells' stage-2 leaves on the workload's query edges (issue 26 item 3): exact privacy
loss for every J*, no query interpolating inside a leaf, Q1 keeping the equal leaves, and the
release's interval decoding the same design."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.mechanisms import clampshells_answers as ca
from dpsum_core.mechanisms import clampshells_design as csd
from dpsum_core.mechanisms.workloads import make_workload
from tests.core.test_clampshells import assert_exact_loss


@pytest.mark.parametrize("n", [16, 64])
@pytest.mark.parametrize("eps", [0.1, 1.0, 8.0])
@pytest.mark.parametrize("spec", ["Q2", "every:3", "values:35,77,130"])
def test_exact_per_record_loss_is_epsilon_with_leaves_on_the_query_edges(n, eps, spec):
    """For every J* and every record at 0, U, on and next to every edge: loss ≤ ε, with
    equality for the worst record, when the tree's levels are runs of the workload's query
    intervals (their number differs from the equal split's, so a scale computed from the
    equal tree's level count would give a loss above ε here)."""
    domain = Domain(10.0 * n, n)
    workload = make_workload(spec, domain)
    d = cs.design_for(domain, eps, workload)
    assert d.aligned
    rng = np.random.default_rng(n)
    base = make_dataset(np.append(rng.uniform(0, domain.upper, 30).round(3), [domain.upper] * 3), upper=domain.upper)
    assert_exact_loss(base, domain, d, eps)
    assert d.loss_per_bin(d.node_scale / eps).max() == pytest.approx((1 - cs.LOCATE_SHARE) * eps, rel=1e-12)


@pytest.mark.parametrize("eps", [0.1, 0.3, 1.0])
def test_no_q2_query_interpolates_inside_a_leaf_where_a_part_holds_at_most_b_to_the_l_queries(eps):
    """Q2 at n = 1 000: every query edge inside a part with at most B^L query intervals is a
    leaf edge (the equal leaves of 8, 4 or 2 bins put most of them inside a leaf), and every
    part's levels nest (each coarser edge is a leaf edge)."""
    domain = Domain(100.0, 1000)
    workload = make_workload("Q2", domain)
    d, plain = cs.design_for(domain, eps, workload), cs.design_for(domain, eps)
    L = csd.levels_for(eps)
    counts = workload.counts
    widths = np.diff(d.parts)
    inside = np.array([np.sum((counts > a) & (counts < b)) + 1 for a, b in zip(d.parts[:-1], d.parts[1:], strict=True)])
    small = inside <= csd.TREE_BRANCH**L
    for k in np.flatnonzero(small):
        a, b = d.parts[k], d.parts[k + 1]
        q = counts[(counts > a) & (counts < b)]
        assert set(q.tolist()) <= set(d.cells.tolist()), (a, b)
    assert np.isin(d.node_lo, d.cells).all() and np.isin(d.node_hi, d.cells).all()
    on_edge = np.isin(counts, d.cells)
    assert on_edge.mean() > np.isin(counts, plain.cells).mean()
    assert (widths[small] > 0).all()


def test_q1_and_depth_zero_keep_the_equal_leaves():
    """Q1 has an edge at every bin: its design is the workload-free one (the same cached
    object), and so is every design at depth 0 (small ε)."""
    domain = Domain(100.0, 1000)
    assert cs.design_for(domain, 1.0, make_workload("Q1", domain)) is cs.design_for(domain, 1.0)
    assert cs.design_for(domain, 0.01, make_workload("Q2", domain)) is cs.design_for(domain, 0.01)
    assert not cs.design_for(domain, 1.0).aligned


def test_onset_next_answer_factor_stays_ten_on_leaves_on_the_query_edges():
    """Depth ≥ 2 gives 5 noise sds on equal leaves, 10 on leaves on the query edges."""
    assert ca.onset_next_z(2, aligned=True) == ca.ONSET_NEXT_Z == 10.0
    assert ca.onset_next_z(2) == ca.ONSET_NEXT_Z_DEEP == 5.0
    assert ca.onset_next_z(1, aligned=True) == 10.0


def test_q2_answers_are_unbiased_at_their_query_edges_without_noise():
    """Without noise and with θ* at U (no clamping), every Q2 answer below θ* is the exact prefix
    sum wherever its edge is a leaf edge: values heaped at whole units, where interpolation
    inside a leaf of the equal tree is biased."""
    domain = Domain(100.0, 1000)
    workload = make_workload("Q2", domain)
    rng = np.random.default_rng(3)
    values = np.rint(rng.lognormal(np.log(19), 0.5, 5000)).clip(0, 100)
    data = make_dataset(values, upper=domain.upper)
    truth = data.sum_at_most(workload.thresholds)
    for d in (cs.design_for(domain, 1.0, workload), cs.design_for(domain, 1.0)):
        stats = cs.edge_statistics(data, domain)
        j = np.array([domain.bins])
        exact = cs.stage2_exact(stats, d, domain.bins)[None, :]
        z = np.zeros((1, d.node_scale.size))
        z[:, : exact.shape[1]] = exact
        leaves = np.asarray(d.reconstruct @ z.T).T
        got = ca.answers_from_cells(d, leaves, j, workload.counts)[0]
        on_edge = np.isin(workload.counts, d.cells)
        err = np.abs(got - truth)[on_edge]
        if d.aligned:
            assert on_edge.all()
            np.testing.assert_allclose(got, truth, rtol=1e-9, atol=1e-6)
        else:  # the equal leaves: most queries interpolate, with a bias at the heaps
            assert not on_edge.all() and np.max(np.abs(got - truth)[~on_edge]) > 100 * max(err.max(), 1.0)
