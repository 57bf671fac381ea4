"""A link (or a bare config file) that names no algorithms opens with the default selection, the
★ algorithm among them, as a fresh session does (economist's review P3-3: a link without
``algorithms`` opened with ClampShells ★ deselected, ExperimentConfig()'s six only)."""

from __future__ import annotations

from app_helpers import assert_clean, new_app

from dpsum_core.mechanisms.recommend import recommend
from dpsum_ui import fields, share
from dpsum_ui import keys as K

LINK = {"data": "incomes_small.csv", "epsilon": "0.3", "upper": "200000", "bins": "200",
        "workload": "Q1", "trials": "5"}  # fmt: skip


def _star() -> str:
    return recommend(epsilon=0.3, upper=200_000, bins=200, workload="Q1").algorithm


def test_a_link_without_algorithms_selects_the_star_as_a_fresh_session() -> None:
    fresh = fields.defaults()[K.ALGORITHMS]
    assert "clampshells" in fresh
    shared = share.query_to_settings(LINK, samples=("incomes_small.csv",))
    assert shared is not None and shared.config is not None
    assert _star() in shared.config.algorithms
    assert list(shared.config.algorithms) == fresh  # here the ★ is the fresh session's
    at = new_app(**LINK)
    at.run()
    assert_clean(at)
    assert list(at.session_state[K.ALGORITHMS]) == fresh
    assert at.button_group(key=K.ALGORITHMS).value == fresh


def test_a_link_naming_algorithms_keeps_them() -> None:
    shared = share.query_to_settings({**LINK, "algorithms": "sqm,tamm"},
                                     samples=("incomes_small.csv",))  # fmt: skip
    assert shared is not None and shared.config is not None
    assert shared.config.algorithms == ("sqm", "tamm")


def test_a_bare_config_file_without_algorithms_selects_the_star_too() -> None:
    shared = share.json_to_settings('{"epsilon": 0.3, "upper": 200000, "bins": 200, '
                                    '"workload": "Q1"}', samples=())  # fmt: skip
    assert shared.config is not None and _star() in shared.config.algorithms
