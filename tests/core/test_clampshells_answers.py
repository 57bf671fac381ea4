"""ClampShells' post-processing (clampshells_answers): the public noise sd of every answer and
the onset gate (issue 26)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import block_diag

from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.mechanisms import clampshells_answers as ca


@pytest.mark.parametrize("eps", [0.01, 0.3])
def test_answer_sd_is_the_exact_sd_of_the_cumulative_sum_at_every_leaf_edge(eps):
    """Against the full covariance of all leaves (block diagonal over the parts, after the GLS
    update with stage 1 below the top active part): the variance of Σ_{c′ ≤ c} x̂_c′, at each
    leaf's upper edge, with every part active (J* = n), and the variance of the total for a
    query at or above θ*."""
    d = cs.design_for(Domain(1000.0, 100), eps)
    _, combined = d.stage1_gls

    def covs(j):
        top = int(d.shells_below(j)) - 1
        return [combined[k] if k < top else V for k, V in enumerate(d.leaf_cov)][: top + 1]

    cov = block_diag(*covs(d.domain.bins)) / eps**2
    C = cov.shape[0]
    lower = np.tril(np.ones((C, C)))
    exact = np.sqrt(np.diagonal(lower @ cov @ lower.T))
    counts = d.cells[1:]
    got = ca.answer_sd(d, counts, np.array([d.domain.bins]), eps)[0]
    np.testing.assert_allclose(got, exact, rtol=1e-9)
    j = int(d.clamp_bins()[0])  # the lowest clamp point: queries at or above it get the total
    total = np.sqrt(sum(V.sum() for V in covs(j))) / eps
    above = ca.answer_sd(d, counts, np.array([j]), eps)[0][counts >= j]
    np.testing.assert_allclose(above, total, rtol=1e-9)


def test_onset_gate_zeroes_only_the_answers_before_the_first_significant_one():
    delta = 100.0
    sd = np.full(6, 1e4)  # σ = 100 δ: z = √(2 ln(1 + 1000)) ≈ 3.72 (ONSET_FLOOR = 0.1)
    z = np.sqrt(2 * np.log1p(1e4 / (ca.ONSET_FLOOR * delta)))
    answers = np.array([
        [3e4, 1e3, 5e4, 2e4, -1e3, 9e4],  # first above z·σ: index 2; later ones kept as they are
        [1e3, 2e3, 3e3, 4e3, 5e3, 6e3],  # none significant: all 0
        [z * 1e4 * 1.01, 0, 0, 0, 0, 0],  # the first is significant: nothing changes
    ])  # fmt: skip
    got = ca.onset_gate(answers, np.broadcast_to(sd, answers.shape), delta)
    np.testing.assert_array_equal(got[0], [0, 0, 5e4, 2e4, -1e3, 9e4])
    np.testing.assert_array_equal(got[1], np.zeros(6))
    np.testing.assert_array_equal(got[2], answers[2])


def test_onset_gate_does_nothing_where_the_noise_is_far_below_delta():
    """σ ≪ δ: z ≈ 0, so only leading answers ≤ 0 are zeroed (which clipping at 0 does anyway)."""
    answers = np.array([[0.5, 0.2, 3.0, 1.0]])
    got = ca.onset_gate(answers, np.full((1, 4), 1e-3), 100.0)
    np.testing.assert_array_equal(got, answers)
    assert ca.onset_gate(np.array([[-0.1, 0.2]]), np.full((1, 2), 1e-3), 100.0).tolist() == [[0.0, 0.2]]


def test_onset_gate_keeps_an_answer_whose_next_one_is_far_above_its_noise():
    """An answer below z·σ is the onset when the next answer exceeds ONSET_NEXT_Z of its own
    σ (a density already rising), and only then: just below that, it is zeroed as before."""
    delta, sigma = 100.0, 1e4  # z ≈ 3.72
    sd = np.full((2, 4), sigma)
    big = ca.ONSET_NEXT_Z * sigma
    answers = np.array([
        [1e3, 2e4, big * 1.01, 3e6],  # answer 1 (2σ, below z·σ) precedes one above 10σ: kept
        [1e3, 2e4, big * 0.99, 3e6],  # the next is just below 10σ: answer 1 is zeroed
    ])  # fmt: skip
    got = ca.onset_gate(answers, sd, delta)
    np.testing.assert_array_equal(got[0], [0, 2e4, big * 1.01, 3e6])
    np.testing.assert_array_equal(got[1], [0, 0, big * 0.99, 3e6])


def test_onset_next_answer_factor_is_five_from_tree_depth_two():
    """Depth is public (ε only): 10 noise sds up to depth 1, 5 from depth 2 (64 leaves)."""
    assert [ca.onset_next_z(L) for L in range(4)] == [10.0, 10.0, 5.0, 5.0]
    sd = np.full((1, 3), 1e4)
    answers = np.array([[2e4, 7e4, 3e6]])  # the next answer is 7 sds: an onset at 5, not at 10
    assert ca.onset_gate(answers, sd, 100.0, ca.onset_next_z(2)).tolist() == answers.tolist()
    assert ca.onset_gate(answers, sd, 100.0, ca.onset_next_z(1)).tolist() == [[0.0, 7e4, 3e6]]
