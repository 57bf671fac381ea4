"""The decision figure: error against ε for every configuration, with the target.
"""


from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dpsum_core.mechanisms.registry import get
from dpsum_core.plots.style import _LAYOUT
from dpsum_core.simulate.results import configuration_name, headline_name, percent
from dpsum_core.truncation.registry import get as get_truncation

if TYPE_CHECKING:  # analytics imports this module
    from dpsum_core.simulate.decision import Reach


def decision_figure(
    frame,
    reaches: Sequence[Reach],
    target: float,
    *,
    simulated=None,
    title: str = "Error versus ε",
) -> go.Figure:
    """The decision view (log–log): the analytic headline metric against ε, one line per
    algorithm × truncation (colour and marker per algorithm, dash per truncation), the target
    as a horizontal line, a large marker where each configuration first meets it, and the
    simulated headline as open markers when ``simulated`` (same columns) is given."""
    fig = go.Figure()
    for (name, trunc), part in frame.groupby(["algorithm", "truncation"], sort=False):
        alg, who = get(name), configuration_name(name, trunc)
        part = part.sort_values("epsilon")
        fig.add_trace(
            go.Scatter(
                x=part["epsilon"], y=part["metric"], mode="lines+markers", name=who,
                legendgroup=who, marker=dict(symbol=alg.symbol, size=6, color=alg.color),
                line=dict(color=alg.color, width=2, dash=get_truncation(trunc).dash),
                hovertemplate="ε = %{x:.3g}: %{y:.3p}<extra>" + who + " (analytic)</extra>",
            )
        )  # fmt: skip
        if simulated is not None:
            sim = simulated[(simulated["algorithm"] == name) & (simulated["truncation"] == trunc)]
            fig.add_trace(
                go.Scatter(
                    x=sim["epsilon"], y=sim["metric"], mode="markers", legendgroup=who,
                    name=f"{who}, simulated", showlegend=False,
                    marker=dict(symbol=f"{alg.symbol}-open", size=11, color=alg.color,
                                line=dict(width=2)),
                    hovertemplate="ε = %{x:.3g}: %{y:.3p}<extra>" + who + " (simulated)</extra>",
                )
            )  # fmt: skip
    if simulated is not None:
        fig.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="markers", name="open markers: simulated",
                marker=dict(symbol="circle-open", size=11, color="#555555", line=dict(width=2)),
            )
        )  # fmt: skip
    for r in reaches:
        if r.epsilon is None:
            continue
        alg, who = get(r.algorithm), configuration_name(r.algorithm, r.truncation)
        fig.add_trace(
            go.Scatter(
                x=[r.epsilon], y=[target], mode="markers", legendgroup=who, showlegend=False,
                name=f"{who} meets the target",
                marker=dict(symbol=alg.symbol, size=14, color=alg.color,
                            line=dict(color="#000000", width=1)),
                hovertemplate=f"{who} meets the target at ε ≈ {r.epsilon:.2g}<extra></extra>",
            )
        )  # fmt: skip
    fig.add_hline(y=target, line=dict(color="#000000", width=1.5, dash="dash"))
    fig.add_annotation(
        text=f"target {percent(target)}", xref="paper", yref="y", x=0.0, y=np.log10(target),
        xanchor="left", yanchor="bottom", showarrow=False, font=dict(size=13),
        bgcolor="rgba(255,255,255,0.8)", name="target_note",
    )  # fmt: skip
    fig.update_layout(title=title, **_LAYOUT)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title="ε (total budget)", type="log", exponentformat="power")
    fig.update_yaxes(title=headline_name(), type="log", exponentformat="power")
    return fig
