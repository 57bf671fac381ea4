"""Totals by band (review 9 P2-5): the difference of two prefix answers, with a 95 % interval
made of each end's 97.5 % interval (a union bound), never of the two 95 % intervals.

The construction is tested exactly here; its coverage over many releases is
tests/stats/test_band_coverage.py (and bench/bands.py through OpenDP's samplers).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.bounds import Linear
from dpsum_core.publish.bands import BAND_HOWTO, band_total, parse_bands
from dpsum_core.publish.intervals import KAPPA, KAPPA_BAND, Intervals, finish
from dpsum_core.publish.release import Release
from dpsum_core.publish.report import report_html, report_markdown
from tests.core.release_files import release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")


def _release(upper_975_last: float = 2_400.0) -> Release:
    """Three queries with known 95 % and 97.5 % ends (published numbers, no engine)."""
    answers = np.array([100.0, 900.0, 2_000.0])
    lower, upper = np.array([40.0, 700.0, 1_700.0]), np.array([160.0, 1_100.0, 2_300.0])
    lower_975 = np.array([30.0, 650.0, 1_600.0])
    upper_975 = np.array([180.0, 1_150.0, upper_975_last])
    bounded = np.isfinite(upper_975)
    return Release(
        thresholds=np.array([10.0, 20.0, 30.0]), private_answers=answers, theta=None,
        budget={"epsilon_theta": 0.0, "epsilon_measure": 1.0, "total": 1.0},
        config={"algorithm": "tamm", "truncation": "none", "workload": "values:10,20,30",
                "upper": 40.0, "bins": 4, "isotonic": True, "epsilon": 1.0, "rho": None,
                "truncation_params": {}},
        versions={}, created="2026-11-27T20:00:00+00:00",
        intervals=Intervals(lower, np.where(bounded, upper, np.nan), bounded, "test",
                            lower_975, upper_975),
    )  # fmt: skip


def test_a_band_is_the_difference_with_the_975_ends_crossed():
    rel = _release()
    band = band_total(rel, 10, 30)
    assert band.total == pytest.approx(1_900.0)
    # [L975(30) − U975(10), U975(30) − L975(10)]: both 97.5 % intervals hold w.p. ≥ 95 %
    assert band.lower == pytest.approx(1_600.0 - 180.0) and band.upper == pytest.approx(2_400.0 - 30.0)
    # not the 95 % ends subtracted alike ([1,660, 2,140]: narrower than either interval) …
    assert (band.lower, band.upper) != pytest.approx((1_700.0 - 40.0, 2_300.0 - 160.0))
    # … nor crossed (only ≥ 90 %: [1,540, 2,260] lies strictly inside the band's interval)
    assert band.lower < 1_700.0 - 160.0 and band.upper > 2_300.0 - 40.0
    near = band_total(rel, 10, 20)  # a lower end below 0 is 0: a band total is ≥ 0
    assert near.lower == pytest.approx(650.0 - 180.0) and near.upper == pytest.approx(1_150.0 - 30.0)
    assert band_total(rel, 20, 30).lower == pytest.approx(1_600.0 - 1_150.0)


def test_from_zero_a_band_is_its_query_with_the_95_interval():
    band = band_total(_release(), 0, 20)
    assert (band.total, band.lower, band.upper) == (900.0, 700.0, 1_100.0)


def test_an_open_high_end_opens_the_band_and_an_open_low_end_lowers_it_to_zero():
    rel = _release(upper_975_last=np.nan)
    assert math.isnan(band_total(rel, 20, 30).upper)
    low_open = _release()
    iv = low_open.intervals
    upper_975 = iv.upper_975.copy()
    upper_975[0] = np.nan
    rel = replace(low_open, intervals=replace(iv, upper_975=upper_975))
    assert band_total(rel, 10, 30).lower == 0.0


def test_finish_makes_each_end_at_975_with_ln40_over_root2_and_holds_the_95_interval():
    m = np.array([50.0, 500.0])
    sd = np.array([10.0, 20.0])
    iv = finish(Linear(m, sd, m, sd), m, "test")
    assert math.isclose(KAPPA_BAND, math.log(40.0) / math.sqrt(2.0))
    assert np.allclose(iv.lower, np.maximum(m - KAPPA * sd, 0.0))
    assert np.allclose(iv.lower_975, np.maximum(m - KAPPA_BAND * sd, 0.0))
    assert np.allclose(iv.upper_975, m + KAPPA_BAND * sd)
    assert np.all(iv.lower_975 <= iv.lower) and np.all(iv.upper_975 >= iv.upper)


@pytest.mark.parametrize(("low", "high", "said"), [
    (15, 20, "band edge 15 is not a threshold"), (20, 10, "low < high"), (20, 20, "low < high"),
])  # fmt: skip
def test_band_edges_must_be_thresholds_in_order(low, high, said):
    with pytest.raises(ParameterError, match=said):
        band_total(_release(), low, high)


def test_bands_are_parsed_or_refused():
    assert parse_bands("15-20, 20-30") == [(15.0, 20.0), (20.0, 30.0)]
    for bad, said in (("abc", "is not LOW-HIGH"), ("20-15", "LOW < HIGH"), ("15-", "LOW-HIGH")):
        with pytest.raises(ParameterError, match=said):
            parse_bands(bad)


def test_every_report_says_how_to_total_a_band():
    markdown = report_markdown(_release(), dataset="data.csv")
    assert BAND_HOWTO in markdown and "Totals by band" not in markdown.split(BAND_HOWTO)[1]
    assert "<strong>Totals by band</strong>" in report_html(markdown)


def _cli(tmp_path: Path, bands: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dpsum_core", "release", "--data", SMALL, "--workload",
         "values:100000,200000,400000", "--epsilon", "1", "--algorithm", "tamm", "--truncation",
         "none", "--bands", bands, "--out", str(tmp_path / "out"), "--ledger",
         str(tmp_path / "ledger.json")],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip


def test_the_cli_lists_the_bands_in_the_report_with_their_intervals(tmp_path):
    done = _cli(tmp_path, "100000-200000,0-400000")
    assert done.returncode == 0, done.stderr
    markdown = release_file(tmp_path / "out", "report.md").read_text()
    table = markdown.split("## Totals by band")[1].split("\n## ")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [r.split(" | ")[:2] for r in rows] == [["| 100,000", "200,000"], ["| 0", "400,000"]]
    # the printed interval brackets the exact one computed from answers.csv's 97.5 % ends
    frame = pd.read_csv(release_file(tmp_path / "out", "answers.csv"))
    lo = max(frame.lower_97_5[1] - frame.upper_97_5[0], 0.0)
    hi = frame.upper_97_5[1] - frame.lower_97_5[0]
    shown = rows[0].split(" | ")[3].strip(" |[]").split(", ")
    assert float(shown[0].replace(",", "")) <= lo + 1e-6 and float(shown[1].replace(",", "")) >= hi - 1e-6
    assert "Totals by band" in release_file(tmp_path / "out", "report.html").read_text()
    record = json.loads(release_file(tmp_path / "out", "release.json").read_text())
    first = record["bands"][0]
    assert (first["low"], first["high"]) == (100_000.0, 200_000.0)
    assert math.isclose(first["lower_95"], lo, rel_tol=1e-8, abs_tol=1e-6)
    assert math.isclose(first["upper_95"], hi, rel_tol=1e-8)
    assert math.isclose(first["total"], frame.private_answer[1] - frame.private_answer[0], rel_tol=1e-8)
    # the report's command for the same configuration again asks for the same bands
    again = markdown.split("**Same configuration again**")[1]
    assert "--bands 100000-200000,0-400000" in again


@pytest.mark.parametrize(("bands", "said"), [
    ("150000-200000", "band edge 150000 is not a threshold"), ("200000-100000", "LOW < HIGH"),
    ("cheap", "is not LOW-HIGH"),
])  # fmt: skip
def test_bad_bands_are_one_line_exit_2_before_anything_is_spent(tmp_path, bands, said):
    done = _cli(tmp_path, bands)
    assert done.returncode == 2 and said in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("dpsum: error:")
    assert not (tmp_path / "ledger.json").exists() and not (tmp_path / "out").exists()
