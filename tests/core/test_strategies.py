"""GreedyH: the structured implementation against a literal dense port and the SPEC numbers."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.greedy_h import greedy_h
from dpsum_core.mechanisms.workloads import make_workload
from tests.core.greedy_reference import greedy_h_dense

CASES = [
    (1, "Q1", None),
    (2, "Q1", None),
    (7, "every:2", None),
    (7, "Q1", 35.0),
    (16, "every:4", None),
    (16, "Q1", 90.0),
    (64, "Q1", None),
    (64, "every:10", None),
    (64, "every:3", 250.0),
    (64, "values:50,333,640", 400.0),
]


def _setup(n, spec, theta):
    domain = Domain(10.0 * n, n)
    w = make_workload(spec, domain)
    t = None if theta is None else np.minimum(domain.bin_weights, theta)
    M = w.matrix(n) * (np.ones(n) if t is None else t)[None, :]
    return w, t, M


@pytest.mark.parametrize(("n", "spec", "theta"), CASES)
def test_structured_greedy_h_equals_dense_recursion(n, spec, theta):
    w, t, M = _setup(n, spec, theta)
    rows_ref, inv_ref = greedy_h_dense(M.T @ M)
    s = greedy_h(w.counts, n, t)
    got = sorted(zip(s.starts.tolist(), s.ends.tolist(), s.weights.tolist(), strict=True))
    want = sorted(rows_ref)
    assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in want]
    np.testing.assert_allclose([x[2] for x in got], [x[2] for x in want], rtol=1e-12)
    np.testing.assert_allclose(s.inverse.dense(), inv_ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("n", "spec", "theta"), CASES)
def test_structured_inverse_operations_match_dense(n, spec, theta):
    w, t, M = _setup(n, spec, theta)
    s = greedy_h(w.counts, n, t)
    A = s.dense()
    inv = s.inverse.dense()
    # Every column of a GreedyH strategy has L1 norm 1.
    np.testing.assert_allclose(np.abs(A).sum(axis=0), 1.0, rtol=1e-12)
    # The (pseudo-)inverse reproduces the workload: M A⁺ A = M, also on collapsed blocks.
    np.testing.assert_allclose(M @ inv @ A.T @ A, M, atol=1e-9 * max(1.0, np.abs(M).max()))
    # apply() and prefix_quadratic() against dense products.
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(3, n))
    np.testing.assert_allclose(s.inverse.apply(Z), Z @ inv, rtol=1e-9, atol=1e-9)
    scale = np.ones(n) if t is None else t
    R = w.matrix(n) * scale[None, :]
    np.testing.assert_allclose(
        s.inverse.prefix_quadratic(scale, w.counts), np.diag(R @ inv @ R.T), rtol=1e-9
    )
    # Least squares equals the pseudo-inverse solution projected onto the workload.
    z = rng.normal(size=(2, s.rows))
    np.testing.assert_allclose(
        w.matrix(n) @ s.least_squares(z).T, w.matrix(n) @ np.linalg.pinv(A) @ z.T, atol=1e-8
    )


def _error_factor(theta):
    domain = Domain()
    w = make_workload("Q1", domain)
    t = None if theta is None else np.minimum(domain.bin_weights, theta)
    s = greedy_h(w.counts, domain.bins, t)
    scale = np.ones(domain.bins) if t is None else t
    return s, s.l1_norm**2 * s.inverse.prefix_quadratic(scale, w.counts).sum()


@pytest.mark.parametrize(
    ("theta", "reference"),
    [(None, 1.015716e5), (50000 * 1.2**4, 1.074728e15), (50000 * 1.2**5, 1.448308e15)],
)
def test_greedy_h_reproduces_spec_reference_error(theta, reference):
    _, factor = _error_factor(theta)
    assert float(f"{factor:.7g}") == pytest.approx(reference, rel=5e-5)
    assert f"{factor:.4g}" == f"{reference:.4g}"


def test_prefix_strategy_shape_matches_ektelo():
    s, _ = _error_factor(None)
    assert s.rows == 1008
    lengths = s.ends - s.starts
    assert (lengths == 1).sum() == 1000
    assert sorted(set(lengths[lengths > 1].tolist())) == [125]
    assert (lengths == 125).sum() == 8


def test_error_factor_dense_check_at_reference():
    """The O(n log n) error factor equals Tr(W (AᵀA)⁻¹ Wᵀ) computed densely."""
    domain = Domain()
    w = make_workload("Q1", domain)
    s = greedy_h(w.counts, domain.bins)
    W = w.matrix(domain.bins)
    dense = np.trace(W @ s.inverse.dense() @ W.T)
    assert dense == pytest.approx(1.015716e5, rel=5e-7)


def test_theta_dependent_strategies_never_reach_the_process_wide_cache():
    """Timing channel: a cache hit is ~100× faster than a miss, so a cache shared by the app's
    sessions must be keyed by public quantities only. GreedyH(W) (TiMM) depends on the public
    workload and is shared; GreedyH(W·T_θ) (TaMM) depends on θ, which SVT and the recursive
    mechanism choose from the data, and is cached per session only."""
    import numpy as np

    from dpsum_core.data.dataset import make_dataset
    from dpsum_core.mechanisms import greedy_h as strategies
    from dpsum_core.mechanisms.matrix import tamm_strategy
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.experiment import run_experiment

    strategies.clear_caches()
    data = make_dataset(np.random.default_rng(0).lognormal(10.5, 1, 2000), upper=800_000)
    config = ExperimentConfig(workload="Q3", algorithms=("timm", "tamm"), trials=6,
                              truncations=("svt", "recursive"))
    alice, bob = strategies.StrategyCache(64), strategies.StrategyCache(64)
    with strategies.session_cache(alice):
        result = run_experiment(data, config)
    thetas = np.unique(np.concatenate([r.theta.ravel() for r in result.runs]))
    assert thetas.size > 6  # recursive θ differ per trial
    # the shared cache holds exactly one key, and no key built from a θ
    assert [key[2] for key in strategies.SHARED] == [None]
    assert len(strategies.process_cache()) == 0
    assert len(alice) >= thetas.size
    # another session finds none of alice's strategies: its first lookup of her θ is a miss
    with strategies.session_cache(bob):
        tamm_strategy(result.workload, config.domain, float(thetas[0]))
    assert bob.misses == 1 and bob.hits == 0 and len(bob) == 1
