"""Band totals that cannot be misquoted (review 11: P1-1, P2-1, P2-3, P2-4, P2-5, P2-9).

- P1-1: release.json gave a numeric ``total`` for a band whose low edge was gated (the (0, high]
  estimate, 76 % too high in the review): it is ``null`` there, the interval and flags kept.
- P2-1: the bands are in a CSV of their own, ``<stem>_bands.csv``, listed with the other files.
- P2-3: an en or em dash reads as the hyphen; ``--bands -5-15`` says what is wrong.
- P2-4, P2-5: the † note under the band table says one thing to do (quote the interval) and only
  what holds for the bands marked: no "above the band" for a band ending at U; a band wholly
  above RawSum's θ* (or at or above ClampShells') reads "not estimated", never a bare 0.
- P2-9: the band section says why a band's bound can exceed its containing answer's.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpsum_core.cli import main
from dpsum_core.errors import ParameterError
from dpsum_core.publish.above_theta import MARK
from dpsum_core.publish.bands import band_lines, band_records, band_total, parse_bands
from dpsum_core.publish.intervals import Intervals
from dpsum_core.publish.release import Release
from dpsum_core.publish.report import bands_csv, write_release
from tests.core.release_files import release_endings, release_file


def _release(*, algorithm: str = "tamm", theta=None, gated=None) -> Release:
    """τ = 10, 20, 30, 40 = U with known ends (published numbers, no engine)."""
    answers = np.array([0.0, 900.0, 2_000.0, 2_600.0])
    lower, upper = np.array([0.0, 700.0, 1_700.0, 2_200.0]), np.array([160.0, 1_100.0, 2_300.0, 3_000.0])
    bounded = np.ones(4, bool)
    return Release(
        thresholds=np.array([10.0, 20.0, 30.0, 40.0]), private_answers=answers, theta=theta,
        budget={"epsilon_theta": 0.0, "epsilon_measure": 0.5, "total": 0.5},
        config={"algorithm": algorithm, "truncation": "none", "workload": "values:10,20,30,40",
                "upper": 40.0, "bins": 4, "isotonic": True, "epsilon": 0.5, "rho": None,
                "truncation_params": {}},
        versions={}, created="2026-11-27T20:00:00+00:00",
        intervals=Intervals(lower, upper, bounded, "test", np.maximum(lower - 50, 0), upper + 50),
        gated=None if gated is None else np.array(gated, bool),
    )  # fmt: skip


def _rows(lines: list[str]) -> dict[tuple[str, str], str]:
    rows = [r.split(" | ") for r in lines if r.startswith("| ") and r[2].isdigit()]
    return {(r[0].removeprefix("| "), r[1]): r[2] for r in rows}


def _note(lines: list[str]) -> str:
    (note,) = [line for line in lines if line.startswith(f"{MARK} ")]
    return note


# ---- P1-1 and P2-1 ---------------------------------------------------------------------------
def test_a_gated_low_edge_gives_no_total_in_release_json_or_bands_csv():
    rel = _release(gated=[True, False, False, False])
    gated, clear = band_records(rel, [(10, 20), (20, 30)])
    assert gated["total"] is None and gated["low_gated"] is True  # old: 900, the (0, 20] estimate
    assert gated["lower_95"] == pytest.approx(650.0 - 210.0) and gated["upper_95"] == pytest.approx(1_150.0)
    assert clear["total"] == pytest.approx(1_100.0)
    assert bands_csv(rel, [(10.0, 20.0), (20.0, 30.0)]).splitlines() == [
        "low,high,total,lower_95,upper_95,low_gated,high_gated,above_theta",
        "10.0,20.0,,440.0,1150.0,true,false,false",  # no total: only the interval is the band's
        "20.0,30.0,1100.0,500.0,1700.0,false,false,false",
    ]


def test_a_release_with_bands_writes_bands_csv_beside_answers_csv(tmp_path):
    rel = _release(gated=[True, False, False, False])
    written = write_release(rel, tmp_path, dataset="pay.csv", bands=[(10, 20), (20, 30)])
    assert release_endings(tmp_path) == ["answers.csv", "bands.csv", "release.json", "report.html",
                                         "report.md"]  # fmt: skip
    assert release_file(tmp_path, "bands.csv") in written  # the CLI's success line lists `written`
    frame = pd.read_csv(release_file(tmp_path, "bands.csv"))
    record = json.loads(release_file(tmp_path, "release.json").read_text())
    assert frame.lower_95.tolist() == pytest.approx([b["lower_95"] for b in record["bands"]])
    assert np.isnan(frame.total[0]) and record["bands"][0]["total"] is None
    other = tmp_path / "none"
    other.mkdir()
    write_release(rel, other, dataset="pay.csv")
    assert "bands.csv" not in release_endings(other)  # without bands: the four files as before


# ---- P2-3 --------------------------------------------------------------------------------------
def test_an_en_or_em_dash_reads_as_the_hyphen_and_a_minus_is_said():
    assert parse_bands("15–20, 20—30") == [(15.0, 20.0), (20.0, 30.0)]
    with pytest.raises(ParameterError, match="starts with a minus: band edges are never negative"):
        parse_bands("-5-15")


def test_the_cli_says_what_is_wrong_with_a_band_list_starting_with_a_minus(capsys):
    assert main(["release", "--data", "sample:incomes_small", "--epsilon", "1", "--bands",
                 "-5-15", "--out", "never"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dpsum: error: --bands: '-5-15' starts with")
    assert "expected one argument" not in err and "never negative" in err


# ---- P2-4, P2-5 --------------------------------------------------------------------------------
def test_clampshells_bands_across_at_u_and_wholly_above_each_get_a_true_note():
    rel = _release(algorithm="clampshells", theta=20.0)  # † at τ ≥ 20
    across = band_lines(rel, [(10, 30)])
    assert _rows(across)[("10", "30")] == f"2,000 {MARK}"
    note = _note(across)
    assert note.startswith(f"{MARK} Quote the interval of a band marked {MARK}, not its total")
    assert "those above the band too" in note and "too low or too high" in note
    to_u = _note(band_lines(rel, [(10, 40)]))
    assert "above the band" not in to_u and "biased low" in to_u  # nothing lies above U
    wholly = band_lines(rel, [(20, 30)])
    assert _rows(wholly)[("20", "30")] == f"not estimated {MARK}"  # old: "1,100 †"
    assert "ClampShells counts every value above θ* = 20 at θ* itself" in _note(wholly)
    assert band_records(rel, [(20, 30)])[0]["total"] is None
    assert band_total(rel, 10, 30).quotable  # across: marked, but an estimate


def test_rawsum_bands_wholly_above_its_theta_are_not_estimated_and_say_why():
    rel = _release(algorithm="rawsum", theta=20.0)  # † at τ > 20
    lines = band_lines(rel, [(10, 30), (30, 40)])
    rows = _rows(lines)
    assert rows[("10", "30")] == f"2,000 {MARK}"
    assert rows[("30", "40")] == f"not estimated {MARK}"  # old: a bare "600 †" (or 0 in real data)
    note = _note(lines)
    assert "RawSum left out the values above θ* = 20, so nothing in the band was measured" in note
    assert "biased low" in note and "The interval still holds the band's true total" in note
    assert "above the band" not in note
    record = band_records(rel, [(10, 30), (30, 40)])
    assert record[0]["total"] == pytest.approx(2_000.0) and record[1]["total"] is None
    assert record[1]["above_theta"] is True and record[1]["upper_95"] is not None


def test_a_clamping_band_above_theta_is_still_an_estimate_marked_biased_low():
    rel = _release(algorithm="tamm", theta=20.0)
    lines = band_lines(rel, [(30, 40)])
    assert _rows(lines)[("30", "40")] == f"600 {MARK}"  # each value above θ counted as θ: measured
    note = _note(lines)
    assert "counts each value above θ as θ, so its total is biased low" in note
    assert "not estimated" not in note and "above the band" not in note
    assert band_records(rel, [(30, 40)])[0]["total"] == pytest.approx(600.0)


# ---- P2-9 --------------------------------------------------------------------------------------
def test_the_band_section_says_why_a_band_may_reach_above_its_answer():
    text = " ".join(band_lines(_release(), [(10, 20)]))
    assert "its upper end may exceed that of the answer that contains it: this is expected" in text
