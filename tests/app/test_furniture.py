"""Issue 23 §1.3–4 on the analysis pages: one link builder, one settings panel and run bar,
typed page state (no ``assert … is not None``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app_helpers import assert_clean, kept, new_app, run_explorer

from dpsum_core.simulate.config import ExperimentConfig
from dpsum_ui import share
from dpsum_ui.page_state import CompareState, ExplorerState

ROOT = Path(__file__).resolve().parents[2]
UI = sorted((ROOT / "dpsum_ui").rglob("*.py")) + sorted((ROOT / "app_pages").glob("*.py"))
ANALYSIS = [
    ROOT / "dpsum_ui" / f"{name}.py"
    for name in ("compare", "explorer", "decide", "release", "furniture", "page_state")
] + [ROOT / "app_pages" / f"{name}.py" for name in ("compare", "explorer", "decide", "release")]


def _calls(path: Path) -> set[str]:
    """The attribute names called in a module (``share.config_to_query(…)`` → config_to_query)."""
    tree = ast.parse(path.read_text())
    return {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }


def test_every_page_builds_its_link_with_the_one_link_builder() -> None:
    builders = {"config_to_query", "view_to_query"}
    for path in UI:
        if path.name != "share.py":
            assert not builders & _calls(path), path.relative_to(ROOT)
    users = [p.relative_to(ROOT).as_posix() for p in UI if "link_query" in _calls(p)]
    assert users == ["dpsum_ui/compare.py", "dpsum_ui/decide.py", "dpsum_ui/explorer.py",
                     "app_pages/single_query.py"]  # fmt: skip


def test_the_link_builder_is_the_config_then_the_view_then_the_flags() -> None:
    config = ExperimentConfig(seed=7, truncations=("svt",))
    source = share.Source("incomes.csv", None, "income", "person")
    view = {"target": ("decide_target", "text", None), "above": ("decide_above", "number", None)}
    link = share.link_query(config, source, iso=False, view=view,
                           values={"decide_target": "5", "decide_above": 10.0},
                           flags=(share.SIMULATE_PARAM,))  # fmt: skip
    expected = share.config_to_query(config, sample="incomes.csv", column="income", iso=False,
                                     id_column="person")  # fmt: skip
    assert link == {**expected, "target": "5", "above": "10", "simulate": "1"}
    uploaded = share.link_query(config, share.Source(column="income"), iso=True)
    assert uploaded["data"] == share.UPLOAD_MARKER and "column" not in uploaded


def test_the_analysis_pages_never_assert_that_a_plan_or_their_data_exists() -> None:
    """A plan is Ready or Blocked and the data is passed down: no ``assert … is not None``
    (their state is typed too: tests/app/test_store_only.py)."""
    for path in ANALYSIS:
        assert not re.search(r"assert .* is not None", path.read_text()), path.relative_to(ROOT)


def test_explorer_compare_and_decide_draw_the_one_settings_panel_and_run_bar() -> None:
    for name in ("explorer", "compare", "decide"):
        calls = _calls(ROOT / "app_pages" / f"{name}.py")
        assert {"settings_panel", "run_bar"} <= calls, name
        assert not {"workload_controls", "epsilon_control", "rho_control", "trials_and_seed",
                    "truncation_choice", "algorithms_control"} & calls, name  # fmt: skip


def test_the_panel_greys_out_rho_when_no_chosen_method_spends_it() -> None:
    at = new_app()
    at.run()
    at.switch_page("app_pages/compare.py").run()
    assert not at.slider(key="rho").disabled  # the paper's none, SVT and Recursive
    at.multiselect(key="compare_truncations").set_value(["none"]).run()
    assert_clean(at)
    assert at.slider(key="rho").disabled


def test_a_run_and_a_link_run_are_kept_in_the_pages_typed_state() -> None:
    at = new_app()
    at.run()
    assert kept(at, ExplorerState).shown is None
    run_explorer(at)
    assert_clean(at)
    shown = kept(at, ExplorerState).shown
    assert shown is not None and shown.source == share.Source("incomes.csv", None, "income")
    link = share.link_query(ExperimentConfig(trials=5, truncations=("svt",)),
                           share.Source("incomes.csv", None, "income"), iso=True,
                           view={"view": ("compare_view", "text", None)},
                           values={"compare_view": "heatmap"})  # fmt: skip
    opened = new_app()  # a new session opened by the link to Compare (as test_click_cost.py)
    opened.run()
    opened.switch_page("app_pages/compare.py")
    opened.query_params.update(link)
    opened.session_state["_link_checked"] = False
    opened.run()
    assert_clean(opened)
    grid = kept(opened, CompareState).grid
    assert grid is not None and grid.source.sample == "incomes.csv"
    assert not kept(opened, CompareState).queued_grid  # read once, then cleared
