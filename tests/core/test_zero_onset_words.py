"""A report says why some published answers are exactly 0 (economist's review P3-2): ClampShells'
onset gate sets the answers before the first that stands clear of its noise to 0, with the
public δ; and 0 is written alike in the answer and interval columns ("0", not "0.0" beside
"[0, 30]")."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.publish.release import release
from dpsum_core.publish.report import answer_cells, report_markdown, zero_onset
from dpsum_core.simulate.config import ExperimentConfig

UPPER = 200.0


@pytest.fixture(scope="module")
def wages():
    """Hourly wages from $7 up (no value below the 7th bin edge): queries τ < 7 sum to 0."""
    rng = np.random.default_rng(3)
    values = np.clip(np.round(rng.lognormal(np.log(22), 0.5, 20_000)), 7, 300)
    return make_dataset(pd.Series(values), upper=UPPER)


def _release(data, algorithm: str, truncation: str | None = None):
    config = ExperimentConfig(workload="Q1", epsilon=0.3, upper=UPPER, bins=200)
    return release(data, config, algorithm=algorithm, truncation=truncation)


def test_a_clampshells_report_says_why_its_first_answers_are_zero(wages) -> None:
    rel = _release(wages, "clampshells")
    answers = np.array(rel.private_answers, float)
    answers[:6] = 0.0  # as the review's release: τ = 1 … 6 published 0 (the gate, per draw)
    answers[6] = max(answers[6], 1.0)
    lower = np.array(rel.intervals.lower, float)
    lower[:6] = 0.0  # their intervals start at 0 (the review's [0.0, 13.4], [0, 30], …)
    intervals = dataclasses.replace(rel.intervals, lower=lower)
    rel = dataclasses.replace(rel, private_answers=answers, intervals=intervals)
    said = zero_onset(rel)
    assert said is not None
    assert "6 queries" in said and "τ up to 6" in said
    assert "onset gate" in said and "δ = 100" in said and "no extra ε" in said
    assert said in report_markdown(rel, dataset="wages.csv")
    # 0 alike in every column: the answer and the lower end of the interval
    for _, shown, low, _ in answer_cells(rel)[:6]:
        assert shown == "0" and low == "0"


def test_no_such_sentence_without_a_leading_zero_or_without_the_gate(wages) -> None:
    rel = _release(wages, "clampshells")
    answers = np.array(rel.private_answers, float)
    answers[0] = 5.0
    assert zero_onset(dataclasses.replace(rel, private_answers=answers)) is None
    other = _release(wages, "tamm", "svt")  # no onset gate: no δ recorded
    zeros = np.array(other.private_answers, float)
    zeros[:3] = 0.0
    other = dataclasses.replace(other, private_answers=zeros)
    assert other.config.get("delta") is None
    assert zero_onset(other) is None
    assert "Answers of exactly 0" not in report_markdown(other, dataset="wages.csv")
