"""Figures: readable axes at the paper's ε, labelled error floor, subtitles with the domain."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.reading import load_column
from dpsum_core.plots.export import static
from dpsum_core.plots.results import (
    ANSWER_AXIS_MARGIN,
    CLIPPED_HINT,
    CLIPPED_NOTE,
    FLOOR_NOTE,
    answers_axis_range,
    answers_figure,
    isotonic_figure,
    relative_error_figure,
    small_multiples_figure,
    theta_figure,
)
from dpsum_core.plots.style import ERROR_FLOOR, IN_UNIT, file_stem, log_ticks, run_stem
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment

# "within a small factor of the true answers": the axis may extend past the true answers by
# at most this share of their span on each side (plus the small padding).
FACTOR = (1 + 2 * ANSWER_AXIS_MARGIN) * 1.1


@pytest.fixture(scope="module")
def result():
    data = load_column("sample_data/incomes.csv", upper=800_000)
    config = ExperimentConfig(
        workload="Q1", epsilon=0.01, truncations=("none", "svt"), trials=40, seed=0
    )
    return run_experiment(data, config)


def _span(values) -> float:
    return float(np.max(values) - np.min(values))


def _notes(fig) -> list[str]:
    return [a.text for a in fig.layout.annotations]


def test_answers_axis_is_led_by_the_true_answers_and_says_when_it_clips(result):
    truth = result.true_answers
    fig = answers_figure(result, "none", iso=False)
    low, high = fig.layout.yaxis.range
    assert low <= truth.min() and high >= truth.max()
    assert high - low <= FACTOR * _span(truth)
    # at ε = 0.01 without truncation some band reaches far beyond: the figure says it clips
    drawn_max = max(float(np.nanmax(np.asarray(t.y, float))) for t in fig.data
                    if any(v is not None for v in t.y))  # not the bands' legend entry (no data)
    assert drawn_max > high
    assert CLIPPED_NOTE in _notes(fig) and CLIPPED_HINT in _notes(fig)
    # a still image has no toolbar: the note stays, the hint about Autoscale goes
    still = _notes(static(fig))
    assert CLIPPED_NOTE in still and not [n for n in still if "Autoscale" in n], still
    assert CLIPPED_HINT in _notes(fig)  # the chart on screen keeps it


def test_axes_say_their_unit_and_label_only_the_powers_of_ten(result):
    """Amounts are in the data's unit, relative errors in percent (as every table writes
    them), and a log axis over several decades labels only its powers of ten."""
    answers = answers_figure(result, "svt")
    # the unit's words, on a line of their own where a phone needs it (ui10)
    assert IN_UNIT.lstrip(", ") in answers.layout.yaxis.title.text
    assert IN_UNIT.lstrip(", ") in answers.layout.xaxis.title.text
    assert answers.layout.xaxis.dtick == 1  # Q1's τ spans decades: no 2 and 5 labels
    for fig in (relative_error_figure(result, "svt"), isotonic_figure(result, "svt"),
                small_multiples_figure(result, kind="error")):  # fmt: skip
        axes = [fig.layout[k] for k in fig.layout if k.startswith("yaxis")]
        assert axes and all(a.tickformat == ",~%" for a in axes), fig.layout.title.text
        assert fig.layout.xaxis.title.text == f"threshold τ{IN_UNIT}"
    assert answers.layout.xaxis.tickformat == ",~r"  # 100,000, never 100k nor 2G
    assert log_ticks([0.5, 3.0]) == {"dtick": "D2"}  # under two decades: 1, 2 and 5 labelled


def test_answers_axis_does_not_clip_or_note_when_everything_fits():
    truth = np.array([0.0, 10.0, 20.0])
    yrange, clipped = answers_axis_range(truth, [truth + 1.0, truth - 1.0])
    assert not clipped
    assert yrange[0] < -1.0 and yrange[1] > 21.0 and yrange[1] - yrange[0] < 1.2 * 22.0
    # a band 100× the largest answer is cut at the margin
    yrange, clipped = answers_axis_range(truth, [truth * 100])
    assert clipped and yrange[1] <= 20.0 + ANSWER_AXIS_MARGIN * 20.0 + 1.0


def test_compare_small_multiples_of_answers_share_the_true_answers_axis(result):
    fig = small_multiples_figure(result, iso=True, kind="answers")
    low, high = fig.layout.yaxis.range
    truth = result.true_answers
    assert low <= truth.min() and high >= truth.max()
    assert high - low <= FACTOR * _span(truth)


def test_exact_zero_errors_sit_on_a_labelled_floor(result):
    # with isotonic regression the smallest queries are often answered exactly (error 0)
    run = next(r for r in result.runs if r.algorithm == "sqm")
    assert (result.relative_errors(run, iso=True) == 0).any(), "fixture must contain zeros"
    for fig in (
        relative_error_figure(result, "svt", iso=True),
        isotonic_figure(result, "svt"),
        small_multiples_figure(result, iso=True),
    ):
        assert FLOOR_NOTE in _notes(fig)
        assert any(s.y0 == ERROR_FLOOR for s in fig.layout.shapes)


def test_no_floor_label_without_exact_answers(result):
    # without isotonic regression and without truncation no answer is exact
    run = next(r for r in result.runs if r.algorithm == "identity" and r.truncation == "none")
    assert (result.relative_errors(run) > ERROR_FLOOR).all()
    fig = relative_error_figure(result, "none", algorithms=["identity"])
    assert FLOOR_NOTE not in _notes(fig) and not fig.layout.shapes


def test_subtitles_carry_the_domain(result):
    fig = answers_figure(result, "svt")
    assert "U = 800,000, 1,000 bins" in fig.layout.title.text


def test_download_names_say_what_they_show(result):
    assert run_stem(result, "answers_svt_iso") == (
        "dpsum_incomes_Q1_eps0.01_seed0_answers_svt_iso"
    )
    assert file_stem("my data (2024).csv", "values:1000,2000", "x") == (
        "dpsum_my-data-2024-_values-1000-2000_x"
    )


def test_the_theta_histogram_leaves_out_infinite_thetas_and_says_how_many():
    """RawSum's θ* is ∞ when no shell near U is occupied; an ∞ in a histogram's data made
    plotly.js draw an empty chart (a custodian's hourly column, U = 200, ε = 1)."""
    rng = np.random.default_rng(0)
    data = make_dataset(np.round(rng.lognormal(np.log(20), 0.5, 25_000), 2), upper=200.0)
    config = ExperimentConfig(workload="Q2", epsilon=1.0, upper=200.0, bins=200,
                              truncations=("svt",), trials=100, seed=0)  # fmt: skip
    result = run_experiment(data, config)
    rawsum = next(r for r in result.runs if r.algorithm == "rawsum")
    infinite = int(np.isinf(rawsum.theta).sum())
    assert 0 < infinite < 100  # the case at hand: some trials found nothing near U
    fig = theta_figure(result)
    for trace in fig.data:
        assert np.isfinite(np.asarray(trace.x, float)).all()
    (after,) = [t for t in fig.data if t.name.startswith("θ after measuring")]
    assert np.asarray(after.x).size == 100 - infinite
    # in the Summary table's words for the same θ (economist's review P3-7: "θ = ∞" here,
    # "none beyond U" there)
    assert f"(θ none beyond U in {infinite} trials, not drawn)" in after.name
    assert "∞" not in after.name
