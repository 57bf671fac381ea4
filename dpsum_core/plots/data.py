"""The histogram of the data with θ marked (the data holder's view; never published).
"""


from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dpsum_core.data.dataset import Statistics
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.plots.style import _LAYOUT, IN_UNIT, domain_text, log_ticks, unit_text
from dpsum_core.text import escape_name, unit_nouns

if TYPE_CHECKING:  # analytics imports this module
    pass


def data_histogram_figure(
    data: Statistics, domain: Domain, *, thetas: Sequence[tuple[str, float]] = ()
) -> go.Figure:
    """Histogram of the cleaned data on the domain's bins (log counts), with θ values marked."""
    counts = histogram(data, domain)
    units = unit_nouns(data.report.id_column is not None)[1]  # people, when a person is the unit
    lower = domain.edges - domain.width
    fig = go.Figure(
        go.Bar(
            x=lower + domain.width / 2,
            y=np.where(counts > 0, counts, np.nan),
            width=domain.width,
            marker_color="#56B4E9",
            name=f"{units} per bin",
            hovertemplate="bin (%{customdata[0]:,.0f}, %{customdata[1]:,.0f}]: %{y:,} " + units + "<extra></extra>",
            customdata=np.column_stack([lower, domain.edges]),
        )
    )
    for label, value in thetas:
        if np.isfinite(value):
            fig.add_vline(
                x=value,
                line=dict(color="#D55E00", width=2, dash="dash"),
                annotation_text=label,
                # left of a line in the right half: "top right" ran off a half-page chart
                annotation_position="top left" if value > domain.upper / 2 else "top right",
            )
    # The title's main line stays short (a long one was cut off in narrow columns); the domain
    # goes to the subtitle.
    name, column = escape_name(data.name, "plotly"), escape_name(data.column, "plotly")
    fig.update_layout(
        title=f"{name}: {column}<br><sup>{domain_text(domain.upper, domain.bins)} "
        f"(width {domain.width:,.6g}){unit_text(data.report.id_column)} · {units} per bin, "
        "log scale</sup>",
        bargap=0,
        **_LAYOUT,
    )
    fig.update_layout(hovermode="closest", showlegend=False)
    # Start the axis a little left of 0, so that the first bin (where zeros fall) is not
    # hidden behind the y axis line.
    pad = 0.015 * domain.upper
    fig.update_xaxes(title=f"value{IN_UNIT}", range=[-pad, domain.upper + pad])
    # labels at the powers of ten only, over two decades and more ("2, 1000, 5, 2, 100" crowded)
    # whole counts (a tiny file's axis read "0.1, 2, 5, 1, 2, 5, 10"), from just under 1
    shown = counts[counts > 0]
    top = np.log10(shown.max() * 1.5) if shown.size else 1.0
    fig.update_yaxes(title=f"{units} (log scale)", type="log", range=[np.log10(0.7), top],
                     **log_ticks(shown, amounts=True))  # fmt: skip
    return fig
