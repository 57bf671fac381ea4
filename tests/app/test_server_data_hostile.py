"""Issue 27 §8: a data directory holding a symlink loop, a FIFO, thousands of files or a file
swapped for a link between two passes: skipped with a notice, refused, capped, kept per
directory modification time, re-checked before every pass."""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean
from test_server_datasets import SAMPLE, data_page, server

from dpsum_core import limits
from dpsum_core.data.summary import MissingStatistics
from dpsum_core.errors import DataError
from dpsum_ui import server_data

pytest.importorskip("duckdb")


def _age(*paths) -> None:
    """Date directories 10 s back: what depends on them may then be kept (not 'racy')."""
    past = time.time() - 10
    for p in paths:
        os.utime(p, (past, past), follow_symlinks=False)


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    pd.read_csv(SAMPLE).iloc[:500].to_parquet(root / "incomes.parquet")
    os.symlink("loop", root / "loop")  # loop → loop
    os.symlink(root / "b", root / "a")
    os.symlink(root / "a", root / "b")  # a → b → a
    os.mkfifo(root / "x.csv")  # opening it would block forever
    (tmp_path / "secret.csv").write_text("income\n1\n")
    monkeypatch.setenv("DPSUM_DATA_DIR", str(root))
    return root


def test_loops_and_fifos_are_skipped_with_a_notice_not_a_crash(root):
    offered = server_data.listing(root)
    assert offered.names == ("incomes.parquet",)
    notes = " ".join(offered.skipped)
    assert notes.count("symbolic link loop") == 3 and "not a regular file" in notes
    for name in ("loop", "a", "loop/x.csv"):
        with pytest.raises(DataError, match="symbolic link loop"):
            server_data.dataset_files(root, name)
    with pytest.raises(DataError, match="not a regular file"):
        server_data.dataset_files(root, "x.csv")


def test_the_data_page_lists_the_good_dataset_and_says_what_it_skipped(root):
    at = server(data_page(), "incomes.parquet")
    assert_clean(at)
    assert at.selectbox(key="data_server").options == ["incomes.parquet"]
    (note,) = [c.value for c in at.caption if "Not offered" in c.value]
    assert "symbolic link loop" in note and "x.csv" in note
    at.text_input(key="data_server_path").input("loop").run()
    assert not at.exception and any("symbolic link loop" in e.value for e in at.error)


def test_a_fifo_inside_a_folder_is_not_read(root):
    (root / "parts").mkdir()
    pd.DataFrame({"income": [1.0, 2.0]}).to_csv(root / "parts" / "a.csv", index=False)
    os.mkfifo(root / "parts" / "b.csv")
    assert server_data.dataset_files(root, "parts") == [root / "parts" / "a.csv"]


def test_a_folder_of_too_many_files_is_refused(root, monkeypatch):
    monkeypatch.setattr(limits, "MAX_DATASET_FILES", 30)
    (root / "many").mkdir()
    for i in range(31):
        (root / "many" / f"p{i}.csv").write_text("income\n1\n")
    with pytest.raises(DataError, match="holds 31 data files, more than the 30"):
        server_data.dataset_files(root, "many")


def test_the_listing_is_capped_and_says_how_many_more(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_LISTED_DATASETS", 5)
    for i in range(8):
        (tmp_path / f"d{i}.csv").write_text("income\n1\n")
    offered = server_data.listing(tmp_path)
    assert offered.names == tuple(f"d{i}.csv" for i in range(5)) and offered.more == 3


@pytest.fixture
def resolves(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = server_data.resolve

    def counted(root, name):
        seen.append(name)
        return real(root, name)

    monkeypatch.setattr(server_data, "resolve", counted)
    return seen


def test_thousands_of_files_are_resolved_once_until_a_directory_changes(tmp_path, resolves):
    root = tmp_path / "data"
    (root / "many").mkdir(parents=True)
    for i in range(2000):
        (root / "many" / f"p{i:04d}.csv").write_text("income\n1\n")
        (root / f"f{i:04d}.csv").write_text("income\n1\n")
    (tmp_path / "secret.csv").write_text("income\n1\n")
    _age(root, root / "many")
    first = server_data.dataset_files(root, "many")
    assert len(resolves) == 2001 and len(first) == 2000
    offered = server_data.listing(root)
    assert len(offered.names) == limits.MAX_LISTED_DATASETS and offered.more == 1001
    resolves.clear()
    assert server_data.dataset_files(root, "many") == first
    assert server_data.listing(root) == offered
    assert resolves == ["many"]  # the name only: no file resolved again, the listing kept
    # A file swapped for a link leading outside changes its directory: checked again, refused.
    os.remove(root / "many" / "p0007.csv")
    os.symlink(tmp_path / "secret.csv", root / "many" / "p0007.csv")
    with pytest.raises(DataError, match="leads outside"):
        server_data.dataset_files(root, "many")


def test_a_directory_changed_within_two_seconds_is_not_kept(tmp_path, resolves):
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "a.csv").write_text("income\n1\n")
    server_data.dataset_files(tmp_path, "ds")
    server_data.dataset_files(tmp_path, "ds")
    assert resolves.count("ds/a.csv") == 2


def test_a_file_swapped_for_a_link_before_a_second_pass_is_not_read(root, tmp_path):
    (root / "ds").mkdir()
    pd.DataFrame({"income": np.arange(50.0)}).to_csv(root / "ds" / "a.csv", index=False)
    server = server_data.files_signature(root, "ds")

    class Backend:
        passes = 0

        def extend(self, summary, missing):
            Backend.passes += 1
            return summary

    entry = server_data.ServerEntry(Backend(), None, server, "ds")
    missing = MissingStatistics(np.array([1.0]), np.array([], dtype=int))
    entry.extend(None, missing)
    assert Backend.passes == 1
    os.remove(root / "ds" / "a.csv")
    os.symlink(tmp_path / "secret.csv", root / "ds" / "a.csv")
    with pytest.raises(DataError, match="leads outside"):
        entry.extend(None, missing)
    os.remove(root / "ds" / "a.csv")
    pd.DataFrame({"income": np.arange(60.0)}).to_csv(root / "ds" / "a.csv", index=False)
    with pytest.raises(DataError, match="changed since it was summarised"):
        entry.extend(None, missing)
    assert Backend.passes == 1
