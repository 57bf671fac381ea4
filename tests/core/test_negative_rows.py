"""By person, a negative row value is added into its person's total, and the cleaning report
says so (custodian review P3): as by row it says "1 negative value set to 0", in every engine,
on the operator's terminal only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsum_core.cli import main
from dpsum_core.data.backends import open_backend
from dpsum_core.data.cleaning import clean
from dpsum_core.data.domain import Domain
from dpsum_core.data.summary import CutPoints

U = 100.0


def _rows() -> pd.DataFrame:
    """Person a: 30 and −12.5 (total 17.5, kept); person b: −40 and 10 (total −30, set to 0);
    person c: 50 alone; a row of d not a number."""
    return pd.DataFrame({"pid": ["a", "a", "b", "b", "c", "d"],
                         "wage": ["30", "-12.5", "-40", "10", "50", "n/a"]})  # fmt: skip


def test_by_person_the_negative_rows_are_counted_and_said():
    rows = _rows()
    values, report = clean(rows["wage"], upper=U, ids=rows["pid"], id_column="pid")
    assert sorted(values.tolist()) == pytest.approx([0.0, 17.5, 50.0], abs=1e-12)
    assert report.negative_rows == 2 and report.clipped_below_zero == 1
    lines = report.lines()
    # old: nothing said of the rows −12.5 and −40, only "1 negative total set to 0."
    assert "2 negative values added into their people's totals." in lines
    assert "1 negative total set to 0." in lines
    one = rows[rows["pid"] != "b"]
    _, single = clean(one["wage"], upper=U, ids=one["pid"], id_column="pid")
    assert "1 negative value added into its person's total." in single.lines()
    assert single.changed and not any("set to 0" in line for line in single.lines())


def test_by_row_a_negative_value_is_set_to_0_as_before():
    _, report = clean(_rows()["wage"], upper=U)
    assert report.negative_rows == 0 and report.clipped_below_zero == 2
    assert "2 negative values set to 0." in report.lines()
    assert not any("added into" in line for line in report.lines())


def test_memory_and_duckdb_count_the_negative_rows_alike(tmp_path):
    path = tmp_path / "rows.csv"
    _rows().to_csv(path, index=False)
    cuts = CutPoints(Domain(U, 10))
    mem, duck = (
        open_backend(path, upper=U, column="wage", id_column="pid", engine=engine).summarize(cuts)
        for engine in ("memory", "duckdb")
    )
    assert mem.report.negative_rows == duck.report.negative_rows == 2
    assert mem.report.lines() == duck.report.lines()


def test_the_count_is_on_stderr_only_never_in_the_release(tmp_path: Path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"pid": np.repeat(np.arange(200), 2),
                          "wage": np.round(rng.uniform(1, 40, 400), 2)})  # fmt: skip
    frame.loc[7, "wage"] = -12.5
    path, out = tmp_path / "jobs.csv", tmp_path / "out"
    frame.to_csv(path, index=False)
    code = main(["release", "--data", str(path), "--column", "wage", "--id-column", "pid",
                 "--upper", "100", "--bins", "10", "--workload", "Q1", "--algorithm", "tamm",
                 "--truncation", "svt", "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0
    (report,) = [line for line in printed.err.splitlines() if "NOT FOR PUBLICATION" in line]
    assert "1 negative value added into its person's total." in report
    published = " ".join(p.read_text() for p in out.iterdir())
    assert "negative" not in printed.out + published
