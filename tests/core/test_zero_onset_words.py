"""Answers ClampShells' onset gate published as 0 (review 9 P2-4; economist's review P3-2).

The gate sets the answers before the first that stands clear of its noise to 0. A bare 0 in a
table reads as "nothing lies below τ" (the review's "| 8 | 0 | [0, 2,300]" where the truth was
1,296): every human-facing table shows such an answer as "≤ upper end (not distinguishable
from 0)", the report says why, and the machine files keep the number 0 with a per-answer flag
(answers.csv ``gated``, release.json ``gated_thresholds``). A 0 the gate did not make (an
isotonic answer clipped at 0) is not flagged.
"""

from __future__ import annotations

import dataclasses
import io
import json

import numpy as np
import pandas as pd
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms.clampshells_answers import onset_gated
from dpsum_core.noise import SimulatedNoise
from dpsum_core.publish.chart import interval_svg
from dpsum_core.publish.release import _release_with, plan_release
from dpsum_core.publish.report import (
    answer_cells,
    answers_csv,
    gated_cell,
    record_json,
    report_html,
    report_markdown,
    zero_onset,
)
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.text import NOT_TOLD_FROM_ZERO

UPPER = 200.0


@pytest.fixture(scope="module")
def wages():
    """Hourly wages from $7 up (no value below the 7th bin edge): queries τ < 7 sum to 0, and
    a minimum-wage heap at 7 (the review's 120 people at 7.25) that the gate hides at small ε."""
    rng = np.random.default_rng(3)
    values = np.clip(np.round(rng.lognormal(np.log(22), 0.5, 3_000), 2), 7.25, 300)
    return make_dataset(pd.Series(values), upper=UPPER)


def _release(data, algorithm: str, truncation: str | None = None, *, seed: int = 1):
    config = ExperimentConfig(workload="Q1", epsilon=0.035, upper=UPPER, bins=200)
    plan = plan_release(config, algorithm=algorithm, truncation=truncation)
    return _release_with(data, plan, SimulatedNoise(np.random.default_rng(seed)), None)


@pytest.fixture(scope="module")
def gated_release(wages):
    rel = _release(wages, "clampshells")
    assert rel.gated is not None and 3 <= rel.gated.sum() < rel.thresholds.size  # this seed's
    return rel


def test_the_gated_answers_are_the_gates_leading_zeros(gated_release):
    rel = gated_release
    k = int(rel.gated.sum())
    assert rel.gated[:k].all() and not rel.gated[k:].any()  # a leading run
    assert np.all(rel.private_answers[:k] == 0.0)
    # only what the gate zeroed: a 0 after the onset is an answer, not a gated one
    assert onset_gated(np.array([0.0, 0.0, 3.5, 0.0, 7.0])).tolist() == [True, True, False, False,
                                                                         False]  # fmt: skip
    assert onset_gated(np.zeros(3)).all() and not onset_gated(np.array([2.0, 0.0])).any()


def test_answers_csv_and_release_json_flag_each_gated_answer(gated_release):
    rel = gated_release
    frame = pd.read_csv(io.StringIO(answers_csv(rel)))
    assert list(frame["gated"]) == list(rel.gated)
    assert np.all(frame.loc[frame["gated"], "private_answer"] == 0.0)  # the number stays 0
    record = json.loads(record_json(rel))
    assert record["gated_thresholds"] == [float(t) for t in rel.thresholds[rel.gated]]


def test_the_report_never_shows_a_gated_answer_as_a_bare_zero(gated_release):
    rel = gated_release
    k = int(rel.gated.sum())
    cells = answer_cells(rel)
    for _, answer, low, upper in cells[:k]:
        assert answer == gated_cell(upper) == f"≤ {upper} ({NOT_TOLD_FROM_ZERO})" and low == "0"
    assert all(NOT_TOLD_FROM_ZERO not in cell[1] for cell in cells[k:])
    markdown = report_markdown(rel, dataset="wages.csv")
    tau, answer, low, upper = cells[0]
    assert f"| {tau} | {answer} | [{low}, {upper}] |" in markdown
    assert f"| {tau} | 0 |" not in markdown
    said = zero_onset(rel)
    assert said is not None and said in markdown
    assert f"{k} queries" in said and f"τ up to {cells[k - 1][0]}" in said
    assert "onset gate" in said and "δ = 100" in said and "no extra ε" in said
    assert "gated = true" in said and "gated_thresholds" in said
    page = report_html(markdown)
    assert f"<td>{tau}</td><td>{answer}</td>" in page and f"<td>{tau}</td><td>0</td>" not in page


def test_a_zero_the_gate_did_not_make_is_not_flagged(wages):
    other = _release(wages, "tamm", "none", seed=2)  # no onset gate; isotonic clips at 0
    assert other.gated is None and other.config.get("delta") is None
    assert (other.private_answers == 0).any()  # this seed's: a clipped answer of 0
    assert not other.gated_answers.any()
    frame = pd.read_csv(io.StringIO(answers_csv(other)))
    assert not frame["gated"].any()
    assert json.loads(record_json(other))["gated_thresholds"] == []
    assert zero_onset(other) is None
    assert NOT_TOLD_FROM_ZERO not in report_markdown(other, dataset="wages.csv")


def test_no_sentence_when_nothing_was_gated(gated_release):
    none = dataclasses.replace(gated_release, gated=np.zeros(gated_release.thresholds.size, bool))
    assert zero_onset(none) is None
    assert NOT_TOLD_FROM_ZERO not in report_markdown(none, dataset="wages.csv")


def test_the_chart_dots_the_gated_answers_and_says_why(gated_release):
    rel = gated_release
    iv = rel.intervals
    dotted = interval_svg(rel.thresholds, rel.private_answers, iv.lower, iv.upper, title="t",
                          gated=rel.gated_answers)  # fmt: skip
    assert dotted.count("stroke-dasharray") == 2  # the gated run's line and its legend
    assert NOT_TOLD_FROM_ZERO in dotted
    plain = interval_svg(rel.thresholds, rel.private_answers, iv.lower, iv.upper, title="t")
    assert "stroke-dasharray" not in plain and NOT_TOLD_FROM_ZERO not in plain
