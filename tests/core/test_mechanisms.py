"""Mechanisms and analytic error against dense formulas at small n (SPEC §3, §6)."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.mechanisms.baselines import identity_sensitivity, workload_sensitivity
from dpsum_core.mechanisms.matrix import (
    tamm_sensitivity,
    tamm_strategy,
    timm_sensitivity,
    timm_strategy,
)
from dpsum_core.mechanisms.measurement import Inputs, truncated_weights
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.workloads import make_workload


@pytest.fixture(params=[(7, "Q1"), (16, "every:3"), (64, "every:5")])
def setup(request):
    n, spec = request.param
    domain = Domain(100.0 * n, n)
    rng = np.random.default_rng(n)
    data = make_dataset(rng.uniform(0, domain.upper, 300), upper=domain.upper)
    w = make_workload(spec, domain)
    x = histogram(data, domain)
    return Inputs(data, x, w, domain, data.sum_at_most(w.thresholds))


THETAS = np.array([150.0, 1e9])


def test_sensitivities_are_dense_l1_norms(setup):
    domain, w = setup.domain, setup.workload
    W = w.matrix(domain.bins)
    for theta in THETAS:
        th = np.array([theta])
        T = np.diag(truncated_weights(domain, th)[0])
        l1 = lambda M: np.abs(M).sum(axis=0).max()  # noqa: E731
        assert identity_sensitivity(w, domain, th)[0] == 1.0
        assert workload_sensitivity(w, domain, th)[0] == pytest.approx(l1(W @ T))
        A = timm_strategy(w, domain).dense()
        assert timm_sensitivity(w, domain, th)[0] == pytest.approx(l1(A @ T))
        A2 = tamm_strategy(w, domain, theta).dense()
        assert tamm_sensitivity(w, domain, th)[0] == pytest.approx(l1(A2))


@pytest.mark.parametrize("name", ["identity", "workload", "timm", "tamm"])
def test_batch_mechanisms_are_unbiased_for_w_t_x(setup, name):
    """Mean over many trials ≈ W T_θ x (the R-side expectation): each mechanism is unbiased,
    and the ε its noise bought is the measurement budget."""
    domain, w, x = setup.domain, setup.workload, setup.x
    theta = np.full(4000, 150.0)
    T = truncated_weights(domain, theta[:1])[0]
    target = w.matrix(domain.bins) @ (T * x)
    measured = get(name).run(setup, theta, epsilon=5.0, rng=np.random.default_rng(1))
    ans = measured.answers
    se = ans.std(axis=0) / np.sqrt(theta.size)
    assert np.all(np.abs(ans.mean(axis=0) - target) < 5 * se + 1e-9)
    assert measured.epsilon == pytest.approx(5.0, rel=1e-12)


def test_expected_variance_equals_dense_formulas(setup):
    domain, data, w, x, y = setup.domain, setup.data, setup.workload, setup.x, setup.true_answers
    n, eps = domain.bins, 0.3
    W = w.matrix(n)
    for theta in THETAS:
        th = np.array([theta])
        T = truncated_weights(domain, th)[0]
        bias2, var = get("identity").error(setup, th, eps)
        np.testing.assert_allclose(var[0], 2 / eps**2 * np.diag(W @ np.diag(T**2) @ W.T))
        np.testing.assert_allclose(bias2[0], (W @ (T * x) - y) ** 2)
        A = timm_strategy(w, domain)
        b = np.abs(A.dense() * T[None, :]).sum(axis=0).max() / eps
        inv = np.linalg.pinv(A.dense().T @ A.dense())
        np.testing.assert_allclose(get("timm").error(setup, th, eps)[1][0], 2 * b**2 * np.diag(W @ inv @ W.T), rtol=1e-8)
        A = tamm_strategy(w, domain, theta)
        inv = np.linalg.pinv(A.dense().T @ A.dense())
        R = W * T[None, :]
        np.testing.assert_allclose(get("tamm").error(setup, th, eps)[1][0], 2 / eps**2 * np.diag(R @ inv @ R.T), rtol=1e-7)
        np.testing.assert_allclose(get("workload").error(setup, th, eps)[1][0], 2 * (np.abs(W @ np.diag(T)).sum(axis=0).max() / eps) ** 2)
    assert data.size == 300


def test_sqm_centre_scale_and_spent_budget(setup):
    data, w = setup.data, setup.workload
    theta = np.full((3000, w.size), 220.0)
    measured = get("sqm").run(setup, theta, epsilon=50.0, rng=np.random.default_rng(2))
    ans = measured.answers
    exact = np.array([sum(min(t, 220.0) for t in data.values if t <= tau) for tau in w.thresholds])
    se = ans.std(axis=0) / np.sqrt(theta.shape[0])
    assert np.all(np.abs(ans.mean(axis=0) - exact) < 5 * se + 1e-9)
    # m queries at ε_m/m each compose to ε_m.
    assert measured.epsilon == pytest.approx(50.0, rel=1e-12)
