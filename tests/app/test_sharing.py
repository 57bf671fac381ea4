"""Reproducibility: config JSON round trip, the shareable link (query string), bad inputs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from app_helpers import array, assert_clean, charts, errors, new_app, run_explorer, title
from streamlit.testing.v1 import AppTest

from dpsum_core.errors import ParameterError
from dpsum_core.experiment import ExperimentConfig
from dpsum_core.thresholds import TruncationParams
from dpsum_ui import share
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


def test_no_config_in_the_query_string_means_none() -> None:
    assert share.query_to_settings({}, samples=SAMPLE_NAMES) is None
    assert share.query_to_settings({"explorer_tab": "Answers"}, samples=SAMPLE_NAMES) is None


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"epsilon": "abc"}, "epsilon='abc' in the link is not a number"),
        ({"epsilon": "-1"}, "epsilon must be between"),
        ({"trials": "99999"}, "trials must be between 1 and 10000"),
        ({"algorithms": "sqm,magic"}, "unknown algorithm 'magic'"),
        ({"workload": "Q9"}, None),  # validated later, against the domain
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
    assert share.query_to_settings(app.query_params, samples=SAMPLE_NAMES).config == CUSTOM


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
