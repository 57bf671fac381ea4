"""Links as the README writes them (researcher's review P2-2: ``data`` and ``column`` alone were
ignored without a word) and links with several bad values (P3-7: every one is said, in one
notice)."""

from __future__ import annotations

import os
import re

import pandas as pd
import pytest
from app_helpers import assert_clean, errors, kept, new_app, open_link
from streamlit.testing.v1 import AppTest

from dpsum_ui import share
from dpsum_ui.page_state import ExplorerState
from dpsum_ui.state import SAMPLE_NAMES

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def readme_links() -> list[str]:
    """Every link query the README documents (``data=…`` in backquotes)."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    return sorted(set(re.findall(r"`/?\??(data=[^`\s]*)`", text)))


def query(link: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in link.split("&"))


def notices(at: AppTest) -> list[str]:
    return [str(e.value) for e in (*at.toast, *at.info, *at.warning, *at.error)]


def test_the_readme_documents_the_three_link_forms() -> None:
    links = readme_links()
    assert "data=incomes.csv&column=income" in links, links
    assert "data=server:census/2020&column=income" in links, links
    assert "data=upload" in links, links


@pytest.mark.parametrize("link", readme_links())
def test_every_readme_link_carries_its_data(link: str) -> None:
    shared = share.query_to_settings(query(link), samples=SAMPLE_NAMES)
    assert shared is not None, link  # was None: "no link"
    params = query(link)
    if params["data"] == "upload":
        assert shared.uploaded
    elif params["data"].startswith("server:"):
        assert shared.server == params["data"].removeprefix("server:")
    else:
        assert shared.sample == params["data"]
    assert shared.column == params.get("column")
    assert shared.config is None  # no settings in the link: the current ones stay


@pytest.mark.parametrize("sample", ["incomes_small.csv", "incomes.csv"])
def test_a_sample_link_with_only_data_and_column_opens_it_and_runs_once(sample: str) -> None:
    at = new_app(data=sample, column="income")
    at.run()
    assert_clean(at)
    assert at.session_state["data_sample"] == sample
    assert at.session_state["data_column"] == "income"
    (notice,) = notices(at)
    assert f"{sample.replace('_', chr(92) + '_')} was opened from the link" in notice, notice
    assert "default settings" in notice and "run once" in notice, notice
    shown = kept(at, ExplorerState).shown
    assert shown is not None and shown.data.name == sample
    assert at.select_slider(key="epsilon").value == 0.01  # the defaults, untouched


def test_a_link_with_a_column_but_no_data_says_what_is_missing() -> None:
    at = new_app(column="income")
    at.run()
    assert not at.exception
    (error,) = errors(at)
    assert "column='income' in the link names no dataset" in error, error
    assert "data=incomes.csv&column=income" in error


def test_a_server_link_without_a_data_directory_says_so(monkeypatch) -> None:
    monkeypatch.delenv("DPSUM_DATA_DIR", raising=False)
    at = new_app(data="server:census/2020", column="income")
    at.run()
    assert not at.exception and not at.error
    (warning,) = [w.value for w in at.warning]
    assert "names a server dataset that cannot be opened here" in warning, warning
    assert "no server data directory" in warning
    assert "The sample data is shown and nothing was run" in warning, warning
    assert at.session_state["data_source"] == "sample"


def test_a_server_link_with_only_data_and_column_opens_it(tmp_path, monkeypatch) -> None:
    pytest.importorskip("duckdb")
    root = tmp_path / "data"
    (root / "census" / "2020").mkdir(parents=True)  # a folder of Parquet files
    pd.read_csv(os.path.join(ROOT, "sample_data", "incomes_small.csv")).to_parquet(
        root / "census" / "2020" / "part0.parquet"
    )
    monkeypatch.setenv("DPSUM_DATA_DIR", str(root))
    at = new_app(data="server:census/2020", column="income")
    at.run()
    assert_clean(at)
    assert at.session_state["data_source"] == "server"
    assert at.session_state["data_column"] == "income"
    assert any("census/2020 was opened from the link" in n for n in notices(at)), notices(at)


def test_an_upload_link_with_only_the_marker_asks_for_the_file() -> None:
    at = new_app(data="upload")
    at.run()
    assert not at.exception
    (warning,) = [w.value for w in at.warning]
    assert "Links never carry uploaded data, so the data was not restored" in warning, warning
    assert "upload the same file on the Data page" in warning
    assert at.session_state["data_source"] == "upload"


# --------------------------------------------------------------------------------------------
# Every bad value of a link, in one notice
# --------------------------------------------------------------------------------------------
def test_every_bad_value_of_a_link_is_named() -> None:
    params = {"epsilon": "abc", "theta": "-5", "trials": "0", "data": "nope.csv"}
    with pytest.raises(share.LinkProblems) as caught:
        share.query_to_settings(params, samples=SAMPLE_NAMES)
    problems = caught.value.problems
    assert len(problems) == 4, problems
    for name in ("epsilon='abc'", "theta must be > 0", "trials must be", "'nope.csv'"):
        assert any(name in p for p in problems), (name, problems)


def test_a_value_right_with_the_links_other_values_is_not_blamed() -> None:
    """A threshold above the default U is fine with the link's own U; only ε is wrong."""
    params = {"upper": "2000000", "workload": "values:1500000", "epsilon": "-1"}
    with pytest.raises(share.LinkProblems) as caught:
        share.query_to_settings(params, samples=SAMPLE_NAMES)
    (problem,) = caught.value.problems
    assert "epsilon must be" in problem, problem


def test_single_query_link_with_a_bad_tau_and_theta_names_both() -> None:
    at = open_link("app_pages/single_query.py", {"tau": "abc", "theta": "-5"})
    assert not at.exception
    (error,) = errors(at)
    assert "tau='abc' in the link is not a number" in error, error
    assert "theta must be \\> 0, got -5" in error, error
    assert error.count("theta") == 1  # a value both a setting and a view is said once
    assert "The default settings are shown instead" in error
