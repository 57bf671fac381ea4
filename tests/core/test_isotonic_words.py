"""Third audit P3-1: Workload's and SQM's intervals are built from the answers before isotonic
regression (valid, INTERVALS.md: "and say which"), and the report said only "Isotonic
regression: yes". It now says which answers the intervals are for."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.reading import load_column
from dpsum_core.publish.release import release
from dpsum_core.publish.report import isotonic_words, report_markdown
from dpsum_core.simulate.config import ExperimentConfig

SMALL = "sample_data/incomes_small.csv"


@pytest.mark.parametrize("isotonic", [True, False])
def test_the_report_says_which_answers_the_intervals_are_for(isotonic):
    data = load_column(SMALL, upper=800_000.0)
    config = ExperimentConfig(workload="Q3", epsilon=1.0)
    rel = release(data, config, algorithm="workload", truncation="svt", isotonic=isotonic)
    md = report_markdown(rel, dataset="incomes_small.csv")
    (line,) = [x for x in md.splitlines() if x.startswith("- **Isotonic regression**")]
    assert line == f"- **Isotonic regression**: {isotonic_words(isotonic)}"
    if isotonic:
        assert "intervals are built from the answers before it" in line
        assert "do not narrow with it" in line
    else:
        assert line.endswith(": no.")
    # the interval holds the published answer either way (widened to hold it)
    iv = rel.intervals
    assert np.all(iv.lower <= rel.private_answers) and np.all(rel.private_answers <= iv.upper)
