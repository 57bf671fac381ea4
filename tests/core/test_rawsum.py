"""RawSum (RAWSUM.md): exact privacy loss, unbiasedness, post-hoc θ, analytic error."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain, bin_sums, histogram
from dpsum_core.mechanisms import rawsum
from dpsum_core.mechanisms.greedy_h import greedy_h
from dpsum_core.mechanisms.measurement import Inputs
from dpsum_core.mechanisms.workloads import make_workload


def _inputs(n: int, spec: str, seed: int = 0, size: int = 400) -> Inputs:
    domain = Domain(100.0 * n, n)
    rng = np.random.default_rng(seed)
    values = np.concatenate([rng.lognormal(np.log(15 * n), 0.8, size), np.zeros(20)])
    data = make_dataset(values, upper=domain.upper)
    w = make_workload(spec, domain)
    return Inputs(data, histogram(data, domain), w, domain, data.sum_at_most(w.thresholds))


def test_shells_follow_powers_of_two():
    assert list(rawsum.shell_edges(1000)) == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000]
    assert list(rawsum.shell_edges(16)) == [0, 1, 2, 4, 8, 16]
    assert list(rawsum.shell_edges(1)) == [0, 1]


@pytest.mark.parametrize(("n", "spec"), [(7, "Q1"), (16, "every:3"), (64, "values:1000,2500")])
@pytest.mark.parametrize("eps", [0.01, 1.0])
def test_exact_per_bin_privacy_loss_is_epsilon(n, spec, eps):
    """Dense check, built independently of the design: shells with Lap(g_k/(0.3ε)) and
    GreedyH(W·diag(e)) rows on s_j/e_j with Lap(1/(0.7ε)); a record in bin j moves s_j by at
    most e_j. The worst bin's loss is exactly ε, no bin exceeds it."""
    inputs = _inputs(n, spec)
    domain, w = inputs.domain, inputs.workload
    e = domain.edges
    edges = rawsum.shell_edges(n)
    loss = np.zeros(n)
    for k in range(edges.size - 1):
        top = e[edges[k + 1] - 1]
        for j in range(edges[k], edges[k + 1]):
            loss[j] += e[j] / (top / (0.3 * eps))
    A = greedy_h(w.counts, n, e).dense()
    loss += (np.abs(A) / e[None, :] * e[None, :]).sum(axis=0) / (1 / (0.7 * eps))
    assert loss.max() == pytest.approx(eps, rel=1e-12)
    d = rawsum.design(domain, w)
    np.testing.assert_allclose(d.loss_per_bin(d.scale / eps), loss, rtol=1e-12)


def test_unbiased_where_greedyh_collapses_cells():
    """values:1000,2500 on 64 bins leaves bins above 2500 uncovered: GreedyH collapses them into
    one block and the design is rank-deficient; the workload's answers stay unbiased."""
    inputs = _inputs(64, "values:1000,2500", seed=3)
    d = rawsum.design(inputs.domain, inputs.workload)
    assert np.linalg.matrix_rank(d.B.toarray()) < inputs.domain.bins  # collapsed: rank-deficient
    assert not d.full_rank
    trials = 20_000
    _, s_hat, spent = rawsum.reconstruct(inputs, trials, epsilon=0.5, rng=np.random.default_rng(1))
    assert spent == pytest.approx(0.5, rel=1e-12)
    answers = rawsum.answers_at(d, s_hat, np.full(trials, np.inf))
    se = answers.std(axis=0) / np.sqrt(trials)
    assert np.all(np.abs(answers.mean(axis=0) - inputs.true_answers) < 5 * se)
    # …and the analytic error agrees: zero bias at θ = ∞.
    bias2, _ = rawsum.rawsum_error(inputs, np.array([np.inf]), 0.5)
    np.testing.assert_allclose(bias2[0], 0.0, atol=1e-12 * inputs.true_answers.max() ** 2)


def test_analytic_error_equals_dense_formula():
    inputs = _inputs(16, "every:3")
    d = rawsum.design(inputs.domain, inputs.workload)
    Bw = d.B.toarray() / d.scale[:, None]
    P = np.linalg.pinv(Bw)
    eps, theta = 0.7, 650.0
    keep = (np.arange(16) < rawsum.kept_bins(inputs.domain, np.array([theta]))[0]).astype(float)
    C = (inputs.workload.matrix(16) * keep[None, :])
    s = bin_sums(inputs.data, inputs.domain)
    cov = 2 * P @ P.T / eps**2
    bias2, var = rawsum.rawsum_error(inputs, np.array([theta]), eps)
    np.testing.assert_allclose(var[0], np.diag(C @ cov @ C.T), rtol=1e-9)
    np.testing.assert_allclose(bias2[0], (C @ (P @ Bw @ s) - inputs.true_answers) ** 2, rtol=1e-9,
                               atol=1e-9 * inputs.true_answers.max() ** 2)


def test_theta_scan_is_post_processing(monkeypatch):
    """RawSum reads the data exactly once, through the bin sums, before any noise; the θ scan,
    the drop and the answers use only the noisy vector and public inputs."""
    real = _inputs(16, "Q1")
    s = bin_sums(real.data, real.domain)
    calls = []

    def only_bin_sums(data, domain):
        calls.append(data)
        return s

    class Sealed:
        def __getattr__(self, name):
            raise AssertionError(f"RawSum read data.{name}")

    monkeypatch.setattr(rawsum, "bin_sums", only_bin_sums)
    sealed = Inputs(Sealed(), None, real.workload, real.domain, None)  # type: ignore[arg-type]
    m = rawsum.rawsum(sealed, np.zeros(50), epsilon=1.0, rng=np.random.default_rng(0))
    assert len(calls) == 1 and m.answers.shape == (50, real.workload.size)
    grid = rawsum.theta_candidates(real.domain)
    assert np.all(np.isin(m.theta, grid))  # θ* only ever takes public candidate values


def test_theta_star_follows_the_occupied_shells():
    """Plenty of budget: θ* lands on the top edge of the highest occupied shell."""
    domain = Domain(1000.0, 100)
    w = make_workload("Q1", domain)
    data = make_dataset(np.full(500, 95.0), upper=1000.0)  # all in bin 10, shell 5 (bins 9–16)
    inputs = Inputs(data, histogram(data, domain), w, domain, data.sum_at_most(w.thresholds))
    m = rawsum.rawsum(inputs, np.zeros(20), epsilon=50.0, rng=np.random.default_rng(2))
    assert np.all(m.theta == domain.edges[15])
