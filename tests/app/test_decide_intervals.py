"""Decide plans for what is published (review 9, P2-1): the published 95 % half-width next to
the ε it offers, and a target on that half-width."""

from __future__ import annotations

import re

import numpy as np
import pytest
from app_helpers import assert_clean, charts, title
from streamlit.testing.v1 import AppTest
from test_sharing import _open, flat

from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.publish.planned import relative_halfwidths, summarize
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.decision import query_subset
from dpsum_core.simulate.results import percent
from dpsum_ui import datasets
from dpsum_ui import keys as K

OFFER = re.compile(r"Use ε = ([0-9.e-]+) on the Release page")


def text(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown)


def offered(at: AppTest) -> float:
    match = OFFER.fullmatch(at.button(key=K.DECIDE_TO_RELEASE).label)
    assert match, at.button(key=K.DECIDE_TO_RELEASE).label
    return float(match.group(1))


def test_the_published_half_width_is_said_next_to_the_epsilon_offered(decide: AppTest) -> None:
    """The line is the release's own intervals at the offered ε, on the target's queries: the
    same numbers as the engine's simulated releases of that configuration."""
    eps = offered(decide)
    said = next(m.value for m in decide.markdown if m.value.startswith("Published at ε ="))
    match = re.match(r"Published at ε = ([0-9.e-]+) by (.+?): 95 % intervals of typically "
                     r"\*\*±([0-9.,]+ %)\*\* of the answer", said)  # fmt: skip
    assert match, said
    assert float(match.group(1)) == pytest.approx(eps)
    assert "(a tenth of the queries: wider than ±" in said and "not published" in said
    data = datasets.sample_dataset("incomes.csv", "income", 800_000.0)
    config = ExperimentConfig(workload="Q3", epsilon=eps)
    mask = query_subset(make_workload("Q3", config.domain).thresholds, 10)
    ids = {"TaMM with SVT": ("tamm", "svt"), "RawSum (θ after measuring)": ("rawsum", "posthoc"),
           "ClampShells (θ located by the algorithm)": ("clampshells", "inside")}  # fmt: skip
    algorithm, truncation = ids[match.group(2)]
    rel = relative_halfwidths(data, config, algorithm, truncation)
    width = summarize(rel, mask, algorithm, truncation, eps)
    assert match.group(3) == percent(width.typical)
    # the published interval is wider than the 5 % the ε was chosen for
    assert width.typical > 0.05


def test_a_target_on_the_published_interval_asks_for_a_larger_epsilon(decide: AppTest) -> None:
    radio = decide.radio(key=K.DECIDE_TARGET_ON)
    assert radio.value == "error"
    assert list(radio.options) == ["typical error", "typical published interval"]
    before = offered(decide)
    radio.set_value("interval").run()
    assert_clean(decide)
    field = decide.text_input(key=K.DECIDE_TARGET)
    assert field.value == "5"  # the number typed stays; what it is on changes
    assert field.label == "Target: typical published 95 % half-width (±) at most (%)"
    said = text(decide)
    assert ("Target: typical published 95 % half-width ≤ ±5 % on the queries from the 10th "
            "percentile of τ up") in said  # fmt: skip
    assert "publishes a typical 95 % half-width of ±5 % at ε ≈" in said
    assert any(c.value.startswith("Planning number: the typical published 95 % half-width")
               for c in decide.caption)  # fmt: skip
    after = offered(decide)
    assert after > 2 * before, (before, after)
    # next to it, the width at the ε offered: checked to meet the target there (ClampShells'
    # widths move with its design: 6.41 % at 0.054 where the crossing read 5 % at 0.053)
    line = next(m.value for m in decide.markdown if m.value.startswith("Published at ε ="))
    assert f"Published at ε = {after:g} by " in line
    found = re.search(r"typically \*\*±([0-9.]+) %", line)
    assert found, line
    typical = float(found.group(1))
    assert typical <= 5.0, line
    # the chart stays the error's curves, without a target line it would misread
    (spec,) = charts(decide)
    assert title(spec).startswith("Median relative error versus ε<br>")
    assert not any(s.get("y0") == 0.05 for s in spec["layout"].get("shapes", []))
    params = flat(dict(decide.query_params))
    assert params["on"] == "interval" and params["target"] == "5"


def test_a_link_restores_the_interval_target() -> None:
    params = dict(data="incomes.csv", workload="Q3", target="20", above="10", on="interval")
    at = _open("app_pages/decide.py", params)
    assert not at.exception and not at.error
    assert at.radio(key=K.DECIDE_TARGET_ON).value == "interval"
    assert "typical published 95 % half-width ≤ ±20 %" in text(at)
    bad = _open("app_pages/decide.py", {**params, "on": "width"})
    assert not bad.exception
    said = " ".join(e.value for e in bad.error) + " ".join(w.value for w in bad.warning)
    assert "on='width' in the link: choose from error, interval" in said
    assert np.isfinite(offered(at))


def test_a_heavy_search_waits_for_its_button_with_the_estimate(decide: AppTest) -> None:
    """No configuration meets 0.01 % as an error target, so the search is priced at ε = 10,
    where ClampShells' releases with 1,000 bins take ≈ 0.8 s each: above a link's budget, it
    waits for its button (nothing measured), and the page says so."""
    decide.radio(key=K.DECIDE_TARGET_ON).set_value("interval").run()
    decide.text_input(key=K.DECIDE_TARGET).input("0.01").run()
    assert not decide.exception and not decide.error
    said = " ".join(i.value for i in decide.info)
    assert "Computing the published intervals for these settings would take about" in said
    assert "the releases of ClampShells" in said
    assert decide.button(key=K.DECIDE_MEASURE).label == "Compute the published intervals"
    assert not any(m.value.startswith("Published at ε =") for m in decide.markdown)
    assert not [b for b in decide.button if b.key == K.DECIDE_TO_RELEASE]
