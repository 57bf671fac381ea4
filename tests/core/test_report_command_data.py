"""The release report's "Same configuration again" command names its data so that it runs: a
sample as ``sample:NAME`` (from any folder), a file as the user typed it (from the same
folder), an upload by its file name with words saying where ``--data`` must point."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from dpsum_core.cli import main
from dpsum_core.data.reading import load_column
from dpsum_core.publish.command import DataArgument, Placeholder, data_argument
from dpsum_core.publish.release import release
from dpsum_core.publish.report import report_markdown
from dpsum_core.simulate.config import ExperimentConfig
from tests.core.release_files import release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "sample_data" / "incomes_small.csv"


def _command(md: str) -> list[str]:
    """The report's command without ``dpsum release`` and ``--out … --ledger …``."""
    found = re.search(r"^ {6}(dpsum release .*)$", md, re.M)
    assert found is not None
    return found.group(1).split()[2:-4]


def test_a_file_outside_the_current_folder_is_named_as_typed(tmp_path, monkeypatch):
    (tmp_path / "x").mkdir()
    shutil.copy(SMALL, tmp_path / "x" / "weekly.csv")
    monkeypatch.chdir(tmp_path)
    assert main(["release", "--data", "x/weekly.csv", "--workload", "Q3", "--epsilon", "0.5",
                 "--algorithm", "tamm", "--truncation", "svt", "--out", "first"]) == 0  # fmt: skip
    md = release_file(tmp_path / "first", "report.md").read_text()
    again = _command(md)
    assert again[again.index("--data") + 1] == "x/weekly.csv"  # was weekly.csv: not found
    assert md.startswith("# dpsum release: weekly.csv")  # the name shown is the file's
    assert main(["release", *again, "--out", "second"]) == 0  # from the same folder


@pytest.mark.parametrize("unit", [["--one-row-per-person"], ["--id-column", "employee_id"]])
def test_the_command_of_a_file_of_several_columns_carries_its_unit_and_runs(
    tmp_path, monkeypatch, unit
):
    (tmp_path / "wages.csv").write_text(
        "employee_id,hourly_wage\n" + "".join(f"{i % 90},{7 + i % 40}\n" for i in range(300))
    )
    monkeypatch.chdir(tmp_path)
    assert main(["release", "--data", "wages.csv", "--column", "hourly_wage", *unit,
                 "--upper", "200", "--bins", "200", "--workload", "Q1", "--epsilon", "0.5",
                 "--algorithm", "tamm", "--truncation", "svt", "--out", "first"]) == 0  # fmt: skip
    md = release_file(tmp_path / "first", "report.md").read_text()
    again = _command(md)
    assert " ".join(unit) in " ".join(again)  # --one-row-per-person was left out: exit 2
    assert main(["release", *again, "--out", "second"]) == 0
    assert md.endswith(" --out NEW_FOLDER --ledger LEDGER\n")  # one final newline


def test_data_argument_names_each_source():
    assert data_argument("sample", "incomes.csv") == DataArgument("sample:incomes.csv")
    assert data_argument("file", str(SMALL)) == DataArgument("sample:incomes_small.csv")
    assert data_argument("file", "sample:incomes.csv") == DataArgument("sample:incomes.csv")
    assert data_argument("file", "../d/w.csv") == DataArgument("../d/w.csv")
    # an absolute path: the file's name and a note; a published report shows no folder names
    absolute = data_argument("file", "/home/alice/payroll/w.csv")
    assert absolute.value == "w.csv" and "--data must point to w.csv" in absolute.note
    assert data_argument("server", "pay/2025") == DataArgument(
        Placeholder("<data directory>/", "pay/2025"))
    upload = data_argument("upload", "mine.csv")
    assert upload.value == "mine.csv" and "--data must point to the uploaded file" in upload.note


def test_an_uploads_report_says_where_data_must_point():
    data = load_column(str(SMALL), upper=800_000.0)
    rel = release(data, ExperimentConfig(workload="Q2", epsilon=0.5), algorithm="tamm",
                  truncation="svt")  # fmt: skip
    md = report_markdown(rel, dataset="mine.csv", data=data_argument("upload", "mine.csv"))
    (line,) = [x for x in md.splitlines() if "Same configuration again" in x]
    assert "--data must point to the uploaded file, mine.csv" in line
    assert _command(md)[:2] == ["--data", "mine.csv"]
