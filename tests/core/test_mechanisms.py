"""Mechanisms and analytic error against dense formulas at small n (SPEC §3, §6)."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data import Domain, histogram, make_dataset
from dpsum_core.expected import error_components
from dpsum_core.mechanisms import (
    BATCH,
    noise_scale,
    sqm,
    tamm_strategy,
    timm_strategy,
    truncated_weights,
)
from dpsum_core.workloads import make_workload


@pytest.fixture(params=[(7, "Q1"), (16, "every:3"), (64, "every:5")])
def setup(request):
    n, spec = request.param
    domain = Domain(100.0 * n, n)
    rng = np.random.default_rng(n)
    data = make_dataset(rng.uniform(0, domain.upper, 300), upper=domain.upper)
    w = make_workload(spec, domain)
    return domain, data, w, histogram(data, domain)


THETAS = np.array([150.0, 1e9])


def test_noise_scales_are_dense_sensitivities(setup):
    domain, _, w, _ = setup
    W = w.matrix(domain.bins)
    eps = 0.7
    for theta in THETAS:
        T = np.diag(truncated_weights(domain, np.array([theta]))[0])
        l1 = lambda M: np.abs(M).sum(axis=0).max()  # noqa: E731
        assert noise_scale("identity", w, domain, np.array([theta]), epsilon=eps)[0] == pytest.approx(1 / eps)
        assert noise_scale("workload", w, domain, np.array([theta]), epsilon=eps)[0] == pytest.approx(l1(W @ T) / eps)
        A = timm_strategy(w, domain).dense()
        assert noise_scale("timm", w, domain, np.array([theta]), epsilon=eps)[0] == pytest.approx(l1(A @ T) / eps)
        A2 = tamm_strategy(w, domain, theta).dense()
        assert noise_scale("tamm", w, domain, np.array([theta]), epsilon=eps)[0] == pytest.approx(l1(A2) / eps)


def test_batch_mechanisms_are_unbiased_for_w_t_x(setup):
    """Mean over many trials ≈ W T_θ x (the R-side expectation): each mechanism is unbiased."""
    domain, _, w, x = setup
    theta = np.full(4000, 150.0)
    T = truncated_weights(domain, theta[:1])[0]
    target = w.matrix(domain.bins) @ (T * x)
    for name, mech in BATCH.items():
        ans = mech(x, w, domain, theta, epsilon=5.0, rng=np.random.default_rng(1))
        se = ans.std(axis=0) / np.sqrt(theta.size)
        assert np.all(np.abs(ans.mean(axis=0) - target) < 5 * se + 1e-9), name


def test_expected_variance_equals_dense_formulas(setup):
    domain, data, w, x = setup
    n, eps = domain.bins, 0.3
    W = w.matrix(n)
    y = data.sum_at_most(w.thresholds)
    for theta in THETAS:
        T = truncated_weights(domain, np.array([theta]))[0]
        kw = dict(data=data, x=x, workload=w, domain=domain, theta=np.array([theta]),
                  epsilon_measure=eps, true_answers=y)
        bias2, var = error_components("identity", **kw)
        np.testing.assert_allclose(var[0], 2 / eps**2 * np.diag(W @ np.diag(T**2) @ W.T))
        np.testing.assert_allclose(bias2[0], (W @ (T * x) - y) ** 2)
        A = timm_strategy(w, domain)
        b = np.abs(A.dense() * T[None, :]).sum(axis=0).max() / eps
        inv = np.linalg.pinv(A.dense().T @ A.dense())
        np.testing.assert_allclose(error_components("timm", **kw)[1][0], 2 * b**2 * np.diag(W @ inv @ W.T), rtol=1e-8)
        A = tamm_strategy(w, domain, theta)
        inv = np.linalg.pinv(A.dense().T @ A.dense())
        R = W * T[None, :]
        np.testing.assert_allclose(error_components("tamm", **kw)[1][0], 2 / eps**2 * np.diag(R @ inv @ R.T), rtol=1e-7)


def test_sqm_centre_and_scale(setup):
    _domain, data, w, _ = setup
    theta = np.full((3000, w.size), 220.0)
    ans = sqm(data, w, theta, epsilon_measure=50.0, rng=np.random.default_rng(2))
    exact = np.array([sum(min(t, 220.0) for t in data.values if t <= tau) for tau in w.thresholds])
    se = ans.std(axis=0) / np.sqrt(theta.shape[0])
    assert np.all(np.abs(ans.mean(axis=0) - exact) < 5 * se + 1e-9)
