"""Reproducibility: config JSON round trip, the shareable link (query string), bad inputs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from app_helpers import array, assert_clean, charts, errors, lesson, new_app, run_explorer, title
from streamlit.testing.v1 import AppTest

from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.recommend import recommend
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.truncation.params import TruncationParams
from dpsum_ui import share
from dpsum_ui.pages import by_url_path
from dpsum_ui.state import SAMPLE_NAMES

CUSTOM = ExperimentConfig(
    workload="every:250",
    epsilon=0.05,
    rho=0.25,
    truncations=("recursive",),
    algorithms=("identity", "timm", "tamm"),
    trials=20,
    delta=50.0,
    seed=42,
    truncation_params=TruncationParams(rm_theta0=40_000.0, rm_mu=0.4),
)


def flat(params: dict) -> dict[str, str]:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in params.items()}


def upload_config(at: AppTest, content: bytes, name: str = "config.json") -> AppTest:
    at.file_uploader(key="share_config_upload").set_value((name, content, "application/json"))
    return at.run()


# ----------------------------------------------------------------------------------------------
# Pure helpers
# ----------------------------------------------------------------------------------------------
def test_query_string_round_trip_is_exact() -> None:
    params = share.config_to_query(CUSTOM, sample="incomes_small.csv", column="income", iso=False)
    assert params["data"] == "incomes_small.csv" and params["iso"] == "0"
    assert "svt_r" not in params  # defaults are left out
    back = share.query_to_settings(params, samples=SAMPLE_NAMES)
    assert back is not None
    assert back.config == CUSTOM
    assert (back.sample, back.column, back.iso, back.uploaded) == (
        "incomes_small.csv",
        "income",
        False,
        False,
    )


def test_a_link_made_with_uploaded_data_carries_only_a_marker() -> None:
    params = share.config_to_query(CUSTOM, sample=None, column="amount")
    assert params["data"] == "upload"
    back = share.query_to_settings(params, samples=SAMPLE_NAMES)
    assert back is not None and back.uploaded and back.sample is None


def test_nothing_about_uploaded_data_goes_into_a_link_or_a_settings_file() -> None:
    """Neither a link nor a settings file made with an uploaded file names its column."""
    params = share.config_to_query(CUSTOM, sample=None, column="amount")
    assert "column" not in params and "amount" not in str(params)
    text = share.settings_to_json(CUSTOM, sample=None, column="amount")
    assert "amount" not in text and "column" not in json.loads(text)["dataset"]
    assert share.json_to_settings(text, samples=SAMPLE_NAMES).uploaded
    # a sample dataset's column is public, and is carried
    assert share.config_to_query(CUSTOM, sample="incomes.csv", column="income")["column"] == "income"
    sample_json = json.loads(share.settings_to_json(CUSTOM, sample="incomes.csv", column="income"))
    assert sample_json["dataset"] == {"sample": "incomes.csv", "column": "income"}


def test_a_server_dataset_round_trips_by_name_and_column() -> None:
    """A server dataset's name inside the data directory and its column are carried (its
    users see the name on the Data page; it means something only on that server)."""
    params = share.config_to_query(CUSTOM, sample=None, server="census/2020", column="income")
    assert params["data"] == "server:census/2020" and params["column"] == "income"
    back = share.query_to_settings(params, samples=SAMPLE_NAMES)
    assert back is not None and back.config == CUSTOM
    assert (back.server, back.column, back.sample, back.uploaded) == (
        "census/2020",
        "income",
        None,
        False,
    )
    text = share.settings_to_json(CUSTOM, sample=None, server="census/2020", column="income")
    assert json.loads(text)["dataset"] == {"server": "census/2020", "column": "income"}
    back = share.json_to_settings(text, samples=SAMPLE_NAMES)
    assert back.config == CUSTOM and (back.server, back.column) == ("census/2020", "income")
    assert back.sample is None and not back.uploaded
    # the name is passed on as written: whether it lies inside the data directory is for
    # server_data to say when the link is opened (tests/app/test_server_datasets.py)
    odd = share.query_to_settings({"data": "server:../x", "seed": "1"}, samples=SAMPLE_NAMES)
    assert odd is not None and odd.server == "../x"


def test_the_unit_of_privacy_travels_with_a_named_dataset_never_with_an_upload() -> None:
    """Issue 16 §2: a server dataset's privacy identifier is carried by links and settings
    files (a link then opens the same unit of privacy); an upload's is not."""
    params = share.config_to_query(
        CUSTOM, sample=None, server="census/2020", column="income", id_column="pid"
    )
    assert params["id_column"] == "pid"
    back = share.query_to_settings(params, samples=SAMPLE_NAMES)
    assert back is not None and (back.server, back.id_column) == ("census/2020", "pid")
    text = share.settings_to_json(
        CUSTOM, sample=None, server="census/2020", column="income", id_column="pid"
    )
    assert json.loads(text)["dataset"]["id_column"] == "pid"
    assert share.json_to_settings(text, samples=SAMPLE_NAMES).id_column == "pid"
    # one row per person: nothing in the link
    plain = share.config_to_query(CUSTOM, sample=None, server="census/2020", column="income")
    assert "id_column" not in plain
    restored = share.query_to_settings(plain, samples=SAMPLE_NAMES)
    assert restored is not None and restored.id_column is None
    # an upload's identifier is a column name of private data: never carried
    up = share.config_to_query(CUSTOM, sample=None, column="amount", id_column="person")
    assert "person" not in str(up)
    assert "person" not in share.settings_to_json(
        CUSTOM, sample=None, column="amount", id_column="person"
    )


@pytest.mark.parametrize("value", ["server:", "server:   "])
def test_a_server_dataset_without_a_name_is_refused(value: str) -> None:
    with pytest.raises(ParameterError, match="the server dataset in the link has no name"):
        share.query_to_settings({"data": value, "seed": "1"}, samples=SAMPLE_NAMES)
    for name in ("", " ", 5, None):
        doc = json.dumps({"config": CUSTOM.to_dict(), "dataset": {"server": name}})
        with pytest.raises(ParameterError, match="the server dataset in the file has no name"):
            share.json_to_settings(doc, samples=SAMPLE_NAMES)


def test_a_link_names_one_dataset_at_most() -> None:
    for make in (share.config_to_query, share.settings_to_json):
        with pytest.raises(ValueError, match="not both"):
            make(CUSTOM, sample="incomes.csv", server="census/2020")


def test_no_config_in_the_query_string_means_none() -> None:
    assert share.query_to_settings({}, samples=SAMPLE_NAMES) is None
    assert share.query_to_settings({"explorer_tab": "Answers"}, samples=SAMPLE_NAMES) is None


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"epsilon": "abc"}, "epsilon='abc' in the link is not a number"),
        ({"epsilon": "-1"}, "epsilon must be between"),
        ({"trials": "99999"}, "trials must be between 1 and 10,000"),
        ({"algorithms": "sqm,magic"}, "unknown algorithm 'magic'"),
        ({"workload": "Q9"}, "unknown workload 'Q9'"),  # checked against the link's domain
        ({"workload": "every:0"}, "every:0"),  # refused, never clamped to every:1
        ({"workload": "Q3"}, None),
        ({"data": "secret.csv", "epsilon": "0.1"}, "unknown sample dataset 'secret.csv'"),
        ({"svt_r": "2"}, "svt r must be strictly between 0 and 1"),
    ],
)
def test_bad_query_strings_raise_a_clear_message(params: dict, message: str | None) -> None:
    if message is None:
        assert share.query_to_settings(params, samples=SAMPLE_NAMES) is not None
        return
    with pytest.raises(ParameterError, match=message.replace("(", r"\(")):
        share.query_to_settings(params, samples=SAMPLE_NAMES)


def test_config_json_round_trip_and_other_formats() -> None:
    text = share.settings_to_json(CUSTOM, sample="incomes.csv", column="income", iso=True)
    back = share.json_to_settings(text, samples=SAMPLE_NAMES)
    assert back.config == CUSTOM and back.sample == "incomes.csv" and back.iso is True
    bare = share.json_to_settings(CUSTOM.to_json(), samples=SAMPLE_NAMES)
    assert bare.config == CUSTOM and bare.sample is None
    run_json = json.dumps({"config": CUSTOM.to_dict(), "dataset": {"name": "incomes.csv"}})
    assert share.json_to_settings(run_json, samples=SAMPLE_NAMES).sample == "incomes.csv"
    uploaded = share.settings_to_json(CUSTOM, sample=None)
    assert (
        "uploaded" in uploaded and share.json_to_settings(uploaded, samples=SAMPLE_NAMES).uploaded
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"epsilon": 0}', "epsilon must be between"),
        (b'{"colour": "red"}', "unknown configuration key"),
        (b"\xff\xfe\x00", "not valid JSON"),
    ],
)
def test_bad_config_files_raise_a_clear_message(text: bytes, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        share.json_to_settings(text, samples=SAMPLE_NAMES)


# ----------------------------------------------------------------------------------------------
# In the app
# ----------------------------------------------------------------------------------------------
def test_uploading_a_config_file_restores_every_setting(app: AppTest) -> None:
    content = share.settings_to_json(CUSTOM, sample="incomes_small.csv", iso=False).encode()
    upload_config(app, content)
    assert_clean(app)
    assert any("Settings restored from config.json" in s.value for s in app.success)
    assert app.selectbox(key="workload_kind").value == "every"
    assert app.number_input(key="workload_every").value == 250
    assert app.select_slider(key="epsilon").value == 0.05
    assert app.slider(key="rho").value == 0.25
    assert app.button_group(key="truncation").value == "recursive"
    assert app.button_group(key="algorithms").value == ["identity", "timm", "tamm"]
    assert app.number_input(key="trials").value == 20
    assert app.number_input(key="seed").value == 42
    assert app.number_input(key="delta").value == 50.0
    assert app.number_input(key="rm_theta0").value == 40_000.0
    assert app.number_input(key="rm_mu").value == 0.4
    assert app.toggle(key="iso").value is False
    run_explorer(app)
    assert_clean(app)
    spec = charts(app)[0]
    assert "incomes_small.csv" in title(spec) and "seed 42" in title(spec)
    # the downloaded settings equal what was uploaded
    restored = share.query_to_settings(app.query_params, samples=SAMPLE_NAMES)
    assert restored is not None and restored.config == CUSTOM


def test_a_bad_config_file_is_an_error_and_changes_nothing(app: AppTest) -> None:
    app.number_input(key="seed").set_value(5).run()
    upload_config(app, b"{oops", name="broken.json")
    assert not app.exception
    (error,) = errors(app)
    assert "Could not restore settings from broken.json" in error and "not valid JSON" in error
    assert app.number_input(key="seed").value == 5
    upload_config(app, b'{"epsilon": -1}', name="neg.json")
    assert any("epsilon must be between" in e for e in errors(app))
    assert app.select_slider(key="epsilon").value == 0.01


def test_the_link_reproduces_the_same_figures_with_the_same_seed(small: AppTest) -> None:
    small.number_input(key="seed").set_value(11)
    small.slider(key="rho").set_value(0.3)
    small.run()
    run_explorer(small)
    assert_clean(small)
    before = charts(small)[0]
    link = flat(small.query_params)
    assert link["seed"] == "11" and link["data"] == "incomes.csv" and link["workload"] == "Q3"

    opened = new_app(**link)
    opened.run()  # opening the link runs once, deterministically
    assert not opened.exception and not opened.error
    assert any("restored from the link" in i.value for i in opened.info)
    after = charts(opened)[0]
    assert title(after) == title(before)
    for a, b in zip(before["data"], after["data"], strict=True):
        np.testing.assert_array_equal(array(a["y"]), array(b["y"]))
    assert opened.number_input(key="seed").value == 11


def test_a_link_with_a_bad_value_shows_an_error_and_the_defaults(app: AppTest) -> None:
    opened = new_app(epsilon="-3", workload="Q3")
    opened.run()
    assert not opened.exception
    (error,) = errors(opened)
    assert "settings in this link could not be used" in error and "epsilon must be" in error
    assert opened.select_slider(key="epsilon").value == 0.01
    assert not charts(opened)  # no run (and the data preview is drawn only when opened)


def test_a_link_made_with_uploaded_data_asks_for_the_file(app: AppTest) -> None:
    link = share.config_to_query(CUSTOM, sample=None, column="amount")
    opened = new_app(**link)
    opened.run()
    assert not opened.exception
    assert any("Links never carry uploaded data" in w.value for w in opened.warning)
    assert any("Press **Run**" in i.value for i in opened.info)  # nothing was run
    assert opened.number_input(key="seed").value == 42


def test_share_popover_offers_link_and_settings_file(small: AppTest) -> None:
    assert small.download_button(key="share_config_download")
    run_explorer(small)
    codes = [c.value for c in small.code]
    assert any("seed=0" in c and "data=incomes.csv" in c for c in codes)
    assert any("never put in a URL" in c.value for c in small.caption)


# ----------------------------------------------------------------------------------------------
# Links of the Compare and Single query views
# ----------------------------------------------------------------------------------------------
def test_view_query_round_trip_and_bad_values() -> None:
    values = {"compare_view": "answers", "sweep_epsilons": [0.01, 1.0], "sweep_truncation": "none"}
    compare, single_query = by_url_path("compare").view, by_url_path("single-query").view
    params = share.view_to_query(compare, values)
    assert params == {"view": "answers", "sweep": "0.01,1", "sweep_truncation": "none"}
    assert share.query_to_view(compare, params) == values
    teach = {"teach_query": 80000.0, "teach_theta": 12300.0, "teach_algorithm": "tamm",
             "teach_private": False}  # fmt: skip
    assert share.query_to_view(single_query, share.view_to_query(single_query, teach)) == teach
    for view, bad, message in (
        (compare, {"view": "pie"}, "view='pie' in the link: choose from heatmap"),
        (compare, {"sweep": "0.01,0.04"}, "sweep='0.01,0.04' in the link: choose from"),
        (single_query, {"theta": "big"}, "theta='big' in the link is not a number"),
        (single_query, {"algorithm": "ols"}, "algorithm='ols' in the link: choose from"),
    ):
        with pytest.raises(ParameterError, match=message):
            share.query_to_view(view, bad)


def _open(page: str, params: dict) -> AppTest:
    """A new session opened by a link to ``page``. (AppTest cannot switch to a page whose
    url_path differs from its file name before the first run, so the session runs once
    bare and the link is then read as on its first run; the browser tests open real URLs.)"""
    at = new_app()
    at.run()
    at.switch_page(page)
    at.query_params.update(flat(params))
    at.session_state["_link_checked"] = False
    return at.run()


def test_compare_link_reproduces_the_grid_and_the_sweep(app: AppTest) -> None:
    app.selectbox(key="workload_kind").select("Q3")
    app.number_input(key="trials").set_value(10)
    app.number_input(key="seed").set_value(8)
    app.run()
    app.switch_page("app_pages/compare.py").run()
    app.button(key="compare_run").click().run()
    app.button_group(key="compare_view").set_value("error").run()
    app.multiselect(key="sweep_epsilons").set_value([0.01, 1.0]).run()
    app.button(key="sweep_run").click().run()
    assert_clean(app)
    params = flat(dict(app.query_params))
    assert params["view"] == "error" and params["sweep"] == "0.01,1" and params["seed"] == "8"
    grid, sweep = charts(app)
    other = _open("app_pages/compare.py", params)
    assert not other.exception and not other.error
    assert any("run once with the same seed" in i.value for i in other.info)
    grid2, sweep2 = charts(other)
    assert title(grid2) == title(grid) and title(sweep2) == title(sweep)
    for a, b in zip(grid["data"] + sweep["data"], grid2["data"] + sweep2["data"], strict=True):
        np.testing.assert_array_equal(array(a["y"]), array(b["y"]))


def test_single_query_link_reproduces_tau_theta_and_algorithm(app: AppTest) -> None:
    app.selectbox(key="workload_kind").select("Q3").run()
    app.switch_page("app_pages/single_query.py").run()
    app.select_slider(key="teach_query").set_value(240_000.0)
    app.button_group(key="teach_algorithm").set_value("tamm")
    app.run()
    assert_clean(app)
    params = flat(dict(app.query_params))
    assert params["tau"] == "240000" and params["algorithm"] == "tamm" and "theta" in params
    # θ moves in the browser, which writes it into the address bar: a link with another θ
    theta = lesson(app)["thetas"][10]
    params["theta"] = share.number_text(theta)
    other = _open("app_pages/single_query.py", params)
    assert not other.exception and not other.error
    assert other.select_slider(key="teach_query").value == 240_000.0
    assert lesson(other)["thetas"][lesson(other)["start"]] == theta
    assert other.button_group(key="teach_algorithm").value == "tamm"
    assert lesson(other)["figure"]["data"] == lesson(app)["figure"]["data"]


def test_a_link_that_cannot_run_says_so_once(app: AppTest) -> None:
    # a valid link whose run is too big for memory: restored, not run, said once
    at = new_app(data="incomes.csv", workload="Q1", trials="10000")
    at.run()
    assert not at.exception
    messages = [e.value for e in at.error] + [i.value for i in at.info]
    assert any("nothing was run" in m for m in messages), messages
    assert not any("run once" in m for m in messages), messages
    assert not any("Nothing was run" in m for m in messages), messages


def test_the_widget_table_round_trips_a_config_and_starts_at_the_engine_defaults() -> None:
    from dpsum_ui import fields

    for config in (CUSTOM, ExperimentConfig(), CUSTOM.with_(
        workload="values:1000, 20000", truncations=("fixed", "svt"),
        truncation_params=TruncationParams(theta=5000.0, rm_beta=0.002, svt_variant="tight"),
    )):  # fmt: skip
        values = {**fields.defaults(), **fields.values_from_config(config)}
        assert fields.config_from_values(values.get, truncations=config.truncations) == config
    defaults = fields.defaults()
    # the engine's defaults, with the algorithm recommended at them among those selected
    rec = recommend(epsilon=0.01, upper=800_000, bins=1000, workload="Q1").algorithm
    engine = ExperimentConfig()
    assert fields.config_from_values(defaults.get) == engine.with_(
        algorithms=(*engine.algorithms, *(() if rec in engine.algorithms else (rec,)))
    )


def test_dpsum_run_and_the_explorer_run_the_same_algorithms_by_default() -> None:
    """Pages and the CLI agree on what to run: `dpsum run` with no --algorithms runs the
    explorer's default selection (the engine's defaults and the recommended one)."""
    from dpsum_core.cli import build_parser
    from dpsum_ui import fields

    args = build_parser().parse_args(["run", "--data", "x.csv", "--out", "o"])
    cli = ExperimentConfig(algorithms=tuple(args.algorithms.split(",")))
    explorer = fields.config_from_values(fields.defaults().get)
    assert "clampshells" in cli.algorithms
    assert cli.algorithms == explorer.algorithms
