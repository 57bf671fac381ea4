"""Issue 24 §3: a ledger is bound to the people, not to a file's bytes. The same cleaned rows as
CSV, as Parquet (rows shuffled, numbers spelled otherwise) or as a folder of parts meet the same
ledger on any engine; other rows are refused; a ledger bound to bytes by an older version still
binds (checked against those bytes) and is upgraded, never given a fresh budget."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpsum_core.cli import main
from dpsum_core.publish import ledger

from .test_ledger_holds import _error


def _release(out, book, data, *extra, engine="memory", epsilon="0.1"):
    # per row unless the caller names the identifier: the pid column would otherwise be refused
    # as codes of people read as one row per person
    unit = () if "--id-column" in extra else ("--one-row-per-person",)
    return main(
        ["release", "--data", str(data), "--engine", engine, "--column", "income",
         "--workload", "Q3", "--algorithm", "identity", "--truncation", "none",
         "--upper", "50000", "--epsilon", epsilon, "--out", str(out), "--ledger", str(book),
         *unit, *extra]
    )  # fmt: skip


@pytest.fixture
def people(tmp_path):
    """One table (several rows per person, cents, a loss) as CSV, as Parquet with its rows
    shuffled and its numbers as doubles, and as a folder of three CSV parts spelled otherwise."""
    rng = np.random.default_rng(11)
    frame = pd.DataFrame({
        "pid": rng.integers(0, 150, 600),
        "income": np.round(rng.lognormal(8, 1.5, 600), 2),
    })  # fmt: skip
    frame.loc[3, "income"] = -250.5
    csv, parquet, parts = tmp_path / "people.csv", tmp_path / "people.parquet", tmp_path / "parts"
    frame.to_csv(csv, index=False)
    shuffled = frame.sample(frac=1.0, random_state=2).reset_index(drop=True)
    shuffled.assign(pid=shuffled.pid.astype("float64")).to_parquet(parquet)
    parts.mkdir()
    for i in range(3):
        chunk = shuffled.iloc[200 * i : 200 * (i + 1)]
        chunk.assign(income=[f"{x:.17e}" for x in chunk.income]).to_csv(
            parts / f"part-{i}.csv", index=False
        )
    return {"csv": csv, "parquet": parquet, "parts": parts, "frame": frame}


@pytest.mark.parametrize("unit", [[], ["--id-column", "pid"]])
def test_the_same_rows_in_any_file_meet_the_same_ledger(tmp_path, people, unit, capsys):
    book = tmp_path / "ledger.json"
    budget = ["--budget", "0.25", *unit]
    assert _release(tmp_path / "a", book, people["csv"], *budget) == 0
    assert _release(tmp_path / "b", book, people["parquet"], *budget) == 0
    assert ledger.load(book).spent == pytest.approx(0.2)
    capsys.readouterr()
    # the third read of the same rows is charged against the same total: over it, refused
    assert _release(tmp_path / "c", book, people["parts"], *budget, engine="duckdb") == 2
    assert "over the total" in _error(capsys.readouterr().err)
    assert _release(tmp_path / "d", book, people["parts"], *budget, engine="duckdb",
                    epsilon="0.05") == 0  # fmt: skip
    saved = json.loads(book.read_text())
    assert len(saved["releases"]) == 3 and saved["dataset"]["name"] == "people.csv"


def test_other_rows_are_another_dataset(tmp_path, people, capsys):
    book = tmp_path / "ledger.json"
    assert _release(tmp_path / "a", book, people["csv"]) == 0
    before = book.read_text()
    other = people["frame"].copy()
    other.loc[10, "income"] += 0.01  # one person's cent
    changed = tmp_path / "people_fixed.csv"
    other.to_csv(changed, index=False)
    capsys.readouterr()
    assert _release(tmp_path / "b", book, changed) == 2
    line = _error(capsys.readouterr().err)
    assert "belongs to the dataset 'people.csv'" in line and "people_fixed.csv" in line
    # each named with its column, and the rule said (review P2-4)
    assert "'people.csv', column 'income', not to 'people_fixed.csv', column 'income'" in line
    assert "per content of those rows (PRIVACY.md)" in line
    assert book.read_text() == before and not (tmp_path / "b").exists()


def _old(book, fingerprint: str, name: str) -> str:
    """A version-3 ledger bound to a file's bytes, with one release of ε = 0.1 recorded."""
    text = json.dumps({
        "format": "dpsum-ledger", "version": 3, "total": 0.25, "spent": 0.1,
        "dataset": {"name": name, "fingerprint": fingerprint, "id_column": None},
        "total_changes": [], "releases": [{"epsilon": 0.1, "column": "income", "id_column": None}],
    })  # fmt: skip
    book.write_text(text)
    return text


def test_an_old_ledger_bound_to_bytes_binds_and_is_upgraded(tmp_path, people, capsys):
    book = tmp_path / "ledger.json"
    old = ledger.file_fingerprint(people["csv"])
    _old(book, old, "people.csv")
    assert _release(tmp_path / "a", book, people["csv"]) == 0
    saved = json.loads(book.read_text())
    assert saved["version"] == ledger.VERSION == 4
    assert saved["dataset"]["fingerprint"].startswith("content:sha256:")
    assert saved["dataset"]["upgraded_from"] == old
    assert len(saved["releases"]) == 2 and saved["total"] == 0.25  # the spend carried over
    # upgraded, it meets the same rows in another file, and keeps counting
    capsys.readouterr()
    assert _release(tmp_path / "b", book, people["parquet"]) == 2
    assert "over the total" in _error(capsys.readouterr().err)
    assert _release(tmp_path / "c", book, people["parquet"], epsilon="0.05") == 0
    assert ledger.load(book).spent == pytest.approx(0.25)


def test_an_old_ledger_of_other_bytes_is_refused_untouched(tmp_path, people, capsys):
    book = tmp_path / "ledger.json"
    before = _old(book, "sha256:" + "0" * 64, "people.csv")
    # the same rows in another file: the old binding cannot tell, so it refuses (never a
    # fresh budget), and says so
    assert _release(tmp_path / "a", book, people["parquet"]) == 2
    line = _error(capsys.readouterr().err)
    assert "belongs to the dataset 'people.csv'" in line and "older version" in line
    assert book.read_text() == before


def test_a_damaged_content_binding_is_refused_as_damaged(tmp_path, people):
    book = tmp_path / "ledger.json"
    assert _release(tmp_path / "a", book, people["csv"]) == 0
    saved = json.loads(book.read_text())
    del saved["dataset"]["salt"]
    with pytest.raises(ledger.DataError, match="salt"):
        ledger.Ledger.from_json(json.dumps(saved))
