"""A click or a link never starts a run too heavy for a shared server (issue 17): the cost is
estimated from the settings before anything runs; a link only restores the settings."""

from __future__ import annotations

from app_helpers import errors, new_app, open_link

from dpsum_core import limits
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import run_cost
from dpsum_ui import compare, share
from dpsum_ui.state import EPSILON_GRID

# The hostile link: an ε sweep over every ε of the slider (17 values), 5 000 bins, 6 000
# trials, TaMM with the
# recursive θ (one GreedyH strategy per trial and ε: 102 000 strategies, over an hour).
HEAVY = ExperimentConfig(bins=5000, trials=6000, truncations=("recursive",), algorithms=("tamm",))
SWEEP = list(EPSILON_GRID)


def _heavy_link() -> dict[str, str]:
    params = share.config_to_query(HEAVY, sample="incomes.csv", column="income")
    params.update(
        share.view_to_query(compare.VIEW, {"sweep_epsilons": SWEEP, "sweep_truncation": "recursive"})
    )
    return params


def test_the_hostile_link_is_estimated_far_above_the_click_budget() -> None:
    assert len(SWEEP) == 17
    cost = run_cost(HEAVY, runs=len(SWEEP))
    assert cost.seconds > 10 * limits.MAX_CLICK_SECONDS
    assert cost.strategies == 17 * 6000


def test_a_heavy_link_restores_its_settings_runs_nothing_and_run_is_refused() -> None:
    at = open_link("app_pages/compare.py", _heavy_link())
    assert not at.exception, [e.value for e in at.exception]
    assert not errors(at)
    notice = " ".join(i.value for i in at.info)
    assert "not run" in notice and "Press Run" in notice
    assert "Press **Run sweep**" in notice  # no sweep was computed
    # every setting the link carried is restored
    ss = at.session_state
    assert (ss["trials"], ss["algorithms"], ss["sweep_truncation"]) == (6000, ["tamm"], "recursive")
    assert list(ss["sweep_epsilons"]) == SWEEP
    assert ss["domain_bins"] == 5000

    at.button(key="sweep_run").click().run()
    assert not at.exception
    [message] = errors(at)
    assert "would take about" in message and "Nothing was run" in message
    assert "one click may use" in message
    assert at.session_state["trials"] == 6000 and list(at.session_state["sweep_epsilons"]) == SWEEP
    assert "Press **Run sweep**" in " ".join(i.value for i in at.info)


def test_a_heavy_explorer_run_is_refused_before_it_starts() -> None:
    params = share.config_to_query(HEAVY, sample="incomes.csv", column="income")
    at = new_app(**params)
    at.run()
    assert not at.exception and not errors(at)
    assert "not run" in " ".join(i.value for i in at.info)
    at.button(key="explorer_run").click().run()
    [message] = errors(at)
    assert "would take about" in message
    assert at.session_state["trials"] == 6000


def test_a_small_link_still_runs_by_itself() -> None:
    small = ExperimentConfig(workload="Q3", trials=10, seed=3)
    assert run_cost(small).seconds < limits.MAX_LINK_SECONDS
    at = new_app(**share.config_to_query(small, sample="incomes.csv", column="income"))
    at.run()
    assert not at.exception and not errors(at)
    assert "run once with the same seed" in " ".join(i.value for i in at.info)
