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


def test_every_exported_figure_says_it_is_not_for_publication():
    """An author's figure files (the explorer's downloads, reproduce's PNGs and figures.html)
    drew the private file's true answers with nothing on them saying so (author review)."""
    import plotly.graph_objects as go

    from dpsum_core.plots.export import NOT_FOR_PUBLICATION_MARK, marked, report_html, to_html

    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    assert NOT_FOR_PUBLICATION_MARK in to_html(fig)
    assert NOT_FOR_PUBLICATION_MARK in report_html([("a", fig)], title="t")
    (mark,) = marked(fig).layout.annotations
    assert mark.text == NOT_FOR_PUBLICATION_MARK and not fig.layout.annotations  # a copy


def test_an_exported_image_carries_the_mark():
    import plotly.graph_objects as go
    import pytest

    from dpsum_core.plots.export import browser_available, to_image

    if not browser_available():
        pytest.skip("SVG export needs Chromium")
    svg = to_image(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), "svg").decode()
    assert "Not for publication: drawn from the data without noise" in svg
