"""θ choice (SPEC §2): grid, scales, recursive crossover, dispatch and validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsum_core import limits
from dpsum_core.data.dataset import make_dataset
from dpsum_core.errors import ParameterError
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.recursive import crossover_index
from dpsum_core.truncation.registry import choose_theta
from dpsum_core.truncation.svt import svt_grid, svt_scales


def test_svt_grid_covers_the_domain():
    u = svt_grid(800_000, s=50_000, c=1.2)
    assert u.size == math.ceil(math.log(16) / math.log(1.2)) + 1 == 17
    assert u[0] == 50_000 and u[-2] < 800_000 <= u[-1]
    assert svt_grid(100, s=1000, c=2).tolist() == [1000.0]


def test_svt_scales_paper_and_tight():
    assert svt_scales(0.5, r=0.998, variant="paper") == (4.0, 8.0)
    b_eta, b_nu = svt_scales(1.0, r=0.998, variant="tight")
    eps1 = 1 / (1 + 2 ** (2 / 3))
    assert b_eta == pytest.approx(0.998 / eps1)
    assert b_nu == pytest.approx(2 * 0.998 / (1 - eps1))


def _brute_crossover(values, beta, theta0):
    d = [*sorted(values, reverse=True), 0.0]
    return next(i for i, di in enumerate(d) if di < theta0 * math.exp(beta * i))


@pytest.mark.parametrize("seed", range(5))
def test_crossover_index_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    vals = np.round(rng.lognormal(10, 2, size=200))
    data = make_dataset(vals, upper=1e7)
    for beta, theta0 in [(0.01, 5e4), (0.1, 1e3), (1e-6, 5e4)]:
        assert crossover_index(data, beta=beta, theta0=theta0)[0] == _brute_crossover(data.values.tolist(), beta, theta0)
    counts = np.array([0, 1, 50, 200])
    got = crossover_index(data, beta=0.05, theta0=1e4, counts=counts)
    want = [_brute_crossover(data.values[:c].tolist(), 0.05, 1e4) for c in counts]
    assert got.tolist() == want


def test_adding_a_record_moves_crossover_by_zero_or_one():
    rng = np.random.default_rng(3)
    vals = rng.lognormal(11, 1, size=300)
    base = crossover_index(make_dataset(vals, upper=1e8), beta=0.02, theta0=5e4)[0]
    for extra in [0.0, 10.0, 5e4, 1e6, 1e8]:
        bigger = crossover_index(make_dataset(np.append(vals, extra), upper=1e8), beta=0.02, theta0=5e4)[0]
        assert bigger - base in (0, 1)


def test_none_and_fixed_cost_nothing():
    data = make_dataset(np.arange(10.0), upper=10)
    rng = np.random.default_rng(0)
    none = choose_theta(data, "none", epsilon=1, upper=10, params=TruncationParams(), trials=3, rng=rng)
    assert np.isinf(none.theta).all() and none.epsilon == 0
    fixed = choose_theta(data, "fixed", epsilon=1, upper=10, params=TruncationParams(theta=4), trials=3, rng=rng)
    assert fixed.theta.tolist() == [4, 4, 4] and fixed.epsilon == 0
    with pytest.raises(ParameterError, match="needs a threshold"):
        choose_theta(data, "fixed", epsilon=1, upper=10, params=TruncationParams(), trials=1, rng=rng)


def test_svt_with_huge_budget_finds_the_quantile_grid_point():
    vals = np.concatenate([np.full(999, 10_000.0), [700_000.0]])
    data = make_dataset(vals, upper=800_000)
    choice = choose_theta(data, "svt", epsilon=1e4, upper=800_000, params=TruncationParams(svt_r=0.99, svt_s=50_000.0),
                          trials=50, rng=np.random.default_rng(0))
    assert np.all(choice.theta == 50_000)  # first grid point holds ≥ 99% of the records
    assert choice.fallbacks == 0


def test_recursive_theta_is_centred_on_the_crossover():
    rng = np.random.default_rng(5)
    data = make_dataset(rng.lognormal(10.5, 1, 5000), upper=800_000)
    params = TruncationParams(rm_beta=0.01, rm_theta0=50_000.0)
    choice = choose_theta(data, "recursive", epsilon=10.0, upper=8e5, params=params, trials=4000, rng=rng)
    i_star = crossover_index(data, beta=0.01, theta0=5e4)[0]
    assert np.median(np.log(choice.theta)) == pytest.approx(math.log(5e4) + 0.01 * i_star, abs=0.005)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"svt_r": 1.0}, "svt r must be strictly between 0 and 1"),
        ({"svt_c": 1.0}, "svt c"),
        ({"svt_s": -1}, "svt s must be > 0"),
        ({"rm_mu": 0.7}, r"mu must be in \(0, 0.5\]"),
        ({"rm_theta0": 0}, "theta0 must be > 0"),
        ({"rm_beta": float("nan")}, "finite"),
        ({"svt_variant": "loose"}, "svt variant must be one of"),
        ({"theta": -5}, "theta must be > 0"),
    ],
)
def test_truncation_params_validation(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        TruncationParams(**kwargs)


def test_svt_draws_in_chunks_give_the_same_answers(monkeypatch):
    """Chunking the draw over trials bounds memory and changes nothing else."""
    from dpsum_core.truncation import svt

    vals = np.concatenate([np.full(999, 10_000.0), [700_000.0]])
    data = make_dataset(vals, upper=800_000)
    params = TruncationParams(svt_r=0.99, svt_s=50_000.0)
    monkeypatch.setattr(svt, "_SVT_CHUNK", 40)  # 17 grid points → 2 trials per chunk
    tau = np.array([20_000.0, 60_000.0, 800_000.0])
    choice = choose_theta(data, "svt", epsilon=1e4, upper=800_000, params=params, trials=9,
                          rng=np.random.default_rng(0), tau=tau)
    assert choice.theta.shape == (9, 3)  # every query holds the 999 records at 10 000
    assert np.all(choice.theta == 50_000)
    a = choose_theta(data, "svt", epsilon=0.5, upper=800_000, params=params, trials=9, rng=np.random.default_rng(3))
    b = choose_theta(data, "svt", epsilon=0.5, upper=800_000, params=params, trials=9, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a.theta, b.theta)


@pytest.mark.parametrize("beta", [10.0, limits.MAX_RM_BETA])
def test_recursive_theta_is_clamped_at_upper(beta):
    """A huge public β makes ln θ's noise enormous: θ is clamped at U (post-processing, free)
    instead of overflowing to ∞ (pytest turns the RuntimeWarning into an error)."""
    data = make_dataset(np.array([10.0, 2_000.0, 30_000.0, 400_000.0]), upper=800_000)
    params = TruncationParams(rm_beta=beta)
    choice = choose_theta(data, "recursive", epsilon=limits.EPSILON_MIN, upper=8e5, params=params, trials=2000,
                          rng=np.random.default_rng(1))
    assert np.all(np.isfinite(choice.theta)) and np.all(choice.theta <= 8e5)
    assert np.any(choice.theta == 8e5)
    with pytest.raises(ParameterError, match=f"recursive beta must be > 0 and at most {limits.MAX_RM_BETA:g}"):
        TruncationParams(rm_beta=limits.MAX_RM_BETA * 1.001)
