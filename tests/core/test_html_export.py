"""HTML exports are byte-reproducible: the same figure gives the same page (plotly draws a
random div id per call, so two exports of one figure differed in 87–1,593 bytes)."""

from __future__ import annotations

import plotly.graph_objects as go

from dpsum_core.plots.export import report_html, to_html


def _figure() -> go.Figure:
    return go.Figure(go.Scatter(x=[1, 2, 3], y=[3, 1, 2], name="answers"))


def test_the_same_figure_gives_the_same_html_page():
    assert to_html(_figure()) == to_html(_figure())


def test_a_report_page_is_reproducible_and_its_figures_keep_distinct_ids():
    page = report_html([("first", _figure()), ("second", _figure())], title="t")
    assert page == report_html([("first", _figure()), ("second", _figure())], title="t")
    assert 'id="dpsum-figure-0"' in page and 'id="dpsum-figure-1"' in page
