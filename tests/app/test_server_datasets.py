"""Data page: server datasets under the configured data directory, summarised through DuckDB."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from app_helpers import (
    array,
    assert_clean,
    charts,
    errors,
    kept,
    new_app,
    run_explorer,
    title,
)  # fmt: skip
from streamlit.testing.v1 import AppTest

from dpsum_core.data.reading import load_column
from dpsum_core.data.summary import DataSummary
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from dpsum_ui import share
from dpsum_ui.page_state import ExplorerState, ReleaseState

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
    item = kept(at, ExplorerState).shown
    assert isinstance(item.data, DataSummary) and item.source.sample is None
    result = at.session_state["_memo"]["result"][item.key]
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
        e for e in at.session_state["_memo"]["server"].values() if e.summary is item.data
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


# --------------------------------------------------------------------------------------------
# Links and settings files naming a server dataset
# --------------------------------------------------------------------------------------------
LINKED = ExperimentConfig(workload="Q3", trials=20, seed=7, upper=1_000_000.0, bins=500)


def server_link(name: str, column: str = "income") -> dict[str, str]:
    return share.config_to_query(LINKED, sample=None, server=name, column=column)


def nothing_read(at: AppTest) -> bool:
    """No server dataset was summarised, nor its columns listed, in this session."""
    memo = at.session_state["_memo"] if "_memo" in at.session_state else {}  # noqa: SIM401
    return not memo.get("server") and not memo.get("server_columns")


def selected(at: AppTest) -> tuple:
    """(source, listed server dataset, typed path, column) chosen in the session."""
    keys = ("data_source", "data_server", "data_server_path", "data_column")
    return tuple(at.session_state[k] if k in at.session_state else None for k in keys)  # noqa: SIM401


def test_a_link_reopens_the_server_dataset_and_reproduces_the_figures(data_dir) -> None:
    at = server(data_page(), "parts")
    at.number_input(key="domain_upper").set_value(1_000_000.0).run()
    at.switch_page("app_pages/explorer.py").run()
    at.selectbox(key="workload_kind").select("Q3")
    at.number_input(key="trials").set_value(20)
    at.run()
    run_explorer(at)
    assert_clean(at)
    link = {k: at.query_params[k] for k in at.query_params}
    assert link["data"] == "server:parts" and link["column"] == "income"
    assert any("data=server:parts&" in c.value for c in at.code)  # readable in the panel

    opened = new_app(**link)
    opened.run()  # opening the link selects the dataset and runs once, as a sample link does
    assert_clean(opened)
    assert any("run once with the same seed" in i.value for i in opened.info)
    assert selected(opened) == ("server", "parts", "", "income")
    ss = opened.session_state
    assert ss["domain_upper"] == 1_000_000.0  # U from the link, not asked for again
    assert "_domain_pending" not in ss
    assert isinstance(kept(opened, ExplorerState).shown.data, DataSummary)
    before, after = charts(at)[0], charts(opened)[0]
    assert title(after) == title(before)
    for a, b in zip(before["data"], after["data"], strict=True):
        np.testing.assert_array_equal(array(a["y"]), array(b["y"]))


def test_a_link_to_a_path_inside_a_folder_types_it(data_dir) -> None:
    opened = new_app(**server_link("parts/p1.parquet"))
    opened.run()
    assert_clean(opened)
    source, _, typed, column = selected(opened)
    assert (source, typed, column) == ("server", "parts/p1.parquet", "income")
    ss = opened.session_state
    item = kept(opened, ExplorerState).shown
    assert item.data.report.rows_kept == 15_000
    result = ss["_memo"]["result"][item.key]
    assert result.config == LINKED


def test_a_link_whose_column_the_dataset_lacks_runs_nothing(data_dir) -> None:
    opened = new_app(**server_link("incomes.parquet", column="wealth"))
    opened.run()
    assert not opened.exception
    assert any("column “wealth” is not a numeric column" in e for e in errors(opened))
    assert kept(opened, ExplorerState).shown is None


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("../secret.parquet", "choose a dataset inside the data directory"),
        ("parts/../../secret.parquet", "choose a dataset inside the data directory"),
        ("ABS", "choose a dataset inside the data directory"),
        ("escape.parquet", "leads outside the data directory"),  # a symlink to secret.parquet
        ("leaky", "leads outside the data directory"),  # a folder holding such a link
        ("missing.parquet", "does not exist in the data directory"),
    ],
)
def test_a_link_to_a_refused_server_dataset_keeps_the_sample(data_dir, name, why) -> None:
    name = str(data_dir / "incomes.parquet") if name == "ABS" else name
    opened = new_app(**server_link(name))
    opened.run()
    assert not opened.exception and not opened.error
    (warning,) = [w.value for w in opened.warning]
    assert "names a server dataset that cannot be opened here" in warning and why in warning
    assert "nothing was run" in warning and "Data page" in warning
    ss = opened.session_state
    assert ss["data_source"] == "sample" and kept(opened, ExplorerState).shown is None
    assert ss["seed"] == 7 and ss["domain_upper"] == 1_000_000.0  # the settings are restored
    assert nothing_read(opened)
    assert "incomes.csv" in " ".join(m.value for m in opened.sidebar.markdown)


def test_a_link_to_a_server_dataset_without_a_data_directory_says_so(monkeypatch) -> None:
    monkeypatch.delenv("DPSUM_DATA_DIR", raising=False)
    opened = new_app(**server_link("incomes.parquet"))
    opened.run()
    assert not opened.exception and not opened.error
    (warning,) = [w.value for w in opened.warning]
    assert "no server data directory" in warning and "on the server it was made on" in warning
    assert opened.session_state["data_source"] == "sample"
    assert opened.session_state["seed"] == 7
    assert kept(opened, ExplorerState).shown is None


def test_a_link_to_a_server_dataset_without_a_name_shows_the_defaults(data_dir) -> None:
    opened = new_app(data="server:", workload="Q3", seed="7")
    opened.run()
    assert not opened.exception
    (error,) = errors(opened)
    assert "the server dataset in the link has no name" in error
    assert opened.session_state["seed"] == 0 and nothing_read(opened)


def test_a_settings_file_selects_the_server_dataset_or_says_why_not(data_dir) -> None:
    at = new_app()
    at.run()
    good = share.settings_to_json(LINKED, sample=None, server="parts", column="income")
    upload_settings(at, good)
    assert_clean(at)
    assert any("Settings restored from settings.json" in s.value for s in at.success)
    assert selected(at) == ("server", "parts", "", "income")
    run_explorer(at)
    assert_clean(at)
    assert isinstance(kept(at, ExplorerState).shown.data, DataSummary)

    fresh = new_app()
    fresh.run()
    upload_settings(fresh, share.settings_to_json(LINKED, sample=None, server="../secret.parquet"))
    assert not fresh.exception and not fresh.error
    assert any("This settings file names a server dataset" in w.value for w in fresh.warning)
    assert fresh.session_state["data_source"] == "sample" and nothing_read(fresh)


def upload_settings(at: AppTest, text: str) -> AppTest:
    upload = ("settings.json", text.encode(), "application/json")
    at.file_uploader(key="share_config_upload").set_value(upload)
    return at.run()


@pytest.mark.parametrize("page", ["app_pages/single_query.py", "app_pages/decide.py"])
def test_links_of_other_pages_name_the_server_dataset(data_dir, page) -> None:
    at = server(data_page(), "incomes.parquet")
    at.switch_page(page).run()
    assert_clean(at)
    assert at.query_params["data"] == "server:incomes.parquet"
    assert at.query_params["column"] == "income"


def test_the_compare_link_names_the_server_dataset(data_dir) -> None:
    at = server(data_page(), "incomes.parquet")
    at.switch_page("app_pages/explorer.py").run()
    at.selectbox(key="workload_kind").select("Q3")
    at.number_input(key="trials").set_value(10)
    at.run()
    at.switch_page("app_pages/compare.py").run()
    at.button(key="compare_run").click().run()
    assert_clean(at)
    assert at.query_params["data"] == "server:incomes.parquet"
    assert at.query_params["column"] == "income"


def test_a_crafted_name_in_a_link_is_shown_as_typed_not_rendered(data_dir) -> None:
    """Markdown in a link (an image would make the victim's browser fetch another site) is
    escaped in the notice that echoes it."""
    crafted = "![x](https://example.invalid/p.png)"
    opened = new_app(**server_link(crafted))
    opened.run()
    assert not opened.exception
    (warning,) = [w.value for w in opened.warning]
    assert crafted not in warning and "](" not in warning.replace("\\](", "")
    assert r"!\[x\](https://example.invalid/p.png)" in warning
    assert nothing_read(opened)


# ----------------------------------------------------------------------------------------------
# A release on a server dataset (issue 16 §1)
# ----------------------------------------------------------------------------------------------
def test_a_release_on_a_server_dataset_fetches_second_passes_first_and_draws_once(
    data_dir, monkeypatch
) -> None:
    """SQM with the per-query recursive θ needs order statistics and counts the DuckDB summary
    lacks: the Release page's expected error and the release fetch them by second passes over
    the files, the release draws each quantity once (the recursive crossover, then the
    measurement: 2 OpenDP draws), and the published files name DuckDB."""
    import json

    from dpsum_core.data.backends.duckdb import DuckDBBackend
    from dpsum_core.noise import OpenDPNoise
    from dpsum_ui import release as release_files

    events: list[str] = []  # "pass" and "draw", in the order they happen
    extend, add = DuckDBBackend.extend, OpenDPNoise.add_laplace
    def logged_extend(self, summary, missing):
        events.append("pass")
        return extend(self, summary, missing)

    def logged_add(self, values, scale):
        events.append("draw")
        return add(self, values, scale)

    monkeypatch.setattr(DuckDBBackend, "extend", logged_extend)
    monkeypatch.setattr(OpenDPNoise, "add_laplace", logged_add)
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3").run()
    at.switch_page("app_pages/data.py").run()
    server(at, "parts")
    at.button(key="domain_keep").click().run()  # U = 800 000 is public, not the data's
    at.switch_page("app_pages/release.py").run()
    at.selectbox(key="release_algorithm").set_value("sqm").run()
    at.selectbox(key="release_truncation").set_value("recursive").run()
    assert_clean(at)
    assert events and set(events) == {"pass"}, events  # the estimate: passes, no draw
    before = len(events)
    at.number_input(key="release_total").set_value(1.0).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    assert any(s.value.startswith("Released: ε =") for s in at.success), [
        s.value for s in at.success
    ]
    released = events[before:]
    # θ (the noisy crossover) and the measurement, each drawn once. The release starts from the
    # summary its estimate extended; what the noisy θ still needs (whether anything does depends
    # on the draw) is fetched after the θ draw and before the measurement, never after it.
    assert released.count("draw") == 2, released
    assert released[-1] == "draw", released
    record = json.loads(release_files.record_json(kept(at, ReleaseState).last, "server"))
    assert record["engine"] == "duckdb"
