"""`dpsum run`'s accuracy table, marked as a simulation's figures computed from the data without
noise (fix6's loose end, audit6 P3-3's sequel): its errors are measured against the true
answers. The mark is on stdout, in the cleaning line's style, so that a refusal stays one line
on stderr."""

from __future__ import annotations

from dpsum_core.cli import main
from dpsum_core.simulate.notice import ACCURACY, CLEANING
from dpsum_core.simulate.results import headline_definition

SMALL = "sample_data/incomes_small.csv"


def test_the_accuracy_table_is_marked_not_for_publication(tmp_path, capsys):
    """Old: "Median relative error: for each query …" above the table, with no mark."""
    assert main(["run", "--data", SMALL, "--workload", "Q3", "--trials", "2", "--algorithms",
                 "tamm,sqm", "--truncation", "none", "--no-png", "--out", str(tmp_path)]) == 0  # fmt: skip
    said = capsys.readouterr()
    lines = said.out.splitlines()
    (header,) = [i for i, line in enumerate(lines) if line.startswith("Algorithm ")]
    above = lines[header - 1]  # the line right above the table says what it is
    assert above.startswith(
        "simulation accuracy (NOT FOR PUBLICATION, computed from the data without noise): "
    ), above
    assert above.startswith(f"{ACCURACY}: ") and above.endswith(headline_definition())
    assert "true answers" in above
    assert [line for line in lines if "NOT FOR PUBLICATION, computed" in line] == [
        lines[0], above  # the cleaning line and this one, in the same words
    ]
    assert lines[0].startswith(f"{CLEANING}: ")
    assert "NOT FOR PUBLICATION" not in said.err  # stdout's marks; stderr holds warnings only


def test_a_refusal_is_still_one_line_on_stderr_and_prints_no_table(tmp_path, capsys):
    code = main(["run", "--data", SMALL, "--workload", "every:5000", "--trials", "2",
                 "--out", str(tmp_path / "out")])  # fmt: skip
    said = capsys.readouterr()
    assert code == 2
    assert len(said.err.splitlines()) == 1 and said.err.startswith("dpsum: error"), said.err
    assert ACCURACY not in said.out
