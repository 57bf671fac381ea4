"""Privacy smoke tests on neighbouring datasets (D and D plus one record), fixed seeds.

For each mechanism the audit must pass, and a deliberately broken copy (the negative control)
must be flagged by the same harness: a test that cannot fail proves nothing.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.mechanisms.baselines import identity, workload_mechanism
from dpsum_core.mechanisms.matrix import tamm_measure, tamm_strategy, timm_measure, timm_strategy
from dpsum_core.mechanisms.measurement import Inputs
from dpsum_core.mechanisms.sqm import sqm
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.recursive import crossover_index, recursive_theta
from dpsum_core.truncation.svt import svt_first_above, svt_grid, svt_scales, svt_theta
from tests.stats.harness import audit

TRIALS = 200_000
U = 800_000.0


def _mixed_svt_neighbours():
    """r = ½ and a record added in (u_7, u_8]: g_j falls by ½ below the new record and rises by ½
    from it on — the non-monotone case that monotone-query noise does not cover."""
    grid = svt_grid(U, s=50_000, c=1.2)
    base = np.concatenate([np.full(3, 40_000.0), np.full(3, grid[8] + 1.0)])
    return grid, make_dataset(base, upper=U), make_dataset(np.append(base, grid[7] - 1.0), upper=U)


def _svt_outputs(d, d2, grid, *, r, b_eta, b_nu, trials=TRIALS):
    outs = []
    for i, x in enumerate((d, d2)):
        gaps = x.count_at_most(grid) - r * x.size
        idx, fired = svt_first_above(gaps, b_eta=b_eta, b_nu=b_nu, trials=trials, rng=np.random.default_rng(i))
        outs.append(np.where(fired, grid[idx], U))
    return outs


@pytest.mark.parametrize("variant", ["paper", "tight"])
def test_svt_is_private_on_non_monotone_neighbours(variant):
    grid, d, d2 = _mixed_svt_neighbours()
    b_eta, b_nu = svt_scales(1.0, r=0.5, variant=variant)
    outs = _svt_outputs(d, d2, grid, r=0.5, b_eta=b_eta, b_nu=b_nu, trials=1_000_000)
    result = audit(*outs, _index_events(grid), epsilon=1.0)
    assert not result.violated, result


def test_svt_with_monotone_noise_and_true_n_is_flagged():
    """Lyu–Su–Li's monotone calibration Lap(Δ/ε₂) on g = f − r·N (N private): not private."""
    grid, d, d2 = _mixed_svt_neighbours()
    eps1 = 1.0 / (1 + 2 ** (2 / 3))
    outs = _svt_outputs(d, d2, grid, r=0.5, b_eta=0.5 / eps1, b_nu=0.5 / (1.0 - eps1), trials=1_000_000)
    result = audit(*outs, _index_events(grid), epsilon=1.0)
    assert result.violated, result


def test_theta_from_the_data_max_is_flagged():
    """θ = max(D) released without noise: adding a larger record changes θ with certainty."""
    d = make_dataset(np.array([10.0, 2_000.0, 30_000.0]), upper=U)
    d2 = make_dataset(np.array([10.0, 2_000.0, 30_000.0, 700_000.0]), upper=U)
    outs = [np.full(TRIALS, x.values.max()) for x in (d, d2)]
    events = {"θ = max(D)": lambda out: out == d.values.max()}
    assert audit(*outs, events, epsilon=1.0).violated


def _svt_neighbours():
    """D with an empty grid cell just below the quantile; D′ adds a record in that cell."""
    grid = svt_grid(U, s=50_000, c=1.2)
    base = np.concatenate([np.full(6, 40_000.0), np.full(3, grid[3] - 1.0)])
    d = make_dataset(base, upper=U)
    d2 = make_dataset(np.append(base, grid[1] - 1.0), upper=U)  # lands in (u_1, u_2]
    return grid, d, d2


def _index_events(grid):
    return {f"θ = u_{k + 1}": (lambda out, g=g: out == g) for k, g in enumerate(grid)} | {
        "θ = U (fallback)": lambda out: out == U
    }


@pytest.mark.parametrize("variant", ["paper", "tight"])
def test_svt_is_private_on_neighbours(variant):
    grid, d, d2 = _svt_neighbours()
    eps = 1.0
    params = TruncationParams(svt_variant=variant, svt_r=0.9)
    outs = [
        svt_theta(x, epsilon=eps, upper=U, params=params, trials=TRIALS, rng=np.random.default_rng(i)).theta
        for i, x in enumerate((d, d2))
    ]
    result = audit(*outs, _index_events(grid), epsilon=eps)
    assert not result.violated, result


def test_svt_without_query_noise_is_flagged():
    grid, d, d2 = _svt_neighbours()
    eps, r = 1.0, 0.9
    b_eta, _ = svt_scales(eps, r=r, variant="paper")
    outs = _svt_outputs(d, d2, grid, r=r, b_eta=b_eta, b_nu=0.0)
    result = audit(*outs, _index_events(grid), epsilon=eps)
    assert result.violated, result


def _recursive_neighbours(beta):
    # 20 large records then a sharp drop: the crossover sits at the drop, so one more large
    # record moves i* by its full sensitivity.
    base = np.concatenate([np.full(20, 1e6), np.full(50, 10.0)])
    d = make_dataset(base, upper=1e9)
    d2 = make_dataset(np.append(base, 5e8), upper=1e9)
    i1 = crossover_index(d, beta=beta, theta0=5e4)[0]
    i2 = crossover_index(d2, beta=beta, theta0=5e4)[0]
    assert i2 == i1 + 1  # the adversarial case: the statistic moves by its full sensitivity
    return d, d2, math.exp(math.log(5e4) + beta * i2)


def _tail_events(center, beta):
    cuts = {f"θ > {k:+.1f}β": center * math.exp(k * beta) for k in np.arange(-3, 3.5, 0.5)}
    return {name: (lambda out, c=c: out > c) for name, c in cuts.items()}


def test_recursive_mechanism_is_private_on_neighbours():
    eps = 1.0
    params = TruncationParams(rm_beta=0.05, rm_theta0=5e4)
    d, d2, center = _recursive_neighbours(0.05)
    outs = [recursive_theta(x, epsilon=eps, upper=x.upper, params=params, trials=TRIALS, rng=np.random.default_rng(i)).theta
            for i, x in enumerate((d, d2))]
    result = audit(*outs, _tail_events(center, 0.05), epsilon=eps)
    assert not result.violated, result


def test_recursive_with_half_scale_noise_is_flagged():
    eps = 1.0
    params = TruncationParams(rm_beta=0.05, rm_theta0=5e4)
    d, d2, center = _recursive_neighbours(0.05)
    # Claiming ε while drawing Lap(β/(2ε)): twice too little noise.
    outs = [recursive_theta(x, epsilon=2 * eps, upper=x.upper, params=params, trials=TRIALS, rng=np.random.default_rng(i)).theta
            for i, x in enumerate((d, d2))]
    result = audit(*outs, _tail_events(center, 0.05), epsilon=eps)
    assert result.violated, result


def _inputs(values: np.ndarray, domain: Domain, w) -> Inputs:
    data = make_dataset(values, upper=domain.upper)
    return Inputs(data, histogram(data, domain), w, domain, data.sum_at_most(w.thresholds))


def _release_neighbours(extra: float):
    domain = Domain(1000.0, 10)
    w = make_workload("Q1", domain)
    base = np.array([50.0, 150.0, 150.0, 420.0, 990.0])
    return domain, w, _inputs(base, domain, w), _inputs(np.append(base, extra), domain, w)


def _loss_events(mu, mu2, b):
    """Events {L(y) > t} on the privacy-loss statistic L = Σ(|y−μ| − |y−μ′|)/b: the most
    powerful events for a Laplace release with known centres μ (on D) and μ′ (on D′)."""

    def loss(out):
        return (np.abs(out - mu) - np.abs(out - mu2)).sum(axis=1) / b

    return {f"L > {t:+.2f}": (lambda out, t=t: loss(out) > t) for t in np.linspace(-0.9, 0.9, 13)}


@pytest.mark.parametrize(("scale", "violated"), [(1.0, False), (0.5, True)])
@pytest.mark.parametrize("mechanism", [identity, workload_mechanism])
def test_fixed_theta_release_and_half_scale_control(mechanism, scale, violated):
    # The adversarial record: in bin 1 for Identity (every bin is alike), in the column of
    # W·T_θ with the largest L1 norm for Workload (bin 3: 8 queries × min(300, θ)).
    domain, w, inp, inp2 = _release_neighbours(50.0 if mechanism is identity else 250.0)
    x, x2 = inp.x, inp2.x
    eps = 1.0
    theta = np.full(TRIALS, 300.0)
    # epsilon / scale: scale = 0.5 draws half the noise the claimed ε requires.
    outs = [mechanism(h, theta, epsilon=eps / scale, rng=np.random.default_rng(i)).answers
            for i, h in enumerate((inp, inp2))]
    if mechanism is identity:
        # The release is a function of the noisy counts; bin 1 (query 1) carries the change.
        outs = [o[:, :1] for o in outs]
        mu, mu2, b = 100.0 * x[0], 100.0 * x2[0], 100.0 / eps
    else:
        T = np.minimum(domain.bin_weights, 300.0)
        mu, mu2 = w.prefix(T * x), w.prefix(T * x2)
        b = np.abs(w.matrix(domain.bins) * T).sum(axis=0).max() / eps
    result = audit(*outs, _loss_events(mu, mu2, b), epsilon=eps)
    assert result.violated is violated, result


@pytest.mark.parametrize(("scale", "violated"), [(1.0, False), (0.5, True)])
@pytest.mark.parametrize("name", ["timm", "tamm"])
def test_matrix_mechanism_measurement_and_half_scale_control(name, scale, violated):
    """The measurement z (the only step touching x; the answers are post-processing of z)."""
    theta, eps = 300.0, 1.0
    # TiMM's sensitivity ‖A·T_θ‖₁ peaks on bins with v_j ≥ θ (bin 3); TaMM's ‖A‖₁ = 1 anywhere.
    domain, w, inp, inp2 = _release_neighbours(250.0 if name == "timm" else 50.0)
    x, x2 = inp.x, inp2.x
    T = np.minimum(domain.bin_weights, theta)
    outs = []
    for i, h in enumerate((inp, inp2)):
        rng = np.random.default_rng(i)
        if name == "timm":
            _, z, _ = timm_measure(h, np.full(TRIALS, theta), epsilon=eps / scale, rng=rng)
        else:
            _, z, _ = tamm_measure(h, theta, TRIALS, epsilon=eps / scale, rng=rng)
        outs.append(z)
    if name == "timm":
        A = timm_strategy(w, domain).dense()
        mu, mu2 = A @ (T * x), A @ (T * x2)
        b = np.abs(A * T[None, :]).sum(axis=0).max() / eps
    else:
        A = tamm_strategy(w, domain, theta).dense()
        mu, mu2 = A @ x, A @ x2
        b = np.abs(A).sum(axis=0).max() / eps
    result = audit(*outs, _loss_events(mu, mu2, b), epsilon=eps)
    assert result.violated is violated, result


@pytest.mark.parametrize(("scale", "violated"), [(1.0, False), (0.5, True)])
def test_sqm_release_and_half_scale_control(scale, violated):
    theta, eps = 300.0, 1.0
    domain = Domain(1000.0, 10)
    w = make_workload("Q1", domain)
    base = np.array([50.0, 150.0, 150.0, 420.0, 990.0])
    inp, inp2 = _inputs(base, domain, w), _inputs(np.append(base, 300.0), domain, w)
    d, d2 = inp.data, inp2.data
    th = np.full((TRIALS, w.size), theta)
    outs = [sqm(x, th, epsilon=eps / scale, rng=np.random.default_rng(i)).answers
            for i, x in enumerate((inp, inp2))]
    mu = d.truncated_sum(w.thresholds, np.full(w.size, theta))
    mu2 = d2.truncated_sum(w.thresholds, np.full(w.size, theta))
    b = np.minimum(theta, w.thresholds) * w.size / eps  # per query: the composition gives ε/m each

    def loss(out):
        return ((np.abs(out - mu) - np.abs(out - mu2)) / b).sum(axis=1)

    events = {f"L > {t:+.2f}": (lambda out, t=t: loss(out) > t) for t in np.linspace(-0.75, 0.75, 11)}
    result = audit(*outs, events, epsilon=eps)
    assert result.violated is violated, result


@pytest.mark.parametrize(("scale", "violated"), [(1.0, False), (0.5, True)])
def test_rawsum_measurement_and_half_scale_control(scale, violated):
    """RawSum's noisy vector (shell sums and GreedyH rows on scaled raw sums; everything after
    it is post-processing) on D and D plus a record at the top edge of a shell, the worst bin:
    the audit passes at ε and flags half the noise."""
    from dpsum_core.mechanisms import rawsum

    eps = 1.0
    domain = Domain(1000.0, 10)
    w = make_workload("Q1", domain)
    base = np.array([50.0, 150.0, 150.0, 420.0, 990.0])
    inp, inp2 = _inputs(base, domain, w), _inputs(np.append(base, 400.0), domain, w)  # bin 4 = top of shell 3
    d = rawsum.design(domain, w)
    assert d.loss_per_bin(d.scale / eps)[3] == pytest.approx(eps)
    outs = []
    for i, h in enumerate((inp, inp2)):
        exact = d.B @ rawsum.bin_sums(h.data, domain)
        rng = np.random.default_rng(i)
        outs.append(exact[None, :] + rng.laplace(0.0, 1.0, (TRIALS, exact.size)) * d.scale / (eps / scale))
    mu, mu2 = (d.B @ rawsum.bin_sums(h.data, domain) for h in (inp, inp2))
    b = d.scale / eps

    def loss(out):
        return ((np.abs(out - mu) - np.abs(out - mu2)) / b).sum(axis=1)

    events = {f"L > {t:+.2f}": (lambda out, t=t: loss(out) > t) for t in np.linspace(-0.9, 0.9, 13)}
    result = audit(*outs, events, epsilon=eps)
    assert result.violated is violated, result


def test_rawsum_release_through_the_engine_matches_the_audited_measurement():
    """The engine's measurement is exactly the audited one: same noisy vector for the same
    stream (so the audit above covers what rawsum.reconstruct draws)."""
    from dpsum_core.mechanisms import rawsum

    domain = Domain(1000.0, 10)
    w = make_workload("Q1", domain)
    inp = _inputs(np.array([50.0, 150.0, 420.0]), domain, w)
    d, s_hat, _ = rawsum.reconstruct(inp, 7, epsilon=0.3, rng=np.random.default_rng(5))
    exact = d.B @ rawsum.bin_sums(inp.data, domain)
    z = exact[None, :] + np.random.default_rng(5).laplace(0.0, 1.0, (7, exact.size)) * d.scale / 0.3
    P = np.linalg.pinv(d.B.toarray() / d.scale[:, None])  # the dense least-squares operator
    np.testing.assert_allclose(s_hat, (z / d.scale) @ P.T, rtol=1e-8, atol=1e-6)
