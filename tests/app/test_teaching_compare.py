"""Single query (teaching) and Compare pages; the app's configuration and key documentation."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
from app_helpers import array, assert_clean, charts, errors, lesson, title
from streamlit.testing.v1 import AppTest

from dpsum_core import limits
from dpsum_core.mechanisms.registry import ALGORITHMS
from dpsum_ui import keys
from dpsum_ui.share import number_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def teach(app: AppTest) -> AppTest:
    app.selectbox(key="workload_kind").select("Q3").run()
    app.switch_page("app_pages/single_query.py").run()
    app.button_group(key="teach_algorithm").set_value("identity").run()  # not the ★: θ cuts
    assert_clean(app)
    return app


@pytest.fixture
def compare(app: AppTest) -> AppTest:
    app.selectbox(key="workload_kind").select("Q3")
    app.number_input(key="trials").set_value(20)
    app.run()
    app.switch_page("app_pages/compare.py").run()
    assert_clean(app)
    return app


def metric(at: AppTest, name: str, index: int | None = None) -> str:
    """One of the four numbers of the lesson frame, at its start θ or at grid point ``index``."""
    payload = lesson(at)
    value = payload["numbers"][name]
    return value if isinstance(value, str) else value[payload["start"] if index is None else index]


def curves_of(at: AppTest) -> dict:
    """The lesson frame's chart (a plotly figure spec)."""
    return lesson(at)["figure"]


def card(at: AppTest, name: str, index: int | None = None) -> str:
    """The long explanation of one card at the start θ (or at grid point ``index``)."""
    payload = lesson(at)
    value = payload["cards"][name]["long"]
    return value if isinstance(value, str) else value[payload["start"] if index is None else index]


def test_single_query_curves_samples_and_explanations(teach: AppTest) -> None:
    curves = curves_of(teach)
    assert not charts(teach)  # every algorithm's chart is built only when its box is opened
    teach.session_state["teach_all_box"] = True
    teach.run()
    assert_clean(teach)
    assert curves_of(teach) == curves
    (everyone,) = charts(teach)
    names = [t.get("name", "") for t in curves["data"]]
    assert any(n.endswith(": RMSE") for n in names)
    assert {"|truncation bias|", "|binning bias|", "noise (SD)"} <= set(
        names
    )
    assert sum("θ chosen by" in n for n in names) == 2  # SVT and Recursive marks
    assert len(everyone["data"]) == len(ALGORITHMS)  # the page compares every algorithm
    titles = lesson(teach)["card_titles"].values()
    assert list(titles) == ["Truncation bias", "Binning bias", "Sensitivity", "Budget split"]
    assert "ε_θ + ε_m = ε" in card(teach, "budget")
    assert teach.select_slider(key="teach_query").value == 80_000.0  # Q3 edge nearest 100k


def test_single_query_updates_live_and_deterministically(teach: AppTest) -> None:
    payload = lesson(teach)
    assert metric(teach, "rmse", 5) != metric(teach, "rmse")  # θ moves the numbers
    teach.run()
    assert lesson(teach) == payload  # a rerun: the same frame, nothing recomputed differently
    teach.button_group(key="teach_algorithm").set_value("tamm").run()
    assert_clean(teach)
    assert title(curves_of(teach)).startswith("TaMM")
    # a fixed, public θ: all of ε measures, no private θ marks, and the warning about the data
    teach.toggle(key="teach_private").set_value(False).run()
    assert_clean(teach)
    names = [t.get("name", "") for t in curves_of(teach)["data"]]
    assert not any("θ chosen by" in n for n in names)
    assert "only if θ was chosen without looking" in card(teach, "budget")


def test_single_query_reports_bad_settings(teach: AppTest) -> None:
    teach.selectbox(key="workload_kind").select("values").run()
    teach.text_input(key="workload_values").input("1000, lots").run()
    assert not teach.exception
    assert any("threshold 'lots' is not a number" in e for e in errors(teach))


def test_compare_grid_heatmap_and_small_multiples(compare: AppTest) -> None:
    assert any("Press **Run grid**" in i.value for i in compare.info)
    compare.button(key="compare_run").click().run()
    assert_clean(compare)
    (heatmap, *_) = charts(compare)
    assert heatmap["data"][0]["type"] == "heatmap"
    # 15 cells + RawSum and ClampShells once each, in their own θ columns
    assert len(heatmap["data"][0]["y"]) == 7 and len(heatmap["data"][0]["x"]) == 5
    # issue 19: a pair that is not a configuration says so, never "nan"
    cells = [c for row in heatmap["data"][0]["text"] for c in row]
    assert "nan" not in " ".join(cells).lower()
    # RawSum and ClampShells: each under the other 4 θ columns, and 5 algorithms in each of
    # their 2 columns
    # (review: the cell said "does not exist" where "not applicable" is meant)
    assert cells.count("not applicable") == 2 * 4 + 2 * 5
    assert not any("does not exist" in c for c in cells)
    # errors in percent, as the Explorer's summary (never a bare fraction such as 0.0458)
    assert all(c == "not applicable" or (c.endswith(" %") and float(c[:-2]) > 0)
               for c in cells)  # fmt: skip
    assert "%{text}" in heatmap["data"][0]["hovertemplate"]
    compare.button_group(key="compare_view").set_value("error").run()
    assert_clean(compare)
    grid = charts(compare)[0]
    # 3 panels × (5 algorithms + RawSum and ClampShells as references in every panel)
    # × (band + line)
    assert len(grid["data"]) == 3 * 7 * 2
    compare.button_group(key="compare_view").set_value("answers").run()
    assert len(charts(compare)[0]["data"]) == 3 * (7 * 2 + 1)
    assert compare.download_button(key="dl_compare_grid_html")


def test_compare_epsilon_sweep(compare: AppTest) -> None:
    compare.multiselect(key="sweep_epsilons").set_value([0.01, 1.0])
    compare.selectbox(key="sweep_truncation").select("recursive")
    compare.run()
    compare.button(key="sweep_run").click().run()
    assert_clean(compare)
    sweep = charts(compare)[-1]
    assert "Error versus ε" in title(sweep) and "Recursive" in title(sweep)
    assert len(sweep["data"]) == 7 and all(len(t["x"]) == 2 for t in sweep["data"])
    assert compare.download_button(key="dl_compare_sweep_html")


def test_compare_bad_inputs(compare: AppTest) -> None:
    compare.multiselect(key="compare_truncations").set_value([]).run()
    assert not compare.exception
    assert any("choose at least one truncation method" in e for e in errors(compare))
    compare.button(key="compare_run").click().run()
    assert any("Nothing was run" in e for e in errors(compare))
    compare.multiselect(key="sweep_epsilons").set_value([]).run()
    assert any("at least one ε" in e for e in errors(compare))


def test_too_many_trials_is_an_error_with_the_limit(app: AppTest) -> None:
    app.number_input(key="trials").set_value(limits.MAX_TRIALS + 1).run()
    assert not app.exception
    assert any(f"trials must be between 1 and {limits.MAX_TRIALS:,}" in e for e in errors(app))


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ("1000, abc", "threshold 'abc' is not a number"),
        ("0, 5000", "outside the domain"),
        ("900000", "outside the domain"),
        ("", "needs at least one threshold"),
    ],
)
def test_bad_explicit_thresholds(app: AppTest, values: str, message: str) -> None:
    app.selectbox(key="workload_kind").select("values").run()
    app.text_input(key="workload_values").input(values).run()
    assert not app.exception
    assert any(message in e for e in errors(app)), errors(app)


def test_explicit_thresholds_are_snapped_and_reported(app: AppTest) -> None:
    app.selectbox(key="workload_kind").select("values").run()
    app.text_input(key="workload_values").input("10001, 50000").run()
    assert_clean(app)
    assert any("10,001 → 10,400" in c.value for c in app.caption)


def test_streamlit_config_matches_the_limits() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["browser"]["gatherUsageStats"] is False
    assert config["server"]["maxUploadSize"] == limits.MAX_UPLOAD_MB
    # a live server never re-imports its code under running sessions (an upload was lost)
    assert config["server"]["fileWatcherType"] == "none"
    from dpsum_dashboard.launch import command

    assert "--server.fileWatcherType=none" in command([])


def test_every_widget_key_is_documented() -> None:
    doc = keys.__doc__ or ""
    constants = {
        name: value
        for name, value in vars(keys).items()
        if name.isupper() and isinstance(value, str)
    }
    assert len(constants) > 40
    for name, value in constants.items():
        assert f"``{value}``" in doc, name


def test_every_key_used_in_the_ui_is_a_documented_constant() -> None:
    sources = [*(ROOT / "pages").glob("*.py"), *(ROOT / "dpsum_ui").glob("*.py")]
    literal_keys = set()
    for path in sources:
        literal_keys |= set(re.findall(r'key="([a-z_]+)"', path.read_text()))
    assert not literal_keys, f"use dpsum_ui.keys constants instead of literals: {literal_keys}"


def test_runs_too_big_for_memory_are_refused_with_a_way_out(app: AppTest) -> None:
    app.number_input(key="trials").set_value(limits.MAX_TRIALS).run()
    assert not app.exception
    (error,) = errors(app)
    # 1,000 queries × 7 algorithms (ClampShells, recommended, among the defaults) × 3 methods
    assert "noisy answers" in error and "use at most 4,285 trials" in error
    app.button(key="explorer_run").click().run()
    assert any("Nothing was run" in e for e in errors(app))


def _trace(spec: dict, name: str):
    return next(array(t["y"]) for t in spec["data"] if t.get("name") == name)


def test_one_theta_on_screen_every_number_follows_the_frames_slider(teach: AppTest) -> None:
    """Issue 19, then 25: the chart has no θ control of its own; at every θ of the frame's
    slider, its readout, the four numbers and the sentences show that θ and agree."""
    payload = lesson(teach)
    curves = payload["figure"]
    assert "sliders" not in curves["layout"] and "updatemenus" not in curves["layout"]
    start = payload["start"]
    assert curves["layout"]["shapes"][0]["x0"] == payload["thetas"][start]
    assert teach.query_params["theta"] == number_text(payload["thetas"][start])
    seen = set()
    for i in (10, 30):
        theta = payload["thetas"][i]
        readout = payload["readout"][i]
        assert f"θ = {theta:,.0f}" in readout
        rmse = metric(teach, "rmse", i)
        assert f"expected error (RMSE) {rmse}" in readout  # the same number, the same words
        assert f"truncation bias {metric(teach, 'truncation', i)}" in readout
        assert f"Truncating at θ = {theta:,.0f}" in card(teach, "truncation", i)
        assert f"θ = {theta:,.0f}" in payload["cards"]["truncation"]["short"][i]
        seen.add(rmse)
    assert len(seen) == 2


def test_teaching_numbers_are_words_in_the_data_unit(teach: AppTest) -> None:
    values = [metric(teach, name) for name in ("truncation", "binning", "rmse", "truth")]
    assert any(v.endswith(("million", "billion")) for v in values), values
    assert not any(v.endswith((" k", " M", " G", " T")) for v in values), values
    curves = curves_of(teach)
    assert "²" not in curves["layout"]["annotations"][0]["text"]
    assert curves["layout"]["yaxis"]["title"]["text"] == "error, in the data's unit"
    assert all(t[-1].isdigit() or t.endswith(("million", "billion", "trillion"))
               for t in curves["layout"]["yaxis"]["ticktext"])  # fmt: skip


def test_teaching_curves_separate_the_two_biases(teach: AppTest) -> None:
    curves = curves_of(teach)
    identity_trunc = _trace(curves, "|truncation bias|")
    binning = _trace(curves, "|binning bias|")
    # upper-edge weights: the binning bias never vanishes, even at θ = U; the truncation bias
    # does (a gap on the log axis) once θ passes every value ≤ τ
    assert np.all(binning > 0) and np.isnan(identity_trunc[-1])
    # SQM sums exact values: the same truncation bias, and no binning bias at all
    teach.button_group(key="teach_algorithm").set_value("sqm").run()
    assert_clean(teach)
    sqm = curves_of(teach)
    names = [t.get("name") for t in sqm["data"]]
    assert "|binning bias|" not in names
    np.testing.assert_allclose(_trace(sqm, "|truncation bias|"), identity_trunc)
    assert "no binning bias" in card(teach, "binning")


def test_lowest_error_marker_ignores_the_cancellation_of_the_biases(teach: AppTest) -> None:
    spec = curves_of(teach)
    x = next(array(t["x"]) for t in spec["data"] if t.get("name") == "noise (SD)")
    trunc = np.nan_to_num(_trace(spec, "|truncation bias|"))
    trade_off = trunc**2 + _trace(spec, "noise (SD)") ** 2
    best = spec["layout"]["shapes"][1]["x0"]
    assert best == x[int(np.argmin(trade_off))]
