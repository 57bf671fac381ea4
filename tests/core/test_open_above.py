"""Custodian review P2-6: which releases may have intervals open above is said from the plan
alone (the algorithm's interval rule), before anything is drawn, and agrees with the releases."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms.registry import ALGORITHMS, get
from dpsum_core.publish.release import plan_release, release_plan
from dpsum_core.publish.report import open_above, open_span, report_markdown
from dpsum_core.simulate.config import ExperimentConfig

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")


def _plan(algorithm: str, truncation: str | None):
    base = ExperimentConfig(workload="Q3", epsilon=0.1, truncations=(truncation or "none",))
    return plan_release(base, algorithm=algorithm, truncation=truncation)


def test_only_sqm_with_a_truncation_may_be_open_above():
    said = {name for name in ALGORITHMS if get(name).interval is not None
            and get(name).interval.open_above is not None}  # fmt: skip
    assert said == {"sqm"}
    words = open_above(_plan("sqm", "svt"))
    assert words is not None and "lower end only" in words and "θ_i is below" in words
    assert open_above(_plan("sqm", "none")) is None  # nothing truncated: two-sided
    assert open_above(_plan("clampshells", None)) is None
    assert open_above(_plan("tamm", "svt")) is None


@pytest.mark.parametrize(
    ("algorithm", "truncation"),
    [("clampshells", None), ("rawsum", None), ("tamm", "svt"), ("identity", "recursive"),
     ("sqm", "none")],
)  # fmt: skip
def test_a_plan_said_two_sided_releases_only_bounded_intervals(algorithm, truncation):
    """Structural, not statistical: where nothing is said, no interval is open, whatever θ."""
    plan = _plan(algorithm, truncation)
    assert open_above(plan) is None
    data = load_column(SMALL, upper=800_000.0)
    rel = release_plan(data, plan)
    assert rel.intervals is not None and bool(rel.intervals.bias_bounded.all())


def test_the_report_never_calls_a_range_open_when_bounded_queries_lie_inside_it():
    """Third audit P3-2: SQM's θ_i interleave open and bounded queries; "72 queries, τ from 850
    to 5,000" read as if the 84 queries of that range were all open."""
    plan = plan_release(ExperimentConfig(workload="Q3", epsilon=0.1, truncations=("fixed",),
                                         truncation_params={"theta": 50_000.0}),
                        algorithm="sqm", truncation="fixed")  # fmt: skip
    rel = release_plan(load_column(SMALL, upper=800_000.0), plan)
    iv = rel.intervals
    tau = rel.thresholds
    bounded = np.ones(tau.size, bool)
    bounded[[2, 4, 5]] = False  # open at the 3rd, 5th and 6th thresholds: the 4th is bounded
    upper = np.where(bounded, np.nan_to_num(iv.upper, nan=1e9), np.nan)
    shown = replace(rel, intervals=replace(iv, upper=upper, bias_bounded=bounded))
    md = report_markdown(shown, dataset="incomes_small.csv")
    (line,) = [x for x in md.splitlines() if x.startswith("**Open above**")]
    assert line.startswith(
        f"**Open above** (3 queries: τ from {tau[2]:,.9g} to {tau[5]:,.9g} except 1 bounded "
        "query in that range; the rows marked no are the open ones): "
    )
    # a run with nothing bounded inside keeps the plain range
    bounded[3] = False
    assert open_span(tau, bounded) == f"every query with τ from {tau[2]:,.9g} to {tau[5]:,.9g}"
    assert open_span(tau, np.arange(tau.size) != 2) == f"τ = {tau[2]:,.9g}"
