"""The data summary: exact sums, Dataset-equal answers, refusals and second passes."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsum_core import limits
from dpsum_core.data.backends.memory import MemoryBackend, summarize_dataset
from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.data.exact import limbs, to_units, units_to_float
from dpsum_core.data.summary import MissingStatistics, complete, cut_points
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.truncation.recursive import crossover_index

from .backend_cases import CUTS, DOMAIN, ROOT

SAMPLE = ROOT / "sample_data" / "incomes.csv"

values_st = st.lists(
    st.one_of(
        # Exact for 0 and every t ≥ 2⁻⁵² (the documented residual is below that).
        st.floats(0, 800_000, allow_nan=False).filter(lambda x: x == 0 or x >= 2.0**-52),
        st.sampled_from([0.0, 800.0, 50_000.0, 60_000.0, 799_200.0, 800_000.0]),
        st.integers(0, 800_000).map(float),
    ),
    min_size=1,
    max_size=300,
)


@given(st.lists(st.floats(2.0**-52, 1e15, allow_nan=False), min_size=1, max_size=50))
def test_limbs_are_exact_for_values_from_2_to_the_minus_52(values):
    v = np.array(values)
    i, f1, f2 = limbs(v)
    exact = sum((Fraction(x) for x in values), Fraction(0))
    units = to_units(int(i.sum()), int(f1.sum()), int(f2.sum()))
    assert Fraction(units, 2**104) == exact
    assert units_to_float(units) == float(exact)  # correctly rounded, like math.fsum
    assert units_to_float(units) == math.fsum(values)


def test_the_residual_below_2_to_the_minus_104_is_as_documented():
    tiny = np.array([2.0**-60 + 2.0**-110, 1e-300])
    units = to_units(*(int(a.sum()) for a in limbs(tiny)))
    assert Fraction(units, 2**104) == Fraction(2.0**-60)  # bits below 2⁻¹⁰⁴ dropped
    assert abs(Fraction(units, 2**104) - sum(map(Fraction, tiny))) < tiny.size * Fraction(2) ** -104


@settings(max_examples=60, deadline=None)
@given(values_st)
def test_summary_equals_dataset_at_held_points(values):
    data = make_dataset(np.array(values), upper=DOMAIN.upper)
    s = summarize_dataset(data, CUTS)
    pts = CUTS.all
    np.testing.assert_array_equal(s.count_at_most(pts), data.count_at_most(pts))
    # Sums are the correctly rounded exact sums (math.fsum over the records ≤ p) ...
    expect = [math.fsum(data.values[data.values <= p]) for p in pts]
    np.testing.assert_array_equal(s.sum_at_most(pts), expect)
    np.testing.assert_array_equal(histogram(s, DOMAIN), histogram(data, DOMAIN))
    # ... which equal np.cumsum's whenever that is exact (integer values).
    if np.all(data.values == np.floor(data.values)):
        np.testing.assert_array_equal(s.sum_at_most(pts), data.sum_at_most(pts))
        tau = DOMAIN.edges[::97][None, :]
        theta = np.array([[50_000.0], [np.inf], [800_000.0]])
        np.testing.assert_array_equal(s.truncated_sum(tau, theta), data.truncated_sum(tau, theta))
    assert s.top.size == min(limits.SUMMARY_TOP_K, data.size)
    np.testing.assert_array_equal(s.top, data.values[::-1][: s.top.size])


def test_points_above_the_smallest_top_value_are_answered_from_the_top_k():
    data = make_dataset(np.arange(20_000, dtype=float) * 37.0, upper=DOMAIN.upper)
    s = summarize_dataset(data, CUTS)
    p = np.array([s.top[-1], s.top[-1] + 0.5, 700_000.25, np.inf])
    np.testing.assert_array_equal(s.count_at_most(p), data.count_at_most(p))
    np.testing.assert_array_equal(s.sum_at_most(p), data.sum_at_most(p))


def test_a_point_it_cannot_answer_is_named_and_a_second_pass_adds_it():
    backend = MemoryBackend(SAMPLE, upper=DOMAIN.upper)
    s = backend.summarize(CUTS)
    p = np.array([12_345.5, 800.0, 31_000.25])
    with pytest.raises(MissingStatistics) as err:
        s.sum_at_most(p)
    np.testing.assert_array_equal(err.value.points, [12_345.5, 31_000.25])
    assert "2 points" in str(err.value)
    s2 = backend.extend(s, err.value)
    np.testing.assert_array_equal(s2.count_at_most(p), backend.data.count_at_most(p))
    np.testing.assert_array_equal(s2.sum_at_most(p), backend.data.sum_at_most(p))


@pytest.mark.parametrize("beta", [0.0004, 4e-7, 0.002])
def test_crossover_index_equals_the_records_one(beta):
    backend = MemoryBackend(SAMPLE, upper=DOMAIN.upper)
    counts = backend.data.count_at_most(DOMAIN.edges[::10])
    for c in (None, counts):
        want = crossover_index(backend.data, beta=beta, theta0=50_000.0, counts=c)
        got, _ = complete(
            backend.summarize(CUTS),
            lambda s, c=c: crossover_index(s, beta=beta, theta0=50_000.0, counts=c),
            backend.extend,
        )
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("truncation", ["none", "fixed", "svt", "recursive"])
def test_a_run_from_a_summary_equals_the_in_memory_run(truncation):
    from .backend_cases import check_run_agrees

    config = ExperimentConfig(
        workload="Q2",
        truncations=(truncation,),
        trials=15,
        seed=7,
        truncation_params={"theta": 64_000.5},
    )
    check_run_agrees(MemoryBackend(SAMPLE, upper=config.upper), SAMPLE, config)


def test_cut_points_keep_edges_and_add_only_public_points():
    cuts = cut_points(Domain(1000.0, 10), svt_grid=np.array([150.0, 200.0, 5000.0]), theta=333.0)
    np.testing.assert_array_equal(cuts.extra, [150.0, 333.0])  # 200 is an edge, 5000 > U
    assert set(Domain(1000.0, 10).edges) <= set(cuts.all)


def test_dataset_sums_are_correctly_rounded_on_non_integer_values():
    """A Dataset's Σ_{t ≤ p} t is the correctly rounded exact sum (what summaries hold), not
    a running float sum; on whole numbers the running sum is exact and is used as is."""
    from fractions import Fraction

    from dpsum_core.data.dataset import make_dataset

    rng = np.random.default_rng(8)
    cents = make_dataset(np.round(rng.lognormal(3, 0.6, 3000), 2), upper=200.0)
    points = np.array([5.0, 17.35, 40.0, 200.0])
    exact = [float(sum(Fraction(v) for v in cents.values[cents.values <= p])) for p in points]
    assert cents.sum_at_most(points).tolist() == exact
    assert np.cumsum(cents.values)[-1] != exact[-1]  # the running sum drifts here
    whole = make_dataset(np.round(rng.lognormal(10, 1, 3000)), upper=8e5)
    assert whole.sum_at_most(np.array([8e5]))[0] == float(sum(Fraction(v) for v in whole.values))


def test_exact_prefix_sums_at_and_around_block_starts_equal_the_one_pass_sums():
    """The block-cached exact sums equal exact sums computed from all values in one pass, at
    0, N, every side of a block start and random indices, for any shape of index array."""
    from dpsum_core.data.exact import ExactPrefixSums, prefix_limbs, to_units
    from dpsum_core.data.summary import point_sums

    rng = np.random.default_rng(1)
    values = np.sort(np.round(rng.lognormal(3, 1, 5000), 3))
    block = ExactPrefixSums.BLOCK
    idx = np.r_[0, 1, block - 1, block, block + 1, 2 * block, 4999, 5000, rng.integers(0, 5001, 300)]
    want = point_sums([to_units(*s) for s in prefix_limbs(values, idx)])
    sums = ExactPrefixSums(values)
    np.testing.assert_array_equal(sums(idx), want)
    np.testing.assert_array_equal(sums(idx.reshape(-1, 2)), want.reshape(-1, 2))


# --------------------------------------------------------------------------------------------
# Per-bin sums: each bin's own records, rounded once (issue 17)
# --------------------------------------------------------------------------------------------
def _bin_units_exact(values: np.ndarray, domain: Domain) -> list[Fraction]:
    from dpsum_core.data.domain import bin_index

    out = [Fraction(0)] * domain.bins
    for j, t in zip(bin_index(values, domain).tolist(), values.tolist(), strict=True):
        out[j] += Fraction(t)
    return out


def test_bin_sums_are_each_bins_own_correctly_rounded_sum_and_a_neighbour_changes_one_bin():
    """At U = 10¹⁵ with 2·10⁵ non-integer values, adding one non-integer record changes exactly
    its own bin's sum, bit for bit (differences of rounded running totals changed hundreds), in
    memory and from a summary; RawSum's privacy loss on the pair stays ≤ ε."""
    from dpsum_core.data.domain import bin_index, bin_sums
    from dpsum_core.mechanisms import rawsum
    from dpsum_core.mechanisms.workloads import make_workload

    domain = Domain(1e15, 1000)
    rng = np.random.default_rng(17)
    base = rng.uniform(0, 1e15, 200_000) + rng.uniform(0, 1, 200_000)
    extra = 4.2e14 + 0.3  # non-integer
    d1 = make_dataset(base, upper=1e15)
    d2 = make_dataset(np.append(base, extra), upper=1e15)
    s1, s2 = bin_sums(d1, domain), bin_sums(d2, domain)
    changed = np.flatnonzero(s1.view(np.int64) != s2.view(np.int64))
    assert changed.tolist() == [int(bin_index(np.array([extra]), domain)[0])]
    # each bin's sum is the correctly rounded sum of its records (a few bins, exactly)
    want = _bin_units_exact(d1.values, domain)
    for j in (0, 1, 420, 999):
        assert s1[j] == float(want[j])
    # a summary from any engine gives the same numbers
    for d, s in ((d1, s1), (d2, s2)):
        summary = summarize_dataset(d, cut_points(domain))
        assert np.array_equal(bin_sums(summary, domain).view(np.int64), s.view(np.int64))
    # RawSum's loss on the pair, exactly: Σ_r |B_r·(s₂ − s₁)| / b_r ≤ ε
    w = make_workload("Q1", domain)
    design = rawsum.design(domain, w)
    eps = 1.0
    j = int(changed[0])
    delta = Fraction(float(s2[j])) - Fraction(float(s1[j]))
    col = design.B.tocsc()[:, j]
    loss = sum(
        abs(Fraction(float(b)) * delta) / Fraction(float(sc / eps))
        for b, sc in zip(col.data.tolist(), design.scale[col.indices].tolist(), strict=True)
    )
    assert loss <= eps


def test_bin_sums_of_integer_values_are_the_differences_of_the_running_sums():
    """Integer values below 2⁵³ (incomes) keep the numbers they always had, bit for bit."""
    from dpsum_core.data.domain import bin_sums

    values = np.random.default_rng(3).integers(0, 800_000, 5000).astype(float)
    d = make_dataset(values, upper=800_000)
    want = np.diff(np.concatenate(([0.0], d.sum_at_most(DOMAIN.edges))))
    assert np.array_equal(bin_sums(d, DOMAIN), want)
    summary = summarize_dataset(d, cut_points(DOMAIN))
    assert np.array_equal(bin_sums(summary, DOMAIN), want)
