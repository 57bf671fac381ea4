"""Data page: server datasets under the configured data directory, summarised through DuckDB."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean, errors, new_app, run_explorer
from streamlit.testing.v1 import AppTest

from dpsum_core.data import load_column
from dpsum_core.experiment import run_experiment
from dpsum_core.summary import DataSummary

pytest.importorskip("duckdb")

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "sample_data", "incomes.csv")


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A data directory with a Parquet file and a folder of three Parquet files; beside it (and
    linked into it) a file that must never be listed or read."""
    root = tmp_path / "data"
    (root / "parts").mkdir(parents=True)
    df = pd.read_csv(SAMPLE)
    df.to_parquet(root / "incomes.parquet")
    n = len(df)
    for i in range(3):
        df.iloc[i * n // 3 : (i + 1) * n // 3].to_parquet(root / "parts" / f"p{i}.parquet")
    df.to_parquet(tmp_path / "secret.parquet")
    os.symlink(tmp_path / "secret.parquet", root / "escape.parquet")
    (root / "leaky").mkdir()
    df.iloc[:10].to_parquet(root / "leaky" / "a.parquet")
    os.symlink(tmp_path / "secret.parquet", root / "leaky" / "b.parquet")
    monkeypatch.setenv("DPSUM_DATA_DIR", str(root))
    return root


def data_page() -> AppTest:
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    assert_clean(at)
    return at


def server(at: AppTest, name: str | None = None) -> AppTest:
    at.radio(key="data_source").set_value("server").run()
    if name is not None:
        at.selectbox(key="data_server").select(name).run()
    return at


def report(at: AppTest) -> str:
    return " ".join(w.value for w in [*at.warning, *at.success])


def test_without_configuration_the_option_does_not_appear(monkeypatch) -> None:
    monkeypatch.delenv("DPSUM_DATA_DIR", raising=False)
    at = data_page()
    assert "server" not in at.radio(key="data_source").options
    assert not at.get("selectbox") or "data_server" not in [s.key for s in at.selectbox]


def test_lists_only_what_is_inside_and_shows_the_cleaning_report(data_dir) -> None:
    at = server(data_page())
    assert at.radio(key="data_source").value == "server"
    # escape.parquet links outside: never listed; leaky is listed but refused when opened
    assert at.selectbox(key="data_server").options == ["incomes.parquet", "leaky", "parts"]
    for name in ("incomes.parquet", "parts"):
        server(at, name)
        assert_clean(at)
        assert "45,000 rows read, 45,000 kept." in report(at)
        assert at.selectbox(key="data_column").value == "income"
    assert "Set U for parts" in report(at)  # U is asked for, as for an upload


def test_a_folder_with_a_link_outside_is_refused(data_dir) -> None:
    at = server(data_page(), "leaky")
    assert any("leads outside the data directory" in e for e in errors(at)), errors(at)
    assert not at.exception


@pytest.mark.parametrize("typed", ["../secret.parquet", "parts/../../secret.parquet", "ABS"])
def test_dot_dot_and_absolute_paths_are_refused_with_an_error(data_dir, typed) -> None:
    at = server(data_page(), "incomes.parquet")
    typed = str(data_dir / "incomes.parquet") if typed == "ABS" else typed
    at.text_input(key="data_server_path").input(typed).run()
    assert not at.exception
    assert any("inside the data directory" in e for e in errors(at)), errors(at)
    assert "rows read" not in report(at)


def test_a_typed_relative_path_inside_is_read(data_dir) -> None:
    at = server(data_page(), "incomes.parquet")
    at.text_input(key="data_server_path").input("parts/p0.parquet").run()
    assert_clean(at)
    assert "15,000 rows read" in report(at)


@pytest.mark.parametrize("truncation", ["svt", "recursive"])
def test_explorer_on_a_server_dataset_equals_the_in_memory_run(data_dir, truncation) -> None:
    at = server(data_page(), "parts")
    at.switch_page("app_pages/explorer.py").run()
    at.session_state["truncation"] = truncation
    at.selectbox(key="workload_kind").select("Q3")
    at.number_input(key="trials").set_value(20)
    at.run()
    run_explorer(at)
    assert_clean(at)
    item = at.session_state["_explorer_result"]
    assert isinstance(item["dataset"], DataSummary) and item["sample"] is None
    result = at.session_state["_memo"]["result"][item["key"]]
    assert result.config.truncations == (truncation,)
    memory = run_experiment(
        load_column(data_dir / "incomes.parquet", upper=result.config.upper), result.config
    )
    np.testing.assert_array_equal(result.true_answers, memory.true_answers)
    assert len(result.runs) == len(memory.runs)
    for a, b in zip(result.runs, memory.runs, strict=True):
        assert (a.algorithm, a.truncation) == (b.algorithm, b.truncation)
        np.testing.assert_array_equal(a.answers, b.answers)
    # the summary holds the bin edges (the SVT grid lies on them here); the recursive
    # mechanism's continuous θ below the top-k came by a second pass over the files
    (entry,) = [
        e for e in at.session_state["_memo"]["server"].values() if e.summary is item["dataset"]
    ]
    extended = entry.latest.points.size > entry.summary.points.size
    assert extended == (truncation == "recursive")
    # the link names the dataset inside the data directory, never a path on the server
    assert at.query_params.get("data") == "server:parts"
    assert at.query_params.get("column") == "income"
    assert all(str(data_dir) not in str(v) for v in at.query_params.values())


def test_the_summary_is_kept_per_session(data_dir) -> None:
    first = server(data_page(), "parts")
    other = data_page()
    assert first.session_state["_memo"]["server"]
    memo = other.session_state.get("_memo", {})
    assert not memo.get("server")
