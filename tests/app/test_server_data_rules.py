"""Server data (issue 17): control characters in names, the checked file list is what DuckDB
reads, and hidden or non-data files follow a folder's scan rules when opened by name."""

from __future__ import annotations

import os

import pandas as pd
import pytest
from app_helpers import new_app
from test_server_datasets import SAMPLE, nothing_read, server_link

from dpsum_core.data.domain import Domain
from dpsum_core.data.summary import CutPoints
from dpsum_core.errors import DataError
from dpsum_ui import datasets, server_data

pytest.importorskip("duckdb")


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = tmp_path / "data"
    (root / "parts").mkdir(parents=True)
    df = pd.read_csv(SAMPLE)
    df.to_parquet(root / "incomes.parquet")
    for i in range(2):
        df.iloc[i * 100 : (i + 1) * 100].to_parquet(root / "parts" / f"p{i}.parquet")
    df.to_parquet(tmp_path / "secret.parquet")
    df.to_parquet(root / ".hidden.parquet")
    df.to_parquet(root / "parts" / "_SUCCESS")
    (root / "notes.json").write_text("{}")
    monkeypatch.setenv("DPSUM_DATA_DIR", str(root))
    return root


@pytest.mark.parametrize("name", ["inc\x00omes.parquet", "incomes.parquet\n", "\x1b[31mparts"])
def test_a_name_with_a_control_character_is_refused_clearly(root, name):
    with pytest.raises(DataError, match="control character"):
        server_data.dataset_files(root, name)


def test_a_link_with_a_nul_byte_in_the_name_says_why_and_reads_nothing(root):
    opened = new_app(**server_link("inc\x00omes.parquet"))
    opened.run()
    assert not opened.exception and not opened.error
    (warning,) = [w.value for w in opened.warning]
    assert "cannot be opened here" in warning and "control character" in warning
    assert opened.session_state["data_source"] == "sample" and nothing_read(opened)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        (".hidden.parquet", "is hidden"),
        ("parts/_SUCCESS", "is hidden"),
        ("notes.json", "is not a data file"),
    ],
)
def test_hidden_and_non_data_files_follow_the_folder_scan_rules(root, name, why):
    with pytest.raises(DataError, match=why):
        server_data.dataset_files(root, name)
    assert server_data.list_datasets(root) == ["incomes.parquet", "parts"]


def test_duckdb_reads_the_checked_file_list_not_the_folder(root, tmp_path):
    """A file added to the folder after its files were listed is not read; a link leading
    outside, added after an earlier check, is caught by the check made just before reading."""
    from dpsum_core.data.backends.duckdb import DuckDBBackend

    files = server_data.dataset_files(root, "parts")
    pd.read_csv(SAMPLE).to_parquet(root / "parts" / "p9.parquet")  # added after the check
    backend = DuckDBBackend(files, upper=1e6, column="income")
    assert backend.files == files
    assert backend.summarize(CutPoints(Domain(1e6, 10))).records == 200
    os.symlink(tmp_path / "secret.parquet", root / "parts" / "p8.parquet")
    with pytest.raises(DataError, match="leads outside"):
        datasets._duckdb(root, "parts", upper=1e6, column="income")
