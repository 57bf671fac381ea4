"""Repeated releases reuse deterministic work only: the caches give the same results as a cold
start, their keys separate different inputs, and every release still draws fresh noise."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import clampshells_design as clampshells
from dpsum_core.mechanisms import greedy_h, rawsum
from dpsum_core.mechanisms.registry import ALGORITHMS, get
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.noise import OpenDPNoise, _opendp_space
from dpsum_core.publish.release import _release_with, plan_release
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.truncation.params import TruncationParams

UPPER = 250_000.0


class SeededNoise:
    """A test-only noise source with a fixed seed (a release refuses numpy's own
    :class:`~dpsum_core.noise.SimulatedNoise`): the same draws for the same calls, so a cold
    and a warm release can be compared number for number."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def add_laplace(self, values, scale):
        values = np.asarray(values, float)
        return values + self.rng.laplace(0.0, 1.0, values.shape) * np.asarray(scale, float)


def _cold() -> None:
    """Forget every cache a release fills."""
    greedy_h.clear_caches()
    rawsum._DESIGNS.clear()
    clampshells._DESIGNS.clear()


def _configurations() -> list[tuple[str, str | None]]:
    return [(a, None) if get(a).runs_once else (a, t) for a in ALGORITHMS for t in ("fixed", "svt")]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    return make_dataset(np.minimum(rng.lognormal(10.3, 1.0, 3000), 400_000.0), upper=UPPER)


@pytest.mark.parametrize(("algorithm", "truncation"), _configurations())
def test_a_warm_release_equals_a_cold_one_for_the_same_draws(data, algorithm, truncation):
    """Cached strategies, designs and factorisations change nothing: with the same seeded
    draws, a release after a cold start and the same release with every cache warm publish the
    same answers, θ, ± and interval bounds, to the bit (the caches hold exactly what a cold
    start builds)."""
    config = ExperimentConfig(
        workload="Q2", epsilon=0.5, upper=UPPER, bins=200,
        truncation_params=TruncationParams(theta=UPPER / 8),
    )  # fmt: skip
    _cold()
    plan = plan_release(config, algorithm=algorithm, truncation=truncation)
    cold = _release_with(data, plan, SeededNoise(7), None)
    hits = greedy_h.SHARED.hits + rawsum._DESIGNS.hits + clampshells._DESIGNS.hits
    sessions = greedy_h.process_cache().hits
    plan = plan_release(config, algorithm=algorithm, truncation=truncation)
    warm = _release_with(data, plan, SeededNoise(7), None)
    if algorithm in ("timm", "tamm", "rawsum", "clampshells"):  # the warm release used a cache
        after = greedy_h.SHARED.hits + rawsum._DESIGNS.hits + clampshells._DESIGNS.hits
        assert after + greedy_h.process_cache().hits > hits + sessions
    np.testing.assert_array_equal(warm.private_answers, cold.private_answers)
    np.testing.assert_array_equal(warm.noise_halfwidth, cold.noise_halfwidth)
    np.testing.assert_array_equal(warm.intervals.lower, cold.intervals.lower)
    np.testing.assert_array_equal(warm.intervals.upper, cold.intervals.upper)
    assert warm.theta == cold.theta


def test_design_cache_keys_separate_their_inputs():
    """Each cache key holds everything its value depends on: another U, another n or another
    workload is another entry, built from its own inputs."""
    _cold()
    small, wide, fine = Domain(UPPER, 100), Domain(2 * UPPER, 100), Domain(UPPER, 120)
    q1, q2 = make_workload("Q1", small), make_workload("Q2", small)
    designs = [rawsum.design(small, q1), rawsum.design(small, q2), rawsum.design(wide, q1)]
    designs.append(rawsum.design(fine, make_workload("Q1", fine)))
    assert len(rawsum._DESIGNS) == 4 and len({id(d) for d in designs}) == 4
    assert [d.domain for d in designs] == [small, small, wide, fine]
    assert rawsum.design(small, q1) is designs[0]  # the same inputs: the same entry
    shells = [clampshells.design(small, 4), clampshells.design(wide, 4), clampshells.design(small, 5)]
    assert len(clampshells._DESIGNS) == 3 and len({id(d) for d in shells}) == 3
    assert [d.domain for d in shells] == [small, wide, small]
    counts = q1.counts
    plain = greedy_h.cached_greedy_h(counts, 100)
    scaled = greedy_h.cached_greedy_h(counts, 100, np.linspace(1.0, 0.5, 100))
    other = greedy_h.cached_greedy_h(q2.counts, 100)
    assert plain is not scaled and plain is not other
    assert len(greedy_h.SHARED) == 2  # θ-dependent strategies stay out of the shared cache
    assert greedy_h.cached_greedy_h(counts, 100) is plain
    _cold()


def test_opendp_measurements_on_the_shared_domain_match_fresh_ones():
    """The input domain and metric are built once per process; a measurement on them is the
    measurement built from scratch (same domain, metric, output measure and privacy map)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    assert _opendp_space.cache_info().maxsize == 1
    for scale in (0.5, 1234.5):
        fresh = dp.m.make_laplace(
            dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=scale
        )
        cached = OpenDPNoise()._laplace(scale)
        assert str(cached.input_domain) == str(fresh.input_domain)
        assert str(cached.input_metric) == str(fresh.input_metric)
        assert str(cached.output_measure) == str(fresh.output_measure)
        for d_in in (1.0, 800_000.0):
            assert cached.map(d_in) == fresh.map(d_in)


def test_measurements_stay_per_source_and_every_call_draws_fresh_noise():
    """Only the scale-free domain and metric are shared: a measurement (keyed by its scale,
    which may come from a θ released to one custodian) lives as long as its source, one
    release; and a cached measurement still draws new noise at every call."""
    first, second = OpenDPNoise(), OpenDPNoise()
    assert first._domain is second._domain and first._metric is second._metric
    one, two = first._laplace(1.0), first._laplace(2.0)
    assert one is first._laplace(1.0) and one is not two
    assert one.map(1.0) == pytest.approx(1.0) and two.map(1.0) == pytest.approx(0.5)
    assert second._measurements == {}
    zeros = np.zeros(64)
    a, b = first.add_laplace(zeros, 1.0), first.add_laplace(zeros, 1.0)
    assert not np.array_equal(a, b)  # P[64 equal continuous draws] = 0

