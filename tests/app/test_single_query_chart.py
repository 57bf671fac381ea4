"""Single query's chart reads as the review asked: the θ marker is unlike every curve, the
readout sits above the plot area (it covered curves), the lowest trade-off is named in the
legend (its label overprinted the noise line), and each rug row is labelled."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from app_helpers import lesson
from test_single_query_parts import hourly

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain
from dpsum_core.plots.data import data_histogram_figure
from dpsum_ui.datasets import SAMPLE_DIR


@pytest.mark.parametrize("algorithm", ["identity", "sqm"])
def test_the_marker_and_the_texts_cover_no_curve(algorithm: str) -> None:
    payload = lesson(hourly(algorithm))
    figure = payload["figure"]
    layout = figure["layout"]
    marker, best = layout["shapes"][0], layout["shapes"][1]
    colours = {t["line"]["color"] for t in figure["data"] if t.get("mode") == "lines"}
    colours |= {t["marker"]["color"] for t in figure["data"] if t.get("mode") == "markers"}
    assert marker["line"]["color"] not in colours | {best["line"]["color"]}, marker
    assert marker["line"]["color"].upper() not in {c.upper() for c in colours}
    # the readout (annotation 0, moved by the frame) above the plot area, the only annotation
    (readout,) = layout["annotations"]
    assert (readout["yref"], readout["yanchor"]) == ("paper", "bottom") and readout["y"] >= 1
    assert best["name"].startswith("lowest") and best["showlegend"] is True
    legend = layout["legend"]
    assert legend["y"] <= 0 and legend["yanchor"] == "bottom", legend  # under the plot
    # both rows of the rug are labelled (plotly thinned them to "SVT" alone)
    rug = layout["yaxis2"]
    assert rug["tickvals"] == ["SVT", "Recursive"] or rug["tickvals"] == ["Recursive", "SVT"]
    assert rug["ticktext"] == rug["tickvals"]


def test_the_lessons_histogram_labels_only_the_powers_of_ten() -> None:
    """The downloaded lesson's histogram (and the Data page's) labelled "2, 1000, 5, 2, 100"."""
    values = pd.read_csv(SAMPLE_DIR / "incomes.csv")["income"]
    data = make_dataset(values, upper=800_000.0, name="incomes.csv", column="income")
    figure = data_histogram_figure(data, Domain(800_000.0, 1000))
    assert np.log10(float(np.nanmax(figure.data[0].y))) >= 2  # counts over two decades
    assert figure.layout.yaxis.type == "log" and figure.layout.yaxis.dtick == 1  # one per decade
