"""Issue 27.2: every page's engine calls are priced, like a run. Decide's curves, Single query's
θ curves and the Release estimate compute by themselves only within a link's budget; above it
they show their estimate and wait for a button; above a click's budget they are refused with
what to lower. The hostile Decide link of the issue (server data, U = 20 001, 5 000 bins, 7
algorithms × 3 truncations: 241 s wall on the old code) restores its settings and runs nothing.
"""

from __future__ import annotations

import pandas as pd
import pytest
from app_helpers import assert_clean, charts, errors
from streamlit.testing.v1 import AppTest
from test_sharing import _open

from dpsum_core import limits
from dpsum_core.mechanisms.registry import ALGORITHMS
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import decision_cost
from dpsum_core.simulate.decision import epsilon_grid
from dpsum_ui import decide, share

pytest.importorskip("duckdb")

HOSTILE = ExperimentConfig(
    upper=20_001.0, bins=5000, algorithms=ALGORITHMS, truncations=("none", "svt", "recursive")
)


def memo(at: AppTest, kind: str) -> dict:
    return at.session_state["_memo"].get(kind, {}) if "_memo" in at.session_state else {}


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A server data directory with one small Parquet file of incomes."""
    root = tmp_path / "data"
    root.mkdir()
    pd.DataFrame({"income": [float(v % 20_000) for v in range(0, 3_000_000, 997)]}).to_parquet(
        root / "incomes.parquet"
    )
    monkeypatch.setenv("DPSUM_DATA_DIR", str(root))
    return root


def test_the_hostile_decide_link_restores_its_settings_and_computes_nothing(data_dir) -> None:
    assert len(ALGORITHMS) == 7
    assert decision_cost(HOSTILE, epsilon_grid()).seconds > limits.MAX_CLICK_SECONDS
    params = share.config_to_query(HOSTILE, sample=None, server="incomes.parquet", column="income")
    params.update(share.view_to_query(decide.VIEW, {"decide_target": "5", "decide_above": 10.0}))
    at = _open("app_pages/decide.py", params)
    assert not at.exception, [e.value for e in at.exception]
    ss = at.session_state
    assert (ss["domain_bins"], ss["domain_upper"]) == (5000, 20_001.0)
    assert list(ss["algorithms"]) == list(ALGORITHMS)
    assert list(ss["decide_truncations"]) == ["none", "svt", "recursive"]
    assert not memo(at, "decide")  # nothing computed
    [message] = errors(at)
    assert "would take about" in message and "Nothing was run" in message
    assert "the error of ClampShells" in message and "fewer bins" in message
    assert not charts(at)
    # what it costs is said on the page, before anything runs
    assert any("Estimated cost of these curves" in c.value for c in at.caption)


def test_heavy_curves_wait_for_their_button_then_compute(app: AppTest, monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_LINK_SECONDS", 1e-6)  # every estimate is above it
    app.selectbox(key="workload_kind").select("Q3")
    app.run()
    app.switch_page("app_pages/decide.py").run()
    assert_clean(app)
    assert not memo(app, "decide") and not charts(app)
    assert any("press **Compute the curves**" in i.value for i in app.info)
    app.button(key="decide_compute").click().run()
    assert_clean(app)
    assert memo(app, "decide") and charts(app)
    # the wait message and the button go once pressed; the estimate no longer asks for it
    assert not any("press **Compute the curves**" in i.value for i in app.info)
    assert not any("press **Compute" in c.value for c in app.caption)
    # the published widths next to the ε are priced on their own: above the budget they wait too
    assert any("press **Compute the published" in i.value for i in app.info)
    app.text_input(key="decide_target").input("2").run()  # a rerun reads the memo
    assert_clean(app)
    assert charts(app)


def test_light_curves_compute_by_themselves_with_their_estimate_shown(app: AppTest) -> None:
    app.selectbox(key="workload_kind").select("Q3")
    app.run()
    app.switch_page("app_pages/decide.py").run()
    assert_clean(app)
    assert memo(app, "decide") and charts(app)
    [note] = [c.value for c in app.caption if "Estimated cost of these curves" in c.value]
    assert "computed as soon as the settings change" in note
    assert not app.get("button") or "decide_compute" not in [b.key for b in app.button]


def test_single_query_curves_are_priced(app: AppTest, monkeypatch) -> None:
    app.selectbox(key="workload_kind").select("Q3")
    app.run()
    monkeypatch.setattr(limits, "MAX_LINK_SECONDS", 1e-6)
    app.switch_page("app_pages/single_query.py").run()
    assert_clean(app)
    assert not memo(app, "curves") and not charts(app)
    app.button(key="teach_compute").click().run()
    assert_clean(app)
    assert memo(app, "curves")  # drawn in the lesson frame (θ moves in the browser)
    monkeypatch.setattr(limits, "MAX_CLICK_SECONDS", 1e-6)  # now refused: nothing runs
    app.session_state["epsilon"] = 0.5  # new settings, not memoised
    app.run()
    assert not app.exception
    assert any("would take about" in e and "Nothing was run" in e for e in errors(app))


def test_a_release_estimate_above_the_click_budget_is_refused(app: AppTest, monkeypatch) -> None:
    app.selectbox(key="workload_kind").select("Q3")
    app.run()
    monkeypatch.setattr(limits, "MAX_CLICK_SECONDS", 1e-6)
    app.switch_page("app_pages/release.py").run()
    assert not app.exception
    assert any("expected error of this plan was not computed" in e for e in errors(app))
    assert not memo(app, "release_estimate")
