"""What ``dpsum release`` says on stderr: every line stating an exact statistic of the data is
marked "not for publication, computed without noise", as the cleaning report is (second
privacy audit, P3-1: the domain warnings, the default column's note and refusals with exact
counts went unmarked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpsum_core import limits
from dpsum_core.cli import main
from dpsum_core.simulate.notice import UNNOISED

RELEASE = ["release", "--algorithm", "identity", "--truncation", "none", "--upper", "1000",
           "--workload", "Q1"]  # fmt: skip
CLEANING = "dpsum: cleaning report (NOT FOR PUBLICATION, computed without noise): "


def _release(tmp_path: Path, capsys, body: str, *extra: str) -> tuple[int, list[str]]:
    path = tmp_path / "data.csv"
    path.write_text(body)
    code = main([*RELEASE, "--data", str(path), "--out", str(tmp_path / "out"), *extra])
    return code, capsys.readouterr().err.splitlines()


def test_every_line_stating_the_data_is_marked(tmp_path, capsys):
    """A file whose only column looks like row numbers (the note says "distinct integers
    1..300 in its first 300 rows"), people with totals above U (the domain warning counts
    them) and a large ε (public: unmarked)."""
    rows = "\n".join(f"p{i % 50},{i}" for i in range(1, 301))
    code, err = _release(tmp_path, capsys, "person,x\n" + rows + "\n",
                         "--id-column", "person", "--epsilon", "20")  # fmt: skip
    assert code == 0
    marked = [line for line in err if line.startswith((f"dpsum: note {UNNOISED}: ",
                                                       f"dpsum: warning {UNNOISED}: ",
                                                       CLEANING))]  # fmt: skip
    public = [line for line in err if line not in marked]
    assert any("distinct integers 1..300 in its first 300 rows" in line for line in marked)
    assert any("9 people (18.0%) had a total" in line for line in marked)
    assert any("300 rows read" in line for line in marked)
    # what is left reads public inputs only: here the large ε, said with the explorer's words
    assert len(public) == 1 and public[0].startswith("dpsum: warning: ε = 20"), public


def test_a_refusal_stating_an_exact_count_is_marked(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ROWS", 100)  # the audit's way to keep the file small
    code, err = _release(tmp_path, capsys, "x\n" + "\n".join(map(str, range(300))) + "\n")
    assert code == 2 and len(err) == 1
    assert err[0].startswith(f"dpsum: error {UNNOISED}: ") and "300 rows" in err[0], err


def test_a_duckdb_refusal_stating_counts_is_marked(tmp_path, capsys):
    code, err = _release(tmp_path, capsys, 'x\n"1,5"\n2\n3\n', "--engine", "duckdb")
    assert code == 2 and len(err) == 1
    assert err[0].startswith(f"dpsum: error {UNNOISED}: column 'x' of data.csv has 1 number "
                             "written with commas"), err  # fmt: skip


@pytest.mark.parametrize("extra", [("--seed", "1"), ("--epsilon", "-1")])
def test_a_refusal_of_public_inputs_is_not_marked(tmp_path, capsys, extra):
    code, err = _release(tmp_path, capsys, "x\n1\n2\n", *extra)
    assert code == 2 and len(err) == 1 and err[0].startswith("dpsum: error: "), err


def test_an_identifier_with_few_values_is_cautioned(tmp_path, capsys):
    """`--id-column school` with 4 schools for 300 rows (at most √300 ≈ 17 distinct values is a
    category): a marked warning naming the counts (review 9: the app cautioned, the CLI did not);
    50 people in 300 rows get none."""
    rows = "\n".join(f"s{i % 4},p{i % 50},{i}" for i in range(1, 301))
    code, err = _release(tmp_path, capsys, "school,person,x\n" + rows + "\n",
                         "--id-column", "school", "--column", "x", "--epsilon", "1")  # fmt: skip
    assert code == 0
    said = [line for line in err if "may not identify people" in line]
    assert len(said) == 1 and said[0].startswith(f"dpsum: warning {UNNOISED}: --id-column 'school'")
    assert "4 distinct values for 300 rows" in said[0] and "√rows ≈ 17" in said[0]
    code, err = _release(tmp_path, capsys, "school,person,x\n" + rows + "\n",
                         "--id-column", "person", "--column", "x", "--epsilon", "1")  # fmt: skip
    assert code == 0 and not any("may not identify people" in line for line in err)
