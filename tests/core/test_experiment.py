"""The experiment runner: config round trips, seeds, budget ledger, summaries."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsum_core.data.reading import load_column
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.isotonic import isotonic
from dpsum_core.mechanisms.registry import ALGORITHMS, get, truncation_label
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.registry import TRUNCATION_METHODS

SUMMARY_COLUMNS = [
    "algorithm", "truncation", "query", "threshold", "true_answer", "binned_answer",
    "mean_answer", "p5_answer", "p95_answer", "mean_rel_error", "p5_rel_error", "p95_rel_error",
    "mean_rel_error_iso", "p5_rel_error_iso", "p95_rel_error_iso", "expected_rmse",
]


@pytest.fixture(scope="module")
def small():
    return load_column("sample_data/incomes_small.csv", upper=800_000)


def _cfg(**kw):
    base = dict(workload="Q3", trials=30, truncations=TRUNCATION_METHODS,
                truncation_params=TruncationParams(theta=120_000.0))
    base.update(kw)
    return ExperimentConfig(**base)


def test_config_json_round_trip():
    cfg = _cfg(epsilon=0.5, rho=0.3, seed=7, truncation_params=TruncationParams(svt_variant="tight", theta=9.0))
    assert ExperimentConfig.from_json(cfg.to_json()) == cfg


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"epsilon": 0}', "epsilon must be between"),
        ('{"colour": 1}', "unknown configuration key"),
        ('{"algorithms": ["sqm", "magic"]}', "unknown algorithm 'magic'"),
        ('{"truncations": []}', "choose at least one truncation"),
        ('{"truncations": ["fixed"]}', "needs a threshold"),
        ('{"trials": 10000000}', "trials must be between"),
        ('{"rho": 1}', "rho must be between"),
        ('{"truncation_params": {"svt_q": 1}}', "unknown truncation parameter"),
    ],
)
def test_bad_configs(text, message):
    with pytest.raises(ParameterError, match=message):
        ExperimentConfig.from_json(text)


def test_same_seed_same_results_and_seed_reaches_every_draw(small):
    a = run_experiment(small, _cfg(seed=11))
    b = run_experiment(small, _cfg(seed=11))
    c = run_experiment(small, _cfg(seed=12))
    for ra, rb, rc in zip(a.runs, b.runs, c.runs, strict=True):
        np.testing.assert_array_equal(ra.answers, rb.answers)
        np.testing.assert_array_equal(ra.theta, rb.theta)
        # A different seed changes every configuration's noise, and every private θ.
        assert not np.array_equal(ra.answers, rc.answers), (ra.algorithm, ra.truncation)
        if ra.truncation in ("svt", "recursive"):
            assert not np.array_equal(ra.theta, rc.theta)


def test_results_do_not_depend_on_which_other_algorithms_run(small):
    full = run_experiment(small, _cfg(seed=3))
    only = run_experiment(small, _cfg(seed=3, algorithms=("tamm",), truncations=("svt",)))
    np.testing.assert_array_equal(full.run("tamm", "svt").answers, only.run("tamm", "svt").answers)


def test_budget_ledger_sums_to_epsilon(small):
    cfg = _cfg(epsilon=0.37, rho=0.25, algorithms=ALGORITHMS)
    result = run_experiment(small, cfg)
    # Every θ-choosing algorithm under every method, and each algorithm with its own θ once,
    # under the label of its θ rule.
    once = [a for a in ALGORITHMS if get(a).runs_once]
    assert once == ["rawsum", "clampshells"]
    assert len(result.runs) == (len(ALGORITHMS) - len(once)) * len(TRUNCATION_METHODS) + len(once)
    assert {r.truncation for r in result.runs if r.algorithm in once} == {"posthoc", "inside"}
    for r in result.runs:
        assert math.isclose(r.budget.total, 0.37, rel_tol=1e-12)
        private = r.truncation in ("svt", "recursive")
        # ClampShells locates θ* itself with its own share pε (nothing from ρ)
        own = get(r.algorithm).theta_share * 0.37
        assert r.budget.epsilon_theta == pytest.approx(0.25 * 0.37 if private else own)
    info = json.loads(json.dumps(result.run_info()))
    assert {b["algorithm"] for b in info["budget"]} == set(ALGORITHMS)
    assert all(math.isclose(b["total"], 0.37) for b in info["budget"])


def test_batch_algorithms_share_one_theta_per_trial(small):
    result = run_experiment(small, _cfg(truncations=("svt",)))
    thetas = [result.run(a, "svt").theta for a in ("identity", "workload", "timm", "tamm")]
    for t in thetas[1:]:
        np.testing.assert_array_equal(t, thetas[0])
    assert result.run("sqm", "svt").theta.shape == (30, result.workload.size)


def test_summary_columns_and_values(small):
    result = run_experiment(small, _cfg(truncations=("svt",)))
    s = result.summary()
    assert list(s.columns[: len(SUMMARY_COLUMNS)]) == SUMMARY_COLUMNS
    r = result.run("identity", "svt")
    sub = s[(s.algorithm == "identity")]
    np.testing.assert_allclose(sub.mean_answer, r.answers.mean(axis=0))
    rel = np.abs(r.answers - result.true_answers) / np.maximum(result.true_answers, 100)
    np.testing.assert_allclose(sub.p95_rel_error, np.percentile(rel, 95, axis=0))
    assert np.all(sub.expected_rmse > 0)
    frame = result.answers_frame()
    assert len(frame) == 6 * 30 * result.workload.size
    assert list(frame.columns) == ["algorithm", "truncation", "trial", "query", "threshold",
                                   "true_answer", "noisy_answer", "noisy_answer_iso", "theta"]


def test_data_cleaned_with_other_upper_is_rejected(small):
    with pytest.raises(ParameterError, match="reload the data"):
        run_experiment(small, _cfg(upper=500_000.0))


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(0, 1e6), min_size=1, max_size=40).map(sorted),
    st.integers(0, 2**32 - 1),
)
def test_isotonic_is_monotone_nonnegative_and_never_worse(truth, seed):
    y = np.array(truth)
    noisy = y + np.random.default_rng(seed).laplace(0, 1e5, size=(3, y.size))
    iso = isotonic(noisy)
    assert np.all(np.diff(iso, axis=1) >= -1e-9 * (1 + np.abs(iso[:, 1:])))
    assert np.all(iso >= 0)
    assert np.all(((iso - y) ** 2).sum(axis=1) <= ((noisy - y) ** 2).sum(axis=1) * (1 + 1e-12) + 1e-6)


def test_runs_too_big_for_memory_are_refused(small):
    from dpsum_core import limits

    cfg = ExperimentConfig(workload="Q1", trials=limits.MAX_TRIALS, truncations=("svt", "none"))
    with pytest.raises(ParameterError, match=r"use at most [\d,]+ trials"):
        run_experiment(small, cfg)


def test_theta_curves_slice_the_all_query_components(small):
    from dpsum_core.simulate.analytics import theta_curves, theta_error_components

    cfg = _cfg(truncations=("svt",))
    grid = np.geomspace(1e3, 8e5, 7)
    parts = theta_error_components(small, cfg, thetas=grid)
    frame = theta_curves(small, cfg, query=4, thetas=grid)
    b2, var = parts["tamm"]
    sub = frame[frame.algorithm == "tamm"]
    np.testing.assert_allclose(sub.total, b2[:, 4] + var[:, 4])
    # Budget: a private θ leaves (1 − ρ)ε for the measurement, a public one all of ε.
    public = theta_error_components(small, cfg, thetas=grid, private_theta=False)
    np.testing.assert_allclose(public["identity"][1], parts["identity"][1] * (1 - cfg.rho) ** 2)
    with pytest.raises(ParameterError, match="query must be between"):
        theta_curves(small, cfg, query=99, thetas=grid)


def test_bias_splits_into_truncation_and_binning_bias(small):
    from dpsum_core.mechanisms.error import bias_parts
    from dpsum_core.mechanisms.registry import get
    from dpsum_core.simulate.experiment import inputs_for

    inputs = inputs_for(small, ExperimentConfig(workload="Q3"))
    thetas = np.array([5_000.0, 40_000.0, 200_000.0, 800_000.0])
    trunc, binning = bias_parts(inputs, thetas)
    identity_b2, _ = get("identity").error(inputs, thetas, 0.01)
    sqm_b2, _ = get("sqm").error(inputs, thetas, 0.01)
    np.testing.assert_allclose((trunc + binning) ** 2, identity_b2, rtol=1e-9, atol=1e-3)
    np.testing.assert_allclose(trunc**2, sqm_b2, rtol=1e-9, atol=1e-3)  # SQM: no binning
    assert (trunc <= 0).all() and (binning >= 0).all()  # upper-edge weights round up
    # θ at U truncates nothing, but the upper-edge weights still add a binning bias
    assert (trunc[-1] == 0).all() and (binning[-1] > 0).all()


def test_one_headline_metric_everywhere(small):
    """The explorer table, the Compare heatmap, the ε sweep and the CLI summary show the same
    number for the same run, under the same name."""
    from dpsum_core.plots.results import comparison_heatmap
    from dpsum_core.simulate.experiment import epsilon_sweep
    from dpsum_core.simulate.results import headline, headline_name, percent

    cfg = _cfg(truncations=("svt",), algorithms=("identity", "tamm", "rawsum"))
    result = run_experiment(small, cfg)
    ov = result.overview().set_index(["algorithm", "truncation"])
    heat = comparison_heatmap(result, iso=True).data[0]
    sweep = epsilon_sweep(small, cfg, [cfg.epsilon]).set_index(["algorithm", "truncation"])
    for r in result.runs:
        value = headline(result.relative_errors(r, iso=True))
        assert ov.loc[(r.algorithm, r.truncation), "median_rel_error_iso"] == value
        assert sweep.loc[(r.algorithm, r.truncation), "median_rel_error_iso"] == value
        row = list(heat.y).index(get(r.algorithm).label)
        col = list(heat.x).index(truncation_label(r.truncation))
        assert heat.text[row][col] == percent(value)  # the Explorer's percent
    assert headline_name() in comparison_heatmap(result).layout.title.text.lower()


def test_percent_never_writes_an_exponent():
    """Decide showed "1e-09 %" (teacher review): a percentage too small for three digits is
    said to be below 0.0001 %."""
    from dpsum_core.simulate.results import percent

    assert percent(1e-11) == "below 0.0001 %" and percent(1.5e-6) == "0.00015 %"
    for value in (1e-11, 3e-7, 0.05, 0.41, 14.2, 1e6):
        assert "e" not in percent(value).replace("below", ""), value
