"""Server-side datasets: nothing outside the configured data directory is listed or read."""

from __future__ import annotations

import os

import pytest

from dpsum_core.errors import DataError
from dpsum_ui.server_data import data_dir, list_datasets, resolve


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "data"
    (root / "census").mkdir(parents=True)
    (root / "a.parquet").write_bytes(b"PAR1")
    (tmp_path / "secret.csv").write_text("x\n1\n")
    os.symlink(tmp_path / "secret.csv", root / "escape.csv")
    os.symlink(root / "a.parquet", root / "inside.parquet")
    return root


def test_inside_paths_resolve(tree):
    assert resolve(tree, "a.parquet") == tree / "a.parquet"
    assert resolve(tree, "census") == tree / "census"
    assert resolve(tree, "inside.parquet") == tree / "a.parquet"


@pytest.mark.parametrize("name", ["../secret.csv", "census/../../secret.csv", "escape.csv", ""])
def test_dot_dot_and_symlinks_outside_are_refused(tree, name):
    with pytest.raises(DataError):
        resolve(tree, name)


def test_absolute_paths_are_refused_even_inside(tree):
    with pytest.raises(DataError):
        resolve(tree, str(tree.parent / "secret.csv"))
    with pytest.raises(DataError):
        resolve(tree, str(tree / "a.parquet"))


def test_listing_shows_only_what_is_inside(tree):
    assert list_datasets(tree) == ["a.parquet", "census", "inside.parquet"]


def test_without_configuration_the_option_is_off(monkeypatch, tree):
    monkeypatch.delenv("DPSUM_DATA_DIR", raising=False)
    assert data_dir() is None
    monkeypatch.setenv("DPSUM_DATA_DIR", str(tree))
    assert data_dir() == tree.resolve()
