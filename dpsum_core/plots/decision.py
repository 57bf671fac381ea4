"""The decision figure: error against ε for every configuration, with the target.
"""


from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.registry import truncation as get_truncation
from dpsum_core.plots.style import _LAYOUT, PERCENT_LOG, log_ticks
from dpsum_core.simulate.results import configuration_name, headline_name, percent

if TYPE_CHECKING:  # annotations only
    from dpsum_core.simulate.decision import Reach


def decision_figure(
    frame,
    reaches: Sequence[Reach],
    target: float | None,
    *,
    simulated=None,
    title: str = "Error versus ε",
) -> go.Figure:
    """The decision view (log–log): the analytic headline metric against ε, one line per
    algorithm × truncation (colour and marker per algorithm, dash per truncation), the target
    as a horizontal line, a large marker where each configuration first meets it (a grey
    numbered one for crossings too close to tell apart; the legend says what each means), and
    the simulated headline as open markers when ``simulated`` (same columns) is given.
    ``target`` ``None``: the curves alone (Decide's target is on the published intervals, not
    on this error), with no target line and no markers on it."""
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
    groups = crossing_groups(reaches) if target is not None else []
    for group in groups:
        if len(group) == 1:
            (r,) = group
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
            continue
        # Crossings too close to tell apart: one numbered marker at their geometric centre,
        # its hover naming each configuration and its ε (markers no longer pile up).
        eps = [float(r.epsilon) for r in group if r.epsilon is not None]
        lines = "<br>".join(
            f"{configuration_name(r.algorithm, r.truncation)}: ε ≈ {r.epsilon:.2g}" for r in group
        )
        fig.add_trace(
            go.Scatter(
                x=[float(np.exp(np.mean(np.log(eps))))], y=[target], mode="markers+text",
                showlegend=False, name=f"{len(group)} configurations meet the target",
                text=[str(len(group))], textposition="middle center",
                textfont=dict(color="#FFFFFF", size=12),
                marker=dict(symbol="circle", size=22, color="#555555",
                            line=dict(color="#000000", width=1)),
                hovertemplate=f"meet the target:<br>{lines}<extra></extra>",
            )
        )  # fmt: skip
    _crossing_keys(fig, groups)
    if target is not None:
        fig.add_hline(y=target, line=dict(color="#000000", width=1.5, dash="dash"))
        fig.add_annotation(
            text=f"target {percent(target)}", xref="paper", yref="y", x=0.0, y=np.log10(target),
            xanchor="left", yanchor="bottom", showarrow=False, font=dict(size=13),
            bgcolor="rgba(255,255,255,0.8)", name="target_note",
        )  # fmt: skip
    fig.update_layout(title=title, **_LAYOUT)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title="ε (total budget)", type="log",
                     **log_ticks(frame["epsilon"]))  # fmt: skip
    fig.update_yaxes(title=headline_name(), **PERCENT_LOG)
    return fig


# In two short lines each: one line ran past a phone's edge (390 px; review 9)
MEETS_KEY = "large marker on the target:<br>where that line first meets it"
SHARED_KEY = "grey number: that many lines meet it<br>at about the same ε (hover for which)"


def _crossing_keys(fig: go.Figure, groups: list[list[Reach]]) -> None:
    """Legend entries for the kinds of marker drawn on the target line: a line's own symbol,
    large (e.g. ClampShells' hexagon), and the grey numbered circle of a group of lines."""
    keys = [(MEETS_KEY, dict(symbol="circle", size=14, color="#FFFFFF")),
            (SHARED_KEY, dict(symbol="circle", size=14, color="#555555"))]  # fmt: skip
    drawn = [any(len(g) == 1 for g in groups), any(len(g) > 1 for g in groups)]
    for (name, marker), shown in zip(keys, drawn, strict=True):
        if shown:
            fig.add_trace(
                go.Scatter(x=[None], y=[None], mode="markers", name=name, hoverinfo="skip",
                           marker=dict(**marker, line=dict(color="#000000", width=1)))
            )  # fmt: skip


CROSSING_CLOSE = 1.15  # crossings within this factor of ε are drawn as one numbered marker


def crossing_groups(reaches: Sequence[Reach]) -> list[list[Reach]]:
    """The configurations that reach the target, grouped where their ε are within a factor
    :data:`CROSSING_CLOSE` of the group's first (sorted by ε), so that markers do not pile up.

    >>> from dpsum_core.simulate.decision import Reach
    >>> rs = [Reach("tamm", "svt", e, 0.01) for e in (0.010, 0.011, 0.05)]
    >>> [len(g) for g in crossing_groups(rs)]
    [2, 1]
    """
    met = sorted(((float(r.epsilon), r) for r in reaches if r.epsilon is not None),
                 key=lambda pair: pair[0])  # fmt: skip
    groups: list[list[Reach]] = []
    first = 0.0
    for eps, r in met:
        if groups and eps <= first * CROSSING_CLOSE:
            groups[-1].append(r)
        else:
            groups.append([r])
            first = eps
    return groups
