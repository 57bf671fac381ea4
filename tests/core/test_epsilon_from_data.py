"""Review 9 P1-2: an ε chosen on Decide from the true answers of the data released was said on
the Release page only; report.md/html and release.json said "at ε = …". The release now
carries the fact (:attr:`Release.epsilon_chosen_from_data`) into both, and only then."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from dpsum_core.data.reading import load_column
from dpsum_core.publish.release import release
from dpsum_core.publish.report import record_json, report_html, report_markdown
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.text import EPSILON_FROM_DATA

SMALL = str(Path(__file__).resolve().parents[2] / "sample_data" / "incomes_small.csv")


@pytest.fixture(scope="module")
def plain():
    data = load_column(SMALL, upper=800_000.0)
    return release(data, ExperimentConfig(workload="Q3", epsilon=0.5), algorithm="sqm",
                   truncation="svt")  # fmt: skip


def test_an_epsilon_chosen_from_the_data_is_said_in_the_report_and_the_record(plain):
    rel = replace(plain, epsilon_chosen_from_data=True)
    record = json.loads(record_json(rel))
    assert record["epsilon_chosen_from_data"] is True
    assert record["epsilon_note"] == EPSILON_FROM_DATA
    # review 11 P2-8: the answers are private; only the choice of ε looked at the data
    assert "The answers are ε-differentially private as released" in EPSILON_FROM_DATA
    assert "not covered" not in EPSILON_FROM_DATA and "not for that choice" in EPSILON_FROM_DATA
    text = report_markdown(rel, dataset="incomes_small.csv")
    lines = text.splitlines()
    headline = next(i for i, line in enumerate(lines) if line.startswith("**Released "))
    assert "at ε = 0.5" in lines[headline]
    assert lines[headline + 2] == EPSILON_FROM_DATA  # the paragraph right after the ε
    assert text.count(EPSILON_FROM_DATA) == 1
    assert "Only the choice of ε itself looked at this data" in report_html(text)


def test_nothing_changes_otherwise(plain):
    assert plain.epsilon_chosen_from_data is False
    record = json.loads(record_json(plain))
    assert "epsilon_chosen_from_data" not in record and "epsilon_note" not in record
    assert "not covered" not in report_markdown(plain, dataset="incomes_small.csv")
