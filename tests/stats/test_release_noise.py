"""A release's noise: every draw comes from OpenDP, and each sampler's output is Laplace(b).

OpenDP samples from the operating system's entropy and cannot be seeded, so these tests are
random: each Kolmogorov–Smirnov test uses α = 10⁻⁴ (a false alarm about once in 10 000 runs
per test; never retried), and the same samples must *reject* Laplace(1.25·b), so the test has
the power to see a wrong scale. Draws are standardised, (noisy − exact) / b, and compared with
Laplace(0, 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.mechanisms import rawsum
from dpsum_core.mechanisms.registry import get
from dpsum_core.noise import OpenDPNoise, SimulatedNoise
from dpsum_core.publish.release import release
from dpsum_core.simulate import experiment
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.recursive import recursive_theta
from dpsum_core.truncation.svt import svt_scales, svt_theta

ALPHA = 1e-4
DRAWS = 20_000


class Spy:
    """A noise source that passes every call to OpenDP and keeps (exact, scale, noisy)."""

    def __init__(self) -> None:
        self.draw = OpenDPNoise().add_laplace  # bound now: OpenDP's even if the class is patched
        self.calls: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def add_laplace(self, values, scale):
        values = np.asarray(values, float)
        noisy = self.draw(values, scale)
        scales = np.broadcast_to(np.asarray(scale, float), values.shape)
        self.calls.append((values.copy(), scales.copy(), noisy))
        return noisy

    def standardised(self, calls=None) -> np.ndarray:
        chosen = self.calls if calls is None else [self.calls[i] for i in calls]
        return np.concatenate([((n - v) / b).ravel() for v, b, n in chosen])


def _assert_laplace(z: np.ndarray) -> None:
    """z ~ Laplace(0, 1), and the test rejects Laplace(0, 1.25)."""
    assert z.size >= DRAWS  # enough for the power check: D ≈ 0.041 against 0.016
    assert stats.kstest(z, stats.laplace.cdf).pvalue > ALPHA
    assert stats.kstest(z, stats.laplace(scale=1.25).cdf).pvalue < ALPHA


@pytest.fixture(scope="module")
def small():
    domain = Domain(6400.0, 64)
    rng = np.random.default_rng(7)
    data = make_dataset(rng.lognormal(7.5, 0.9, 300), upper=domain.upper)
    config = ExperimentConfig(workload="every:4", epsilon=0.5, upper=6400.0, bins=64)
    return data, config


def test_opendp_noise_is_laplace_at_every_scale():
    noise = OpenDPNoise()
    for b in (1e-3, 0.7, 250.0, 4e6):
        values = np.linspace(-1e3, 1e6, DRAWS)
        _assert_laplace((noise.add_laplace(values, b) - values) / b)


def test_opendp_noise_groups_per_element_scales_correctly():
    noise = OpenDPNoise()
    b = np.tile([0.5, 3.0, 80.0, 2e4], DRAWS // 4)
    values = np.arange(b.size, dtype=float)
    _assert_laplace((noise.add_laplace(values, b) - values) / b)


def test_only_opendps_contrib_feature_is_needed():
    """make_laplace needs ``contrib``; the float Laplace is not a floating-point-vulnerable
    measurement, so ``idealized-numerics`` (formerly ``floating-point``) stays off."""
    import opendp.prelude as dp
    from opendp.mod import GLOBAL_FEATURES

    saved = set(GLOBAL_FEATURES)
    try:
        dp.disable_features(*saved)
        noise = OpenDPNoise()
        assert set(GLOBAL_FEATURES) == {"contrib"}
        assert noise.add_laplace(np.zeros(3), 1.0).shape == (3,)
    finally:
        dp.enable_features(*saved)


def test_opendps_privacy_map_is_the_engines_epsilon():
    """At the default granularity OpenDP's own accounting of Lap(b) on an L1 sensitivity Δ is
    Δ/b: the ε the engine's ledger records from the same scales."""
    noise = OpenDPNoise()
    for b, delta in ((2.0, 1.0), (1234.5, 800_000.0), (0.01, 0.998)):
        assert noise._laplace(b).map(delta) == pytest.approx(delta / b, rel=1e-12)


def test_svt_threshold_and_query_noise(small):
    data, config = small
    spy = Spy()
    params = TruncationParams(svt_s=400.0, svt_c=3.0)  # K = 4 grid points
    svt_theta(data, epsilon=0.3, upper=config.upper, params=params, trials=DRAWS, rng=spy)
    b_eta, b_nu = svt_scales(0.3, r=params.svt_r, variant="paper")
    (eta_vals, eta_scale, _), (gap_vals, nu_scale, _) = spy.calls
    assert np.all(eta_vals == 0) and np.all(eta_scale == b_eta)
    assert np.all(nu_scale == b_nu) and gap_vals.shape[0] == DRAWS
    _assert_laplace(spy.standardised([0]))
    _assert_laplace(spy.standardised([1]))


def test_recursive_mechanism_noise(small):
    data, config = small
    spy = Spy()
    params = TruncationParams(rm_beta=0.1)
    recursive_theta(data, epsilon=0.2, upper=config.upper, params=params,
                               trials=DRAWS, rng=spy)  # fmt: skip
    (_, scale, _), = spy.calls
    assert np.all(scale == 0.1 / 0.2)
    _assert_laplace(spy.standardised())


@pytest.mark.parametrize("name", ["identity", "workload", "timm", "tamm", "sqm"])
def test_measurement_noise_of_every_mechanism(small, name):
    data, config = small
    inputs = inputs_for(data, config)
    theta = np.full(1, 3000.0) if name != "sqm" else np.full((1, inputs.workload.size), 3000.0)
    spy = Spy()
    rounds = 0
    while sum(v.size for v, _, _ in spy.calls) < DRAWS:
        get(name).run(inputs, theta, epsilon=0.5, rng=spy)
        rounds += 1
    _assert_laplace(spy.standardised())
    assert rounds > 1


def test_rawsum_rows(small):
    data, config = small
    inputs = inputs_for(data, config)
    spy = Spy()
    d, _, _ = rawsum.reconstruct(inputs, DRAWS // 60, epsilon=0.5, rng=spy)
    (_, scale, _), = spy.calls
    np.testing.assert_allclose(scale[0], d.scale / 0.5)  # shells and GreedyH rows, per row
    _assert_laplace(spy.standardised())


@pytest.mark.parametrize(
    ("algorithm", "truncation"),
    [("identity", "svt"), ("sqm", "svt"), ("tamm", "recursive"), ("timm", "fixed"),
     ("workload", "none"), ("rawsum", None)],
)  # fmt: skip
def test_a_release_draws_only_from_its_noise_source(small, monkeypatch, algorithm, truncation):
    """No seeded stream and no numpy sampler is touched; the spy, put inside OpenDP's own
    source (the only one a release accepts), sees θ's and the measurement's draws."""
    data, config = small

    def forbidden(*args, **kwargs):
        raise AssertionError("a release touched numpy's seeded noise")

    monkeypatch.setattr(experiment, "stream", forbidden)
    monkeypatch.setattr(SimulatedNoise, "add_laplace", forbidden)
    spy = Spy()
    monkeypatch.setattr(OpenDPNoise, "add_laplace", lambda _, values, scale:
                        spy.add_laplace(values, scale))  # fmt: skip
    config = config.with_(truncation_params=TruncationParams(theta=3000.0))
    rel = release(data, config, algorithm=algorithm, truncation=truncation)
    expected_calls = {"svt": 3, "recursive": 2}.get(truncation, 1)
    assert len(spy.calls) == expected_calls
    measured = spy.calls[-1]
    assert measured[0].shape[0] == 1  # one trial
    assert rel.private_answers.shape == (config.domain.bins // 4,)
    assert histogram(data, config.domain).sum() > 0
