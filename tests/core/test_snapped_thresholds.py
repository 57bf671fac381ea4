"""Explicit thresholds are moved up to bin edges: ``run`` and ``release`` say so on stderr
(which, to what, why) and the report names the thresholds used and the ones requested."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dpsum_core.cli import main
from tests.core.release_files import release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")
VALUES = "values:12345,50000,100000"
MOVED = ("2 thresholds moved up to the next bin edge: 12,345 → 12,800, 50,000 → 50,400 "
         "(thresholds are bin edges, U/bins = 800 apart; more bins give finer edges)")  # fmt: skip


def test_run_says_which_thresholds_moved(tmp_path, capsys):
    assert main(["run", "--data", SMALL, "--workload", VALUES, "--algorithms", "tamm",
                 "--truncation", "svt", "--trials", "2", "--out", str(tmp_path)]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert f"dpsum: note: {MOVED}." in err.splitlines()


def test_release_says_it_and_its_report_names_the_thresholds_used(tmp_path, capsys):
    assert main(["release", "--data", SMALL, "--workload", VALUES, "--epsilon", "0.5",
                 "--algorithm", "tamm", "--truncation", "svt", "--out", str(tmp_path)]) == 0  # fmt: skip
    assert f"dpsum: note: {MOVED}." in capsys.readouterr().err.splitlines()
    answers = pd.read_csv(release_file(tmp_path, "answers.csv"))
    assert list(answers["threshold"]) == [12800.0, 50400.0, 100000.0]
    md = release_file(tmp_path, "report.md").read_text()
    head = md.splitlines()[2]
    assert ("(workload values:12800,50400,100000, thresholds moved to bin edges from the "
            "requested values:12345,50000,100000; one row per person)") in head  # fmt: skip
    (queries,) = [x for x in md.splitlines() if x.startswith("- **Queries**")]
    assert queries == (f"- **Queries**: workload values:12800,50400,100000, sums of the values ≤ "
                       "each threshold τ, after cleaning: values above U count as U (a public "
                       "rule), so the query at τ = U is the total with every value above U "
                       f"counted as U. Requested as {VALUES}: {MOVED}.")  # fmt: skip


def test_nothing_is_said_when_no_threshold_moved(tmp_path, capsys):
    assert main(["release", "--data", SMALL, "--workload", "values:800,1600", "--epsilon", "0.5",
                 "--algorithm", "tamm", "--truncation", "svt", "--out", str(tmp_path)]) == 0  # fmt: skip
    assert "moved" not in capsys.readouterr().err
    md = release_file(tmp_path, "report.md").read_text()
    assert "(workload values:800,1600, one row per person)" in md and "moved" not in md
