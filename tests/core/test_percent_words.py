"""Percentages people read carry significant digits (the one formatter,
:func:`~dpsum_core.simulate.results.percent`): never "about 0 %" for a share of 0.045 %, never
"1 %" beside "0.999 %"; the run's header writes U without an exponent."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from dpsum_core.cli import main
from dpsum_core.data.reading import load_column
from dpsum_core.publish.release import plan_release, release
from dpsum_core.publish.report import headline
from dpsum_core.simulate.config import ExperimentConfig

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")


@pytest.mark.parametrize(("share", "shown"), [(0.00045, "0.045 %"), (0.00999, "0.999 %"),
                                              (0.28, "28 %")])  # fmt: skip
def test_the_headlines_share_of_the_answer_keeps_its_digits(share, shown):
    data = load_column(SMALL, upper=800_000.0)
    plan = plan_release(ExperimentConfig(workload="Q3", epsilon=2.0), algorithm="clampshells",
                        truncation=None)  # fmt: skip
    rel = release(data, plan.config, algorithm="clampshells", truncation=None)
    width = rel.intervals.upper - rel.intervals.lower
    assert np.all(rel.intervals.bias_bounded)
    rel = dataclasses.replace(rel, private_answers=width / share)  # each row's share: `share`
    assert f"(a width of about {shown} of the answer)" in headline(rel, dataset="d.csv")


def test_the_run_header_writes_u_without_an_exponent(tmp_path, capsys):
    assert main(["run", "--data", SMALL, "--upper", "2000000", "--workload", "Q3",
                 "--algorithms", "tamm", "--truncation", "svt", "--trials", "2",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "U = 2,000,000," in out and "e+06" not in out
