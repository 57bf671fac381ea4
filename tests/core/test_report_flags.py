"""What the report says about bands, θ and ε (review 10: P1-2, P2-3, P2-5, P3).

- P1-2: a band whose low edge's answer the onset gate published as 0 subtracts that 0, so its
  "total" estimates (0, high] (+11 to +35 % in the review): it is flagged (``low_gated``) and
  shown as "≤ upper end", never as a total; a band whose high edge is gated likewise.
- P2-3: an answer (or band) that the released θ moves is marked (†, answers.csv
  ``above_theta``, release.json ``above_theta_thresholds`` and the bands' ``above_theta``),
  with what each algorithm does there: counted as θ (the paper's five), left out (RawSum),
  gathered at θ* from θ* up (ClampShells).
- P2-5: the report says what its ε means, in the app's words (one function).
- P3: the generic band how-to only without bands; the band intervals hold each on its own;
  duplicate bands and two units of privacy refused.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.errors import ParameterError
from dpsum_core.publish.above_theta import MARK, above_theta, theta_words
from dpsum_core.publish.bands import BAND_HOWTO, band_lines, band_records, band_total, parse_bands
from dpsum_core.publish.intervals import Intervals
from dpsum_core.publish.release import Release, _release_with, plan_release
from dpsum_core.publish.report import answers_csv, record_json, report_markdown
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.text import NOT_TOLD_FROM_ZERO, epsilon_sentence
from tests.core.release_files import release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")


def _release(*, algorithm: str = "tamm", theta=None, gated=None, epsilon: float = 0.5) -> Release:
    """Four queries with known ends (published numbers, no engine): τ = 10, 20, 30, 40 = U."""
    answers = np.array([0.0, 900.0, 2_000.0, 2_600.0])
    lower, upper = np.array([0.0, 700.0, 1_700.0, 2_200.0]), np.array([160.0, 1_100.0, 2_300.0, 3_000.0])
    lower_975, upper_975 = lower - np.array([0, 50, 100, 100]), upper + np.array([20, 50, 100, 100])
    bounded = np.ones(4, bool)
    return Release(
        thresholds=np.array([10.0, 20.0, 30.0, 40.0]), private_answers=answers, theta=theta,
        budget={"epsilon_theta": 0.0, "epsilon_measure": epsilon, "total": epsilon},
        config={"algorithm": algorithm, "truncation": "none", "workload": "values:10,20,30,40",
                "upper": 40.0, "bins": 4, "isotonic": True, "epsilon": epsilon, "rho": None,
                "truncation_params": {}},
        versions={}, created="2026-11-27T20:00:00+00:00",
        intervals=Intervals(lower, upper, bounded, "test", np.maximum(lower_975, 0), upper_975),
        gated=None if gated is None else np.array(gated, bool),
    )  # fmt: skip


class _Seeded:
    """numpy's Laplace on a fixed seed (a test stand-in for OpenDP's sampler)."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(1)

    def add_laplace(self, values, scale):
        values = np.asarray(values, float)
        return values + self.rng.laplace(0.0, 1.0, values.shape) * np.asarray(scale, float)


def _band_rows(markdown: str) -> dict[tuple[str, str], str]:
    """The band table's rows: (from, to) → the band total cell."""
    table = markdown.split("## Totals by band")[1].split("\n## ")[0]
    rows = [r.split(" | ") for r in table.splitlines() if r.startswith("| ") and r[2].isdigit()]
    return {(r[0].removeprefix("| "), r[1]): r[2] for r in rows}


# ---- P1-2: a gated edge ------------------------------------------------------------------------
def test_a_band_above_a_gated_low_edge_is_flagged_and_shows_no_total():
    rel = _release(gated=[True, False, False, False])
    band = band_total(rel, 10, 20)
    # the difference subtracts the gated 0: 900 is the estimate of (0, 20], not of (10, 20]
    assert band.total == pytest.approx(900.0)
    assert band.low_gated and not band.high_gated and not band.quotable
    assert (band.lower, band.upper) == pytest.approx((650.0 - 180.0, 1_150.0 - 0.0))  # as before
    assert band_total(rel, 20, 30).quotable and band_total(rel, 0, 20).quotable
    cell = _band_rows(report_markdown(rel, dataset="d.csv", bands=[(10, 20), (20, 30)]))
    said = cell[("10", "20")]
    assert said.startswith("≤ 1,150 (") and "the answer at 10 is not distinguishable from 0" in said
    assert "(0, 10]" in said and "900" not in said  # the biased number is never printed
    assert cell[("20", "30")] == "1,100"  # a band above the onset: its total, as before
    record = band_records(rel, [(10, 20), (20, 30)])
    assert [(r["low_gated"], r["high_gated"]) for r in record] == [(True, False), (False, False)]
    # review 11 P1-1: no machine file quotes the (0, 20] estimate as the band's total either
    assert record[0]["total"] is None and record[0]["lower_95"] == pytest.approx(650.0 - 180.0)
    assert record[1]["total"] == pytest.approx(1_100.0)


def test_a_band_with_a_gated_high_edge_reads_as_a_gated_answer():
    rel = _release(gated=[True, True, False, False])
    rel = replace(rel, private_answers=np.array([0.0, 0.0, 2_000.0, 2_600.0]))
    band = band_total(rel, 10, 20)
    assert band.low_gated and band.high_gated
    lines = band_lines(rel, [(10, 20)])
    (row,) = [r for r in lines if r.startswith("| 10 |")]
    assert f"| ≤ 1,150 ({NOT_TOLD_FROM_ZERO}) |" in row
    assert not any("low_gated = true" in line for line in lines)  # the low-edge note is not needed


def test_a_clampshells_release_flags_the_band_above_its_gated_onset():
    """The engine's own gate (ClampShells, small ε): the first band above the onset is flagged."""
    rng = np.random.default_rng(3)
    values = np.clip(np.round(rng.lognormal(np.log(22), 0.5, 3_000), 2), 7.25, 300)
    data = make_dataset(pd.Series(values), upper=200.0)
    plan = plan_release(ExperimentConfig(workload="Q1", epsilon=0.035, upper=200.0, bins=200),
                        algorithm="clampshells", truncation=None)  # fmt: skip

    rel = _release_with(data, plan, _Seeded(), None)
    k = int(rel.gated_answers.sum())
    assert 1 <= k < rel.thresholds.size - 2  # this seed's onset
    t = rel.thresholds
    low, high = float(t[k - 1]), float(t[k + 1])
    band = band_total(rel, low, high)
    assert band.low_gated and not band.high_gated
    assert json.loads(record_json(rel, bands=[(low, high)]))["bands"][0]["low_gated"] is True
    assert _band_rows(report_markdown(rel, dataset="w.csv", bands=[(low, high)]))[
        (f"{low:,.9g}", f"{high:,.9g}")].startswith("≤ ")


# ---- P2-3: rows the released θ moves -------------------------------------------------------------
def test_which_rows_theta_moves_depends_on_how_the_algorithm_treats_values_above_it():
    tau = np.array([10.0, 20.0, 30.0, 40.0])
    assert above_theta(tau, 20.0, algorithm="tamm", upper=40).tolist() == [False, False, True, True]
    assert above_theta(tau, 20.0, algorithm="rawsum", upper=40).tolist() == [False, False, True, True]
    # ClampShells answers every τ ≥ θ* with the clamped total: the values above θ* are in it
    assert above_theta(tau, 20.0, algorithm="clampshells", upper=40).tolist() == [False, True, True, True]
    assert not above_theta(tau, 40.0, algorithm="clampshells", upper=40).any()  # θ* = U: no clamp
    assert not above_theta(tau, None, algorithm="tamm", upper=40).any()
    assert above_theta(tau, [15.0, 25.0, 25.0, 45.0], algorithm="sqm", upper=40).tolist() == [
        False, False, True, False]  # fmt: skip
    # θ is published to 9 digits: a τ on θ's bin edge is not above it
    assert not above_theta(np.array([5120.0]), 5119.99999999, algorithm="tamm", upper=1e4).any()


def test_clampshells_answers_from_theta_up_hold_every_value_above_it_too_low_or_too_high():
    """The words of ClampShells' note: at ε = 100 (almost no noise), with θ* = 160 from a public
    cap, the answers at 200 and 500 take in the 50 values at 700 as 160 each (too high), those
    at 700 and 1,000 lack 50 × 540 (too low); below θ* they are the sums up to τ."""
    values = np.concatenate([np.random.default_rng(0).uniform(0, 100, 2_000), np.full(50, 700.0)])
    data = make_dataset(pd.Series(values), upper=1_000.0)
    config = ExperimentConfig(workload="every:10", epsilon=100, upper=1_000.0, bins=100,
                              algorithms=("clampshells",))  # fmt: skip
    plan = plan_release(config, algorithm="clampshells", truncation=None, public_cap=150.0)
    rel = _release_with(data, plan, _Seeded(), None)
    assert rel.theta == 160.0
    truth = np.array([values[values <= t].sum() for t in rel.thresholds])
    error = (rel.private_answers - truth) / truth
    moved = rel.above_theta
    assert moved.tolist() == (rel.thresholds >= 160).tolist()
    assert np.all(np.abs(error[~moved]) < 0.01)
    assert error[rel.thresholds == 200][0] > 0.05 and error[rel.thresholds == 1_000][0] < -0.15


def test_answers_csv_and_release_json_flag_the_rows_above_theta():
    rel = _release(theta=20.0)
    frame = pd.read_csv(io.StringIO(answers_csv(rel)))
    assert frame["above_theta"].tolist() == [False, False, True, True]
    record = json.loads(record_json(rel, bands=[(10, 20), (20, 30), (0, 40)]))
    assert record["above_theta_thresholds"] == [30.0, 40.0]
    assert [b["above_theta"] for b in record["bands"]] == [False, True, True]
    assert json.loads(record_json(_release()))["above_theta_thresholds"] == []


@pytest.mark.parametrize(("algorithm", "words"), [
    ("tamm", "values above θ are counted as θ, so the answer is biased low"),
    ("rawsum", "RawSum leaves out the values above θ*"),
    ("clampshells", "in these answers, those above τ too, so the answer is not the sum up to τ: "
                    "it may be too low or too high"),
])  # fmt: skip
def test_the_report_marks_the_rows_theta_moves_and_says_how(algorithm, words):
    rel = _release(algorithm=algorithm, theta=20.0)
    md = report_markdown(rel, dataset="d.csv", bands=[(10, 20), (20, 30)])
    rows = [r for r in md.split("## Answers")[1].split("## Totals")[0].splitlines() if r.startswith("| ") and r[2].isdigit()]
    marked = [r.split(" | ")[0].removeprefix("| ") for r in rows if f" {MARK} |" in r]
    assert marked == (["20", "30", "40"] if algorithm == "clampshells" else ["30", "40"])
    assert words in md and "answers.csv flags these rows with above_theta = true" in md
    bands = _band_rows(md)
    assert bands[("20", "30")].endswith(f" {MARK}")
    assert bands[("10", "20")].endswith(MARK) == (algorithm == "clampshells")
    assert "release.json and bands.csv flag these bands with above_theta = true" in md
    unmarked = report_markdown(_release(algorithm=algorithm), dataset="d.csv", bands=[(10, 20)])
    assert MARK not in unmarked  # no θ, no mark and no note


def test_the_release_pages_table_marks_the_rows_theta_moves_only_when_there_are_some():
    """As the report marks them (review 11 P2-6: the app had a "Moved by θ" column, cut off
    at 1280 px, and no † note)."""
    from dpsum_ui.release_words import answers_note, answers_table

    table = answers_table(_release(theta=20.0))
    assert [a.endswith(f" {MARK}") for a in table["Private answer"]] == [False, False, True, True]
    assert "Moved by θ" not in table
    note = answers_note(_release(theta=20.0))
    assert note is not None and note.startswith(MARK)
    assert MARK not in "".join(answers_table(_release())["Private answer"])
    assert answers_note(_release()) is None


def test_the_released_theta_is_said_right_for_each_algorithm():
    assert theta_words(20.0, 40.0, algorithm="tamm") == "20 (values above it counted as θ)"
    assert "left out" in theta_words(20.0, 40.0, algorithm="rawsum")
    assert "in every answer at τ ≥ θ*" in theta_words(20.0, 40.0, algorithm="clampshells")
    md = report_markdown(_release(algorithm="rawsum", theta=20.0), dataset="d.csv")
    assert "**Released θ**: 20 (values above it left out" in md


# ---- P2-5: ε in plain words --------------------------------------------------------------------
def test_the_report_says_what_its_epsilon_means_in_the_apps_words():
    from dpsum_ui.present import epsilon_sentence as apps

    md = report_markdown(_release(epsilon=0.5), dataset="d.csv")
    head = md.split("## Answers")[0]
    said = epsilon_sentence(0.5)
    assert said in head and "changes the chance of any result by at most a factor e^ε ≈ 1.65" in said
    assert apps(0.5) == said  # one function for the app and the report


# ---- P3 -----------------------------------------------------------------------------------------
def test_the_generic_band_paragraph_only_without_bands_and_band_intervals_each_on_its_own():
    without = report_markdown(_release(), dataset="d.csv")
    assert BAND_HOWTO in without and "## Totals by band" not in without
    with_bands = report_markdown(_release(), dataset="d.csv", bands=[(10, 30), (20, 30)])
    assert BAND_HOWTO not in with_bands and "e.g. the values in (15, 20]" not in with_bands
    section = with_bands.split("## Totals by band")[1].split("\n## ")[0]
    assert "Each band's interval holds on its own: about 1 in 20 may miss" in section
    assert "not promised to hold all at once" in section


def test_duplicate_bands_are_refused_and_overlapping_ones_kept():
    with pytest.raises(ParameterError, match="10-20 is listed twice"):
        parse_bands("10-20,20-30,10-20")
    assert parse_bands("0-500,0-1000,500-1000") == [(0, 500), (0, 1000), (500, 1000)]


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dpsum_core", *args, "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT, check=False)  # fmt: skip


def test_the_cli_refuses_a_band_listed_twice_before_anything_is_spent(tmp_path):
    done = _cli(tmp_path, "release", "--data", SMALL, "--workload", "values:100000,200000",
                "--epsilon", "1", "--algorithm", "tamm", "--truncation", "none", "--bands",
                "0-100000,0-100000", "--ledger", str(tmp_path / "ledger.json"))  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "--bands: 0-100000 is listed twice" in done.stderr
    assert not (tmp_path / "ledger.json").exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", [
    ("release", "--algorithm", "tamm", "--truncation", "none"), ("run", "--trials", "2"),
    ("reproduce",),
])  # fmt: skip
def test_two_units_of_privacy_are_refused_in_one_line_before_reading(tmp_path, command):
    missing = str(tmp_path / "no_such_file.csv")  # read first, it would be refused for that
    done = _cli(tmp_path, *command, "--data", missing, "--id-column", "person_id",
                "--one-row-per-person")  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("dpsum: error: --id-column person_id and --one-row-per-person")
    assert not (tmp_path / "out").exists()


def test_a_cli_release_above_a_fixed_theta_flags_its_rows_in_every_file(tmp_path):
    done = _cli(tmp_path, "release", "--data", SMALL, "--workload", "values:100000,200000,400000",
                "--epsilon", "1", "--algorithm", "tamm", "--truncation", "fixed", "--theta",
                "150000", "--bands", "0-100000,100000-200000")  # fmt: skip
    assert done.returncode == 0, done.stderr
    frame = pd.read_csv(release_file(tmp_path / "out", "answers.csv"))
    assert frame["above_theta"].tolist() == [False, True, True]
    record = json.loads(release_file(tmp_path / "out", "release.json").read_text())
    assert record["above_theta_thresholds"] == [200_000.0, 400_000.0]
    assert [b["above_theta"] for b in record["bands"]] == [False, True]
    for ending in ("report.md", "report.html"):
        text = release_file(tmp_path / "out", ending).read_text()
        assert "τ above the released θ = 150,000: values above θ are counted as θ" in text
        assert epsilon_sentence(1.0) in text
