"""The decision view's engine: θ's law, E|error|, error against ε, smallest ε, the summary."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpsum_core import limits
from dpsum_core.data.reading import load_column
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.error import expected_abs_error
from dpsum_core.mechanisms.registry import ALGORITHMS, get
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.decision import (
    Reach,
    decision_summary,
    epsilon_grid,
    error_vs_epsilon,
    query_subset,
    simulated_error_vs_epsilon,
    smallest_epsilon,
    target_sentence,
)
from dpsum_core.simulate.experiment import inputs_for, run_plan
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.recursive import recursive_theta
from dpsum_core.truncation.registry import theta_law
from dpsum_core.truncation.svt import svt_first_above, svt_gaps, svt_index_probabilities, svt_scales


@pytest.fixture(scope="module")
def small():
    return load_column("sample_data/incomes_small.csv", upper=800_000)


# --------------------------------------------------------------------------------------------
# θ's law (no noise drawn) against the sampler it describes
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", [0.0005, 0.002, 0.01])
def test_svt_index_probabilities_match_the_sampler(small, epsilon) -> None:
    # 20 000 runs: the standard error of a frequency is ≤ 0.0035, so 0.015 is > 4 SE plus the
    # quadrature error (≤ 0.005, thresholds.LAW_POINTS); a law off by one grid index fails.
    params = TruncationParams()
    u, gaps = svt_gaps(small, upper=800_000.0, params=params)
    b_eta, b_nu = svt_scales(epsilon, r=params.svt_r, variant="paper")
    probs = svt_index_probabilities(gaps, b_eta=b_eta, b_nu=b_nu)
    idx, fired = svt_first_above(
        gaps, b_eta=b_eta, b_nu=b_nu, trials=20_000, rng=np.random.default_rng(7)
    )
    freq = np.bincount(np.where(fired, idx, u.size), minlength=u.size + 1) / 20_000
    assert probs.shape == (u.size + 1,) and probs.sum() == pytest.approx(1.0)
    assert np.abs(probs - freq).max() < 0.015, (probs.round(3), freq.round(3))
    shifted = np.roll(probs, 1)
    assert np.abs(shifted - freq).max() > 0.05  # the check has power


def test_per_query_svt_law_has_one_distribution_per_query(small) -> None:
    tau = make_workload("Q3", ExperimentConfig().domain).thresholds
    law = theta_law(small, "svt", epsilon=0.01, upper=800_000.0, params=TruncationParams(), tau=tau)
    assert law.support.shape == law.weights.shape and law.support.shape[1] == tau.size
    np.testing.assert_allclose(law.weights.sum(axis=0), 1.0)


def test_recursive_law_quantiles_match_the_sampler(small) -> None:
    params = TruncationParams()
    law = theta_law(small, "recursive", epsilon=0.002, upper=800_000.0, params=params)
    draws = recursive_theta(
        small, epsilon=0.002, upper=800_000.0, params=params, trials=20_000,
        rng=np.random.default_rng(3),
    ).theta  # fmt: skip
    assert law.weights.sum() == pytest.approx(1.0) and np.all(law.support <= 800_000.0)
    # the law's points are quantile midpoints: its median lies between the two middle points
    middle = np.sort(law.support)[[7, 8]]
    assert middle[0] <= np.median(draws) * 1.05 and np.median(draws) <= middle[1] * 1.05


def test_no_and_fixed_truncation_laws_are_one_point(small) -> None:
    none = theta_law(small, "none", epsilon=0.0, upper=800_000.0, params=TruncationParams())
    fixed = theta_law(
        small, "fixed", epsilon=0.0, upper=800_000.0, params=TruncationParams(theta=5e4)
    )
    assert none.support.tolist() == [np.inf] and fixed.support.tolist() == [5e4]
    with pytest.raises(ParameterError, match="needs a threshold"):
        theta_law(small, "fixed", epsilon=0.0, upper=800_000.0, params=TruncationParams())


# --------------------------------------------------------------------------------------------
# E|error| and the scaling the ε curves rely on
# --------------------------------------------------------------------------------------------
def test_expected_abs_error_is_the_folded_normal_mean() -> None:
    rng = np.random.default_rng(0)
    for b, sd in [(0.0, 1.0), (1.0, 1.0), (3.0, 0.5), (0.2, 4.0)]:
        mc = np.abs(b + sd * rng.standard_normal(400_000)).mean()
        assert expected_abs_error(np.array(b**2), np.array(sd**2)) == pytest.approx(mc, rel=0.01)
    assert expected_abs_error(np.array(4.0), np.array(0.0)) == 2.0  # no noise: |bias|
    assert expected_abs_error(np.array(0.0), np.array(1.0)) == pytest.approx(np.sqrt(2 / np.pi))


@pytest.mark.parametrize("name", [a for a in ALGORITHMS if get(a).error_rescales])
def test_every_variance_scales_as_one_over_epsilon_squared(small, name) -> None:
    # relative_error_curves computes the components once at ε_m = 1 and rescales them (not
    # for an algorithm whose design depends on ε, ClampShells: error_rescales=False)
    inputs = inputs_for(small, ExperimentConfig(workload="Q3"))
    theta = np.array([1e5, 3e5, np.inf])
    bias_1, var_1 = get(name).error(inputs, theta, 1.0)
    bias_e, var_e = get(name).error(inputs, theta, 0.03)
    np.testing.assert_allclose(bias_e, bias_1)
    np.testing.assert_allclose(var_e * 0.03**2, var_1, rtol=1e-9)


# --------------------------------------------------------------------------------------------
# Error against ε
# --------------------------------------------------------------------------------------------
def _curve(frame: pd.DataFrame, name: str, truncation: str) -> np.ndarray:
    part = frame[(frame["algorithm"] == name) & (frame["truncation"] == truncation)]
    return part.sort_values("epsilon")["metric"].to_numpy()


def test_error_against_epsilon_covers_every_configuration_and_falls_with_epsilon(small) -> None:
    config = ExperimentConfig(workload="Q3", truncations=("none", "svt", "recursive"))
    frame = error_vs_epsilon(small, config)
    assert list(frame.columns) == ["epsilon", "algorithm", "truncation", "metric"]
    plan = {(a, t) for t, a in run_plan(config)}
    assert set(zip(frame["algorithm"], frame["truncation"], strict=True)) == plan
    assert frame.groupby(["algorithm", "truncation"]).size().eq(limits.DECIDE_EPSILON_POINTS).all()
    for name, truncation in plan:
        curve = _curve(frame, name, truncation)
        assert np.all(np.isfinite(curve)) and np.all(curve >= 0)
        if truncation == "none":
            # θ = ∞ at every ε: bias fixed, noise ∝ 1/ε, so E|error| never rises
            assert np.all(np.diff(curve) <= 1e-12 * curve[:-1]), (name, curve)
        else:
            # θ's law moves with ε (SVT and Recursive pick lower θ as ε grows, RawSum's scan
            # keeps more shells), which trades bias for noise: small local rises, measured at
            # most 12.5 % between neighbouring ε on the sample data, and a fall over the range
            assert np.all(curve[1:] <= 1.15 * curve[:-1]), (name, truncation, curve)
            assert curve[-1] < curve[0] / 10, (name, truncation, curve)


def test_the_analytic_curves_draw_no_noise(small) -> None:
    a = error_vs_epsilon(small, ExperimentConfig(workload="Q3", seed=1, trials=5))
    b = error_vs_epsilon(small, ExperimentConfig(workload="Q3", seed=2, trials=50))
    pd.testing.assert_frame_equal(a, b)


def test_analytic_and_simulated_error_agree(small) -> None:
    # Fixed seed, 300 trials, Q3 on the queries from the 10th percentile up. Tolerances: the
    # normal approximation of E|noise| (≤ 13 % high for one Laplace draw), θ's law by
    # quadrature and Monte Carlo error keep the θ-choosing algorithms within a factor 1.3
    # (measured 0.85–1.18 on both samples, Q2 and Q3); RawSum's θ* is taken from the
    # noise-free scan, which ignores how noise moves it: factor 1.75 (measured 0.60–1.43).
    config = ExperimentConfig(workload="Q3", trials=300, seed=0, truncations=("none", "svt"))
    eps = [0.003, 0.03, 0.3, 3.0]
    analytic = error_vs_epsilon(small, config, eps)
    simulated = simulated_error_vs_epsilon(small, config, eps)
    both = analytic.merge(simulated, on=["epsilon", "algorithm", "truncation"])
    assert len(both) == len(analytic)
    ratio = both["metric_x"] / both["metric_y"]
    rawsum = both["algorithm"] == "rawsum"
    assert ratio[~rawsum].between(1 / 1.3, 1.3).all(), both[~rawsum].assign(ratio=ratio)
    assert ratio[rawsum].between(1 / 1.75, 1.75).all(), both[rawsum].assign(ratio=ratio)


def test_query_subset() -> None:
    tau = make_workload("Q1", ExperimentConfig().domain).thresholds
    assert query_subset(tau, 0).all()
    assert query_subset(tau, 10).sum() == 901 and not query_subset(tau, 10)[:99].any()
    for bad in (-1, 100, float("nan")):
        with pytest.raises(ParameterError, match=r"percentile must be in \[0, 100\)"):
            query_subset(tau, bad)


# --------------------------------------------------------------------------------------------
# Smallest ε and the summary
# --------------------------------------------------------------------------------------------
def _synthetic() -> pd.DataFrame:
    eps = np.geomspace(0.1, 100, 7)
    return pd.concat(
        [
            pd.DataFrame({"epsilon": eps, "algorithm": "tamm", "truncation": "svt", "metric": 1 / eps}),
            pd.DataFrame({"epsilon": eps, "algorithm": "identity", "truncation": "svt",
                          "metric": 4 / eps}),
            pd.DataFrame({"epsilon": eps, "algorithm": "sqm", "truncation": "svt",
                          "metric": np.maximum(1 / eps, 0.2)}),
            pd.DataFrame({"epsilon": eps, "algorithm": "rawsum", "truncation": "posthoc",
                          "metric": 0.001 / eps}),
        ]
    )  # fmt: skip


def test_smallest_epsilon_interpolates_on_log_log_axes() -> None:
    reaches = smallest_epsilon(_synthetic(), 0.05)
    by = {r.algorithm: r for r in reaches}
    # 1/ε is a straight line on log–log axes: the interpolation is exact between grid points
    assert by["tamm"].epsilon == pytest.approx(20.0) and not by["tamm"].from_start
    assert by["identity"].epsilon == pytest.approx(80.0)
    assert by["sqm"].epsilon is None and by["sqm"].best == pytest.approx(0.2)
    assert by["rawsum"].from_start and by["rawsum"].epsilon == pytest.approx(0.1)
    assert [r.algorithm for r in reaches] == ["rawsum", "tamm", "identity", "sqm"]
    with pytest.raises(ParameterError, match="target must be a number > 0"):
        smallest_epsilon(_synthetic(), 0.0)


def test_summary_wording() -> None:
    reaches = smallest_epsilon(_synthetic(), 0.05)
    lines = decision_summary(reaches, 0.05, np.geomspace(0.1, 100, 7))
    assert lines == [
        "RawSum (θ after measuring) meets a median relative error of 5 % already at ε = 0.1, "
        "the smallest ε shown.",
        "TaMM with SVT needs ε ≈ 20.",
        "Identity with SVT needs ε ≈ 80.",
        "SQM with SVT does not reach 5 % for ε up to 100 (its lowest median relative error is "
        "20 %).",
    ]
    first = decision_summary(
        [Reach("tamm", "svt", 0.4, 0.01), Reach("identity", "none", 0.9, 0.01)], 0.05,
        epsilon_grid(),
    )  # fmt: skip
    assert first == [
        "TaMM with SVT reaches a median relative error of 5 % at ε ≈ 0.4.",
        "Identity with no truncation needs ε ≈ 0.9.",
    ]
    assert target_sentence(0.05, 10, 901, 1000) == (
        "Target: median relative error ≤ 5 % on the queries from the 10th percentile of τ up "
        "(901 of 1,000 queries)."
    )
    assert "on all queries" in target_sentence(0.05, 0, 10, 10)


def test_crossings_close_together_are_one_numbered_marker_not_a_pile():
    """Configurations meeting the target at nearly the same ε share one marker whose hover
    names each of them; far-apart crossings keep their own marker (issue 19)."""
    import pandas as pd

    from dpsum_core.plots.decision import decision_figure
    from dpsum_core.simulate.decision import Reach

    eps = np.geomspace(0.001, 10, 25)
    frame = pd.concat([
        pd.DataFrame({"algorithm": a, "truncation": "svt", "epsilon": eps, "metric": 1 / eps})
        for a in ("identity", "timm", "tamm")
    ])  # fmt: skip
    reaches = [Reach("identity", "svt", 0.0100, 0.01), Reach("timm", "svt", 0.0105, 0.01),
               Reach("tamm", "svt", 0.2, 0.01)]  # fmt: skip
    fig = decision_figure(frame, reaches, 0.05)
    at_target = [t for t in fig.data if list(t.y) == [0.05]]
    assert len(at_target) == 2  # the two close crossings share one marker
    shared = next(t for t in at_target if t.text is not None)
    assert list(shared.text) == ["2"]
    assert "Identity with SVT" in shared.hovertemplate and "TiMM with SVT" in shared.hovertemplate
    assert shared.x[0] == pytest.approx(np.sqrt(0.0100 * 0.0105))


def test_every_kind_of_marker_on_the_target_line_is_in_the_legend():
    """Review: a grey "2" and a large hexagon on the target line were explained neither in
    the legend nor in the caption. The legend now has an entry for each kind that is drawn
    (a line's own symbol, large: ClampShells' hexagon; the grey numbered circle), and none
    for a kind that is not."""
    from dpsum_core.plots.decision import MEETS_KEY, SHARED_KEY, decision_figure
    from dpsum_core.simulate.decision import Reach

    eps = np.geomspace(0.001, 10, 25)
    frame = pd.concat([
        pd.DataFrame({"algorithm": a, "truncation": t, "epsilon": eps, "metric": 1 / eps})
        for a, t in (("identity", "svt"), ("timm", "svt"), ("clampshells", "posthoc"))
    ])  # fmt: skip
    both = [Reach("identity", "svt", 0.0100, 0.01), Reach("timm", "svt", 0.0105, 0.01),
            Reach("clampshells", "posthoc", 0.2, 0.01)]  # fmt: skip
    fig = decision_figure(frame, both, 0.05)
    hexagon = next(t for t in fig.data if list(t.y) == [0.05] and t.text is None)
    assert hexagon.marker.symbol == "hexagon"
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert MEETS_KEY in legend and SHARED_KEY in legend
    assert "first meets" in MEETS_KEY and "grey number" in SHARED_KEY
    alone = [t.name for t in decision_figure(frame, both[2:], 0.05).data]
    assert MEETS_KEY in alone and SHARED_KEY not in alone
    none = [t.name for t in decision_figure(frame, [], 0.05).data]
    assert MEETS_KEY not in none and SHARED_KEY not in none
