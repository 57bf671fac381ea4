"""A data custodian's review at the default window (1280×800, sidebar open): figures whose
parts ran together or were cut off. Each test reads the boxes Chromium drew (conftest's
chart_parts) and checks them with the one overlap helper of the e2e tests (overlapping)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import (
    ARTIFACTS,
    assert_clean,
    chart_parts,
    key,
    overlapping,
    run_q3,
    tick_pairs,
    wait_idle,
    wait_rendered,
)

pytestmark = pytest.mark.e2e

SMALL = "data=incomes_small.csv&workload=Q3&trials=20&seed=0"
EVERY_ALGORITHM = "algorithms=sqm%2Cidentity%2Cworkload%2Ctimm%2Ctamm%2Crawsum%2Cclampshells"


def _width(box: dict) -> float:
    return box["right"] - box["left"]


def _inside(inner: dict, outer: dict) -> bool:
    return (inner["left"] >= outer["left"] - 1 and inner["right"] <= outer["right"] + 1
            and inner["top"] >= outer["top"] - 1 and inner["bottom"] <= outer["bottom"] + 1)


def _legend_pairs(boxes: dict) -> list[tuple[str, str]]:
    """The legend against the title, the plot areas, the x axis title and the tick labels."""
    return [("legend", other) for other in boxes if other != "legend" and other != "figure"]


def _open_chart(page, url: str, name: str) -> None:
    """Open ``url`` and wait for the chart (pressing Decide's Compute when the curves of the
    link are priced above a link's budget)."""
    page.goto(url)
    chart = page.locator(f"{key(f'chart_{name}')} .main-svg").first
    compute = page.locator(f"{key('decide_compute')} button").first
    chart.or_(compute).wait_for(timeout=120_000)
    wait_idle(page, 120_000)
    if compute.is_visible():
        compute.click()
    chart.wait_for(timeout=120_000)
    wait_rendered(page, 120_000)


@pytest.mark.parametrize("many", [False, True], ids=["defaults", "17 curves"])
def test_decides_legend_is_under_the_plot_which_keeps_its_width(page, server, many):
    """Review: the legend on the right took half of the chart's column (plot 275 of 603 px).
    Under the plot, as on Single query, the plot keeps ≥ 80 % of the figure's width, and
    nothing overprints the legend, also with 17 curves and ClampShells' long name."""
    extra = f"&truncation=none%2Csvt%2Crecursive&{EVERY_ALGORITHM}" if many else ""
    _open_chart(page, f"{server.url}/decide?{SMALL}{extra}", "decide")
    boxes = chart_parts(page, "decide")
    page.locator(key("chart_decide")).screenshot(path=str(ARTIFACTS / f"decide_legend_{many}.png"))
    assert_clean(page)
    (plot,) = [b for n, b in boxes.items() if n.startswith("plot ")]
    assert _width(plot) >= 0.8 * _width(boxes["figure"]), (plot, boxes["figure"])
    assert boxes["legend"]["top"] >= plot["bottom"], (boxes["legend"], plot)
    assert _inside(boxes["legend"], boxes["figure"]), boxes["legend"]
    assert not overlapping(boxes, _legend_pairs(boxes)), overlapping(boxes, _legend_pairs(boxes))
    assert not overlapping(boxes, tick_pairs(boxes))


def test_the_explorers_theta_chart_title_fits_its_half_page(page, server):
    """Review: the θ-per-trial chart's subtitle ran past its half-page column and was cut off.
    Its title block now lies inside the figure, clear of the plot and the legend, and the
    legend (under the plot) leaves the plot its width."""
    page.goto(server.url)
    page.locator(f"{key('explorer_run')} button").first.wait_for()
    wait_idle(page)
    run_q3(page, seed=3, trials=20)
    page.locator('[data-testid="stTab"]', has_text="θ and data").click()
    page.locator(f"{key('chart_explorer_theta')} .main-svg").first.wait_for()
    wait_rendered(page)
    boxes = chart_parts(page, "explorer_theta")
    page.locator(key("chart_explorer_theta")).screenshot(path=str(ARTIFACTS / "theta_title.png"))
    assert_clean(page)
    title, figure = boxes["title"], boxes["figure"]
    assert _inside(title, figure), (title, figure)
    assert "seed 3" in page.locator(f"{key('chart_explorer_theta')} .gtitle").text_content()
    plots = [n for n in boxes if n.startswith("plot ")]
    pairs = [("title", p) for p in plots] + [("title", "legend")] + _legend_pairs(boxes)
    assert not overlapping(boxes, pairs), overlapping(boxes, pairs)
    (plot,) = [boxes[p] for p in plots]
    assert _width(plot) >= 0.75 * _width(figure), (plot, figure)


GRID = ("data=incomes_small.csv&trials=20&seed=0&truncation=none%2Cfixed%2Csvt%2Crecursive"
        f"&theta=100000&{EVERY_ALGORITHM}")  # four panels, seven algorithms: the most crowded


@pytest.mark.parametrize(
    ("workload", "view"),
    [("Q3", "heatmap"), ("Q3", "error"), ("Q3", "answers"), ("Q1", "error"), ("Q2", "answers")],
)
def test_the_compare_grids_x_labels_do_not_run_together(page, server, workload, view):
    """Review: the Compare grid's x labels ran together at 1280×800. In the small multiples
    the τ labels of each panel overlapped (100,000 200,000 500,000 1,000,000 in 150 px) and
    every panel's axis title ran into the next; the heatmap's labels, angled by plotly, did
    not (checked here too). No two tick labels of an axis overlap, nor two axis titles, and
    the legend under the panels overprints nothing."""
    _open_chart(page, f"{server.url}/compare?{GRID}&workload={workload}&view={view}",
                "compare_grid")  # fmt: skip
    boxes = chart_parts(page, "compare_grid")
    titles = page.locator(f"{key('chart_compare_grid')} [class^='g-x'][class$='title'] text")
    page.locator(key("chart_compare_grid")).screenshot(
        path=str(ARTIFACTS / f"compare_grid_{workload}_{view}.png"))
    assert_clean(page)
    ticks = [n for n in boxes if n.startswith("x tick ")]
    assert ticks, boxes
    assert not overlapping(boxes, tick_pairs(boxes)), overlapping(boxes, tick_pairs(boxes))
    assert titles.count() <= 1, titles.all_text_contents()
    if view != "heatmap":
        assert not overlapping(boxes, _legend_pairs(boxes)), overlapping(boxes,
                                                                         _legend_pairs(boxes))
        axes = {n.split()[2] for n in ticks}
        assert len(axes) == 4, axes  # every panel labels its τ
