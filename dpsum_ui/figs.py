"""Figures only the dashboard draws (the teaching page); styled like dpsum_core.figures.

They plot engine outputs (``theta_curves``, ``threshold_samples``) and compute nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpsum_core.figures import COLORS, TRUNCATION_NAMES, algorithm_style
from dpsum_core.mechanisms import DISPLAY_NAMES

SAMPLE_COLORS = {"svt": "#CC79A7", "recursive": "#009E73"}  # as in figures.theta_figure
_LAYOUT = dict(
    template="plotly_white",
    font=dict(size=14),
    legend=dict(orientation="h", yanchor="top", y=-0.16, xanchor="left", x=0),
    margin=dict(l=85, r=20, t=80, b=40),
    hovermode="x unified",
)


def _positive(values: pd.Series) -> np.ndarray:
    """Zeros cannot sit on a log axis: leave a gap there instead."""
    v = values.to_numpy(dtype=float)
    return np.where(v > 0, v, np.nan)


def theta_curves_figure(
    curves: pd.DataFrame,
    algorithm: str,
    *,
    theta: float,
    best: float,
    samples: Mapping[str, np.ndarray],
    title: str,
) -> go.Figure:
    """Bias², variance and total expected error of one algorithm over θ (log–log), the chosen
    θ and the best grid θ marked, and below it where SVT / Recursive land across trials."""
    part = curves[curves["algorithm"] == algorithm]
    rows = 2 if samples else 1
    fig = make_subplots(
        rows=rows,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.78, 0.22] if rows == 2 else [1.0],
        vertical_spacing=0.05,
    )
    color = COLORS.get(algorithm, "#333333")
    name = DISPLAY_NAMES.get(algorithm, algorithm)
    x = part["theta"].to_numpy()
    for column, label, style in (
        ("total", f"{name}: total expected error", dict(color=color, width=4)),
        ("bias2", "bias²", dict(color="#000000", width=2, dash="dash")),
        ("variance", "variance", dict(color="#777777", width=2, dash="dot")),
    ):
        fig.add_trace(
            go.Scatter(
                x=x, y=_positive(part[column]), mode="lines", name=label, line=style,
                hovertemplate="%{y:.3g}",
            ),
            row=1,
            col=1,
        )  # fmt: skip
    # Annotations on a log axis take log10 coordinates (shapes take data coordinates).
    fig.add_vline(x=theta, line=dict(color=color, width=2), row=1, col=1)
    fig.add_annotation(
        x=np.log10(theta), y=1, xref="x", yref="y domain", text=f"θ = {theta:,.0f}",
        showarrow=False, xanchor="left", yanchor="top", font=dict(color=color),
    )  # fmt: skip
    fig.add_vline(x=best, line=dict(color="#555555", width=1, dash="dashdot"), row=1, col=1)
    fig.add_annotation(
        x=np.log10(best), y=0, xref="x", yref="y domain",
        text="lowest expected error<br>(found by looking at the data)", showarrow=False,
        xanchor="left", yanchor="bottom", font=dict(color="#555555", size=12), align="left",
    )  # fmt: skip
    for method, values in samples.items():
        fig.add_trace(
            go.Scatter(
                x=np.asarray(values, float),
                y=[TRUNCATION_NAMES.get(method, method)] * len(values),
                mode="markers",
                marker=dict(symbol="line-ns-open", size=16, color=SAMPLE_COLORS.get(method)),
                name=f"θ chosen by {TRUNCATION_NAMES.get(method, method)} (one mark per trial)",
                hovertemplate="θ = %{x:,.0f}<extra></extra>",
            ),
            row=2,
            col=1,
        )
    fig.update_layout(title=title, **_LAYOUT)
    fig.update_layout(height=640 if rows == 2 else 520)
    fig.update_xaxes(type="log", range=[np.log10(x.min()), np.log10(x.max())])
    fig.update_xaxes(title="truncation threshold θ", row=rows, col=1)
    fig.update_yaxes(title="squared error", type="log", exponentformat="power", row=1, col=1)
    if rows == 2:
        fig.update_yaxes(title="", row=2, col=1)
    return fig


def all_algorithms_figure(curves: pd.DataFrame, *, theta: float, title: str) -> go.Figure:
    """Total expected error of every algorithm over θ for one query (log–log)."""
    fig = go.Figure()
    for algorithm in DISPLAY_NAMES:
        part = curves[curves["algorithm"] == algorithm]
        if part.empty:
            continue
        fig.add_trace(
            go.Scatter(
                x=part["theta"], y=_positive(part["total"]), name=DISPLAY_NAMES[algorithm],
                **algorithm_style(algorithm, width=3),
                hovertemplate="%{y:.3g}",
            )
        )  # fmt: skip
    fig.add_vline(x=theta, line=dict(color="#555555", width=1))
    fig.update_layout(title=title, **_LAYOUT)
    fig.update_layout(height=480)
    fig.update_xaxes(title="truncation threshold θ", type="log")
    fig.update_yaxes(title="expected squared error", type="log", exponentformat="power")
    return fig
