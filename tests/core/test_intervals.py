"""The 95 % intervals of a release's TRUE answers (issue 24 §1): bias bounded, never a tight ±
next to an unbounded bias.

With a noise source that adds nothing, an interval is the algorithm's deterministic bias bound
plus its noise margins: it must hold the truth for every query, whatever the data. The first
case is the issue's: 1,246 people at 0 in the first bin, each counted at the bin's upper edge,
where answer ± noise_halfwidth_95 missed the truth by 311,424 − 5,823.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.bounds import Linear, bin_ratios
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.publish.intervals import KAPPA, finish
from dpsum_core.publish.release import _release_with, plan_release
from dpsum_core.publish.report import answers_csv
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for

UPPER = 250_000.0


class NoNoise:
    """A noise source that adds nothing (the bias bound alone is then under test)."""

    def add_laplace(self, values, scale):
        return np.array(values, float, copy=True)


@pytest.fixture(scope="module")
def biased():
    """The issue's shape: 1,246 people at 0 (first bin, counted at 250 each), few earnings."""
    rng = np.random.default_rng(5)
    values = np.concatenate([np.zeros(1246), rng.lognormal(10.0, 0.8, 300),
                             np.full(40, 250.0 * 7 + 0.5)])  # fmt: skip
    return make_dataset(values, upper=UPPER)


CASES = [
    ("identity", "none"), ("identity", "fixed"), ("workload", "fixed"), ("timm", "fixed"),
    ("tamm", "none"), ("tamm", "fixed"), ("rawsum", None), ("clampshells", None),
    ("sqm", "none"), ("sqm", "fixed"),
]  # fmt: skip


@pytest.mark.parametrize("workload", ["Q1", "Q2"])
@pytest.mark.parametrize(("algorithm", "truncation"), CASES)
def test_the_interval_holds_the_truth_when_the_noise_is_zero(biased, algorithm, truncation, workload):
    config = ExperimentConfig(workload=workload, epsilon=0.5, upper=UPPER,
                              truncation_params={"theta": 20_000.0})  # fmt: skip
    truth = inputs_for(biased, config).true_answers
    plan = plan_release(config, algorithm=algorithm, truncation=truncation)
    rel = _release_with(biased, plan, NoNoise(), None)
    iv = rel.intervals
    assert iv is not None
    assert np.all(iv.lower <= truth * (1 + 1e-9))
    bounded = iv.bias_bounded
    assert np.all(truth[bounded] <= iv.upper[bounded] * (1 + 1e-9))
    assert np.all(np.isnan(iv.upper[~bounded]))
    # the published answer lies inside its interval (an interval is widened to hold it)
    assert np.all(iv.lower <= rel.private_answers)
    assert np.all(rel.private_answers[bounded] <= iv.upper[bounded])


def test_the_issues_first_bin_is_covered_where_the_noise_plus_minus_was_not(biased):
    config = ExperimentConfig(workload="Q1", epsilon=0.5, upper=UPPER)
    truth = inputs_for(biased, config).true_answers
    plan = plan_release(config, algorithm="tamm", truncation="none")
    rel = _release_with(biased, plan, NoNoise(), None)
    # the old ± (noise only) excludes the truth: 1,246 × 250 of binning bias at τ = 250
    old_lo = rel.private_answers - rel.noise_halfwidth
    assert truth[0] == 0.0 and old_lo[0] > 300_000
    assert rel.intervals.lower[0] <= 0.0 <= rel.intervals.upper[0]
    # and far above the first bin, the lower bound has removed the first bin's 311,500
    assert np.all(rel.intervals.lower <= truth)


def test_sqm_is_open_above_where_it_truncated(biased):
    config = ExperimentConfig(workload="Q2", epsilon=0.5, upper=UPPER,
                              truncation_params={"theta": 20_000.0})  # fmt: skip
    plan = plan_release(config, algorithm="sqm", truncation="fixed")
    rel = _release_with(biased, plan, NoNoise(), None)
    tau = rel.thresholds
    assert np.array_equal(rel.intervals.bias_bounded, tau <= 20_000.0)
    frame = pd.read_csv(io.StringIO(answers_csv(rel)), keep_default_na=False, dtype=str)
    open_rows = frame[frame.bias_bounded == "false"]
    assert len(open_rows) == int((tau > 20_000.0).sum()) > 0
    assert (open_rows.upper_95 == "").all()  # empty, never a number
    assert set(frame.bias_bounded) == {"true", "false"}
    summary = rel.record()["intervals"]
    assert summary["open_above"] == len(open_rows) and summary["level"] == 0.95


def test_bin_ratios_bound_every_value_of_a_bin():
    domain = Domain(1000.0, 10)
    workload = make_workload("every:2", domain)
    lo, hi = bin_ratios(domain, workload, theta=450.0)
    u = np.minimum(domain.bin_weights, 450.0)
    e = domain.edges
    # a record of bin j is worth between lo_j·u_j and hi_j·u_j: [e_{j−1}, e_j] inside
    assert np.all(lo * u <= np.concatenate(([0.0], e[:-1])) + 1e-9)
    assert np.all(hi * u >= e - 1e-9)
    # groups of two bins share the group's extreme factor
    assert np.array_equal(lo[0::2], lo[1::2]) and np.array_equal(hi[0::2], hi[1::2])


def test_the_noise_margin_is_the_laplace_one_sided_975_point():
    # P(Lap(b) > κ·√2·b) = ½·exp(−κ√2) = 2.5 %
    assert np.isclose(0.5 * np.exp(-KAPPA * np.sqrt(2.0)), 0.025)


@pytest.mark.parametrize(("algorithm", "truncation"), [("identity", "fixed"), ("tamm", "svt"),
                                                       ("timm", "none"), ("workload", "fixed")])
def test_midpoint_weights_are_bounded_on_both_sides(biased, algorithm, truncation):
    # midpoint weights under- and over-state a bin by up to half its width: both sides bounded
    config = ExperimentConfig(workload="Q2", epsilon=0.5, upper=UPPER, weights="midpoint",
                              truncation_params={"theta": 20_000.0})  # fmt: skip
    truth = inputs_for(biased, config).true_answers
    plan = plan_release(config, algorithm=algorithm, truncation=truncation)
    rel = _release_with(biased, plan, NoNoise(), None)
    assert rel.intervals.bias_bounded.all()
    assert np.all((rel.intervals.lower <= truth) & (truth <= rel.intervals.upper))


class FarBelow:
    """A noise source whose every draw is 40 scales below zero (the far tail of a Laplace draw,
    as one noise draw in millions falls): every upper bound hi(m̂) + κ·sd lies below 0."""

    def add_laplace(self, values, scale):
        return np.asarray(values, float) - 40.0 * np.asarray(scale, float)


def _old_finish(bounds, published):
    """finish() before audit6 P2-1: margins, clip at 0, hull the answer; nothing else."""
    lower = np.minimum(np.maximum(bounds.lo - KAPPA * bounds.lo_sd, 0.0), published)
    upper = bounds.hi + KAPPA * bounds.hi_sd
    return lower, np.where(np.isfinite(upper), np.maximum(upper, published), np.nan)


def test_a_negative_draw_below_zero_is_not_published_as_the_point_zero():
    # hi(m̂) + κ·sd = −40 + 21.2 < 0 ≤ the truth: a visible miss, once hulled to [0, 0]
    bounds = Linear(lo=np.array([-50.0]), lo_sd=np.array([10.0]), hi=np.array([-40.0]),
                    hi_sd=np.array([10.0]))  # fmt: skip
    published = np.array([0.0])
    assert [float(x[0]) for x in _old_finish(bounds, published)] == [0.0, 0.0]
    iv = finish(bounds, published, "test")
    assert iv.lower[0] == 0.0 and np.isclose(iv.upper[0], KAPPA * 10.0, rtol=1e-12)


def test_the_floor_only_widens_and_only_where_the_upper_bound_fell_below_the_lower_end():
    rng = np.random.default_rng(3)
    n = 20_000
    lo = rng.normal(0.0, 100.0, n)
    hi = lo + rng.normal(20.0, 60.0, n)  # hi(m̂) < lo(m̂) in some rows: the noise crossed them
    lo_sd, hi_sd = rng.uniform(0.0, 30.0, n), rng.uniform(0.0, 30.0, n)
    hi[::7] = np.nan  # open above
    bounds = Linear(lo=lo, lo_sd=lo_sd, hi=hi, hi_sd=hi_sd)
    published = np.maximum(lo + rng.normal(10.0, 40.0, n), 0.0)
    old_lower, old_upper = _old_finish(bounds, published)
    iv = finish(bounds, published, "test")
    bounded = np.isfinite(hi)
    assert np.array_equal(iv.bias_bounded, bounded) and np.all(np.isnan(iv.upper[~bounded]))
    assert np.array_equal(iv.lower, old_lower)  # the lower end is never moved
    assert np.all(iv.upper[bounded] >= old_upper[bounded])  # widening only: coverage can only rise
    width = (iv.upper - iv.lower)[bounded]
    assert np.all(width >= KAPPA * hi_sd[bounded] * (1 - 1e-12))
    # zero width only where the upper bound has no noise (here: never)
    assert np.all(width > 0)
    # changed only where the noise visibly crossed: hi(m̂) below lo(m̂) − κ·sd_lo, or below 0
    moved = bounded & (iv.upper != old_upper)
    crossed = (hi < lo - KAPPA * lo_sd) | (hi < 0)
    assert moved.any() and np.all(crossed[moved])


@pytest.mark.parametrize(("algorithm", "truncation"), [("identity", "fixed"), ("clampshells", None),
                                                       ("rawsum", None), ("workload", "fixed")])
def test_a_release_after_a_far_negative_draw_has_no_zero_width_interval(biased, algorithm,
                                                                        truncation):
    config = ExperimentConfig(workload="Q2", epsilon=0.5, upper=UPPER,
                              truncation_params={"theta": 20_000.0})  # fmt: skip
    plan = plan_release(config, algorithm=algorithm, truncation=truncation)
    rel = _release_with(biased, plan, FarBelow(), None)  # a fixed source: the private path
    assert np.all(rel.private_answers == 0.0)  # clipped at 0: the case that published [0, 0]
    frame = pd.read_csv(io.StringIO(answers_csv(rel)))
    bounded = frame.bias_bounded.astype(bool)
    assert bounded.all()
    assert (frame.upper_95 > frame.lower_95).all()
