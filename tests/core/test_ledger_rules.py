"""Issue 27 §7: a version-1 ledger is per row (a release by person is refused, never bound
silently), every entry names its column and unit of privacy, and saving keeps the file's
permission bits. (One binding rule for the app and the CLI: tests/app/test_ledger_binding.py.)"""

from __future__ import annotations

import json
import os
import stat

import pytest

from dpsum_core.cli import main
from dpsum_core.data.content import Content
from dpsum_core.errors import ParameterError
from dpsum_core.publish import ledger

from .test_ledger_holds import _error, _release

V1 = {"format": "dpsum-ledger", "version": 1, "total": 1.0,
      "releases": [{"epsilon": 0.25, "data": "jobs.csv"}]}  # fmt: skip
CONTENT = Content(3, (1, 2))


@pytest.fixture
def jobs(tmp_path):
    data = tmp_path / "jobs.csv"
    data.write_text("pid,income\n" + "".join(f"{i % 50},{1000 + 7 * i}\n" for i in range(400)))
    return data


def test_a_version_1_ledger_refuses_a_release_by_person(tmp_path, jobs, capsys):
    book = tmp_path / "ledger.json"
    book.write_text(json.dumps(V1))
    before = book.read_text()
    assert _release(tmp_path / "a", book, "--id-column", "pid", data=jobs) == 2
    line = _error(capsys.readouterr().err)
    assert "version 1" in line and "one row = one person" in line and "'pid'" in line
    assert book.read_text() == before and not (tmp_path / "a" / "answers.csv").exists()
    # Per row (declared, with the value column: two columns) it binds, as before.
    assert _release(tmp_path / "b", book, "--one-row-per-person", "--column", "income", data=jobs) == 0
    saved = json.loads(book.read_text())
    assert saved["dataset"]["id_column"] is None and len(saved["releases"]) == 2


def test_an_empty_unbound_ledger_binds_to_either_unit():
    assert ledger.Ledger().bound_to(CONTENT, "d", "pid").id_column == "pid"


@pytest.mark.parametrize("id_column", [None, "pid"])
def test_every_entry_names_its_column_and_unit(tmp_path, jobs, id_column):
    book = tmp_path / "ledger.json"
    extra = ["--one-row-per-person"] if id_column is None else ["--id-column", id_column]
    assert _release(tmp_path / "a", book, "--column", "income", *extra, data=jobs) == 0
    (entry,) = json.loads(book.read_text())["releases"]
    assert entry["column"] == "income" and entry["id_column"] == id_column


def test_an_entry_for_another_unit_is_refused():
    bound = ledger.Ledger().bound_to(CONTENT, "d", None)
    with pytest.raises(ParameterError, match="one row = one person"):
        bound.with_release({"epsilon": 0.1, "column": "income", "id_column": "pid"})


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600])
def test_saving_keeps_the_files_permission_bits(tmp_path, mode):
    book = tmp_path / "ledger.json"
    ledger.save(book, ledger.Ledger())
    os.chmod(book, mode)
    assert _release(tmp_path / "a", book) == 0
    assert stat.S_IMODE(os.stat(book).st_mode) == mode
    assert len(json.loads(book.read_text())["releases"]) == 1


def test_a_new_ledger_gets_the_mode_of_any_new_file(tmp_path):
    argv = ["release", "--data", "sample_data/incomes_small.csv", "--workload", "Q3",
            "--algorithm", "identity", "--truncation", "none", "--epsilon", "0.1",
            "--out", str(tmp_path / "a"), "--ledger", str(tmp_path / "new.json")]  # fmt: skip
    umask = os.umask(0o022)
    try:
        assert main(argv) == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o644


def test_hashing_a_large_file_stops_at_a_checkpoint(tmp_path):
    from dpsum_core.checkpoint import checkpoints

    big = tmp_path / "big.csv"
    big.write_bytes(b"income\n" + b"1\n" * (20 << 20))  # 40 MiB: three 16 MiB blocks
    seen = []

    def stop() -> None:
        seen.append(1)
        if len(seen) == 2:
            raise KeyboardInterrupt  # what a caller raises to stop

    with pytest.raises(KeyboardInterrupt), checkpoints(stop):
        ledger.file_fingerprint(big)
    assert seen == [1, 1]
