"""Figures only the dashboard draws (the teaching page); styled like dpsum_core.plots.

They plot engine outputs (``theta_curves``, ``threshold_samples``) and compute nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpsum_core.mechanisms.registry import ALGORITHMS, get, truncation_label
from dpsum_core.mechanisms.registry import label as algorithm_label
from dpsum_core.plots.style import IN_UNIT, algorithm_style

from .present import money

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


def _in_words(values: np.ndarray) -> list[str]:
    """Hover texts of a curve in the data's unit, as words (“1.53 billion”, not “1.53G”)."""
    return ["" if not np.isfinite(v) else money(float(v)) for v in values]


def _word_ticks(low: float, high: float) -> dict:
    """Log-axis ticks at the powers of ten in [10^low, 10^high], labelled in words."""
    values = [10.0**k for k in range(int(np.floor(low)), int(np.ceil(high)) + 1)]
    return dict(tickmode="array", tickvals=values, ticktext=[money(v) for v in values])


def theta_curves_figure(
    curves: pd.DataFrame,
    algorithm: str,
    *,
    theta: float,
    best: float,
    samples: Mapping[str, np.ndarray],
    readout: str,
    title: str,
) -> go.Figure:
    """The expected error of one algorithm over θ and its parts, in the data's unit (log–log):
    RMSE = √(bias² + variance), |truncation bias|, |binning bias| and the noise's standard
    deviation √variance; a marker and a readout at ``theta``, and below it where SVT /
    Recursive land across trials.

    The marker is the page's θ: the figure has no θ control of its own, so that the chart,
    the numbers, the sentences and the link never show two different θ.

    ``curves``: columns theta, truncation_bias2, binning_bias2, variance, total (one row per
    grid θ); ``readout``: the text shown at ``theta``.
    """
    rows = 2 if samples else 1
    fig = make_subplots(
        rows=rows,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.8, 0.2] if rows == 2 else [1.0],
        vertical_spacing=0.04,
    )
    color = get(algorithm).color
    name = algorithm_label(algorithm)
    x = curves["theta"].to_numpy()
    lines = [
        ("total", f"{name}: RMSE", dict(color=color, width=4)),
        ("truncation_bias2", "|truncation bias|", dict(color="#000000", width=2, dash="dash")),
        ("binning_bias2", "|binning bias|", dict(color="#8C510A", width=2, dash="dashdot")),
        ("variance", "noise (SD)", dict(color="#777777", width=2, dash="dot")),
    ]
    for column, label, style in lines:
        if not (curves[column] > 0).any():
            continue  # e.g. SQM has no binning bias: say so in the text, draw nothing
        y = np.sqrt(_positive(curves[column]))
        fig.add_trace(
            go.Scatter(
                x=x, y=y, mode="lines", name=label, line=style, text=_in_words(y),
                hovertemplate="%{text}",
            ),
            row=1,
            col=1,
        )  # fmt: skip
    # Shapes take data coordinates on a log axis, annotations log10 ones.
    start = int(np.argmin(np.abs(np.log(x) - np.log(theta))))
    fig.add_shape(
        type="line", x0=x[start], x1=x[start], y0=0, y1=1, xref="x", yref="y domain",
        line=dict(color=color, width=3),
    )  # fmt: skip
    fig.add_annotation(
        text=readout, x=1, y=1, xref="x domain", yref="y domain", xanchor="right",
        yanchor="top", align="left", showarrow=False, bgcolor="rgba(255,255,255,0.9)",
        bordercolor=color, borderwidth=1, font=dict(size=14),
    )  # fmt: skip
    fig.add_shape(
        type="line", x0=best, x1=best, y0=0, y1=1, xref="x", yref="y domain",
        line=dict(color="#555555", width=1, dash="dashdot"),
    )  # fmt: skip
    fig.add_annotation(
        x=np.log10(best), y=0, xref="x", yref="y domain",
        text="lowest truncation bias² + variance<br>(found by looking at the data)",
        showarrow=False, yanchor="bottom", font=dict(color="#555555", size=13),
        # written away from the nearer edge, so that it is never cut off
        xanchor="left" if best < np.sqrt(x.min() * x.max()) else "right",
        align="left",
    )  # fmt: skip
    for method, values in samples.items():
        fig.add_trace(
            go.Scatter(
                x=np.asarray(values, float),
                y=[truncation_label(method)] * len(values),
                mode="markers",
                marker=dict(symbol="line-ns-open", size=16, color=SAMPLE_COLORS.get(method)),
                name=f"θ chosen by {truncation_label(method)} (one mark per trial)",
                hovertemplate="θ = %{x:,.0f}<extra></extra>",
                showlegend=False,  # the row is labelled on its axis
            ),
            row=2,
            col=1,
        )
    fig.update_layout(title=title, **_LAYOUT)
    fig.update_layout(
        height=600,
        font=dict(size=16),
        legend=dict(orientation="h", yanchor="bottom", y=1.01, xanchor="left", x=0),
        margin=dict(l=85, r=20, t=170, b=20),  # title, two subtitle lines, legend
        # the title at the top of the figure, above the legend (not just above the plot)
        title=dict(text=title, yref="container", y=0.95, yanchor="top"),
    )
    xrange = [np.log10(x.min()), np.log10(x.max())]
    fig.update_xaxes(type="log", range=xrange, **_word_ticks(*xrange))
    fig.update_xaxes(title="truncation threshold θ", row=rows, col=1)
    # Headroom above the curves for the readout, so that it hides none of them.
    drawn = curves[["total", "truncation_bias2", "binning_bias2", "variance"]].to_numpy()
    drawn = np.sqrt(drawn[np.isfinite(drawn) & (drawn > 0)])
    yrange = [np.log10(drawn.min()) - 0.15, np.log10(drawn.max()) + 1.1]
    fig.update_yaxes(
        title=f"error{IN_UNIT}", type="log", range=yrange,
        **_word_ticks(*yrange), row=1, col=1,
    )  # fmt: skip
    if rows == 2:
        fig.update_yaxes(title="", row=2, col=1)
    return fig


def all_algorithms_figure(curves: pd.DataFrame, *, theta: float, title: str) -> go.Figure:
    """Total expected error of every algorithm over θ for one query (log–log)."""
    fig = go.Figure()
    drawn: list[np.ndarray] = []
    for algorithm in ALGORITHMS:
        part = curves[curves["algorithm"] == algorithm]
        if part.empty:
            continue
        y = np.sqrt(_positive(part["total"]))
        drawn.append(y)
        fig.add_trace(
            go.Scatter(
                x=part["theta"], y=y, text=_in_words(y),
                name=algorithm_label(algorithm), **algorithm_style(algorithm, width=3),
                hovertemplate="%{text}",
            )
        )  # fmt: skip
    fig.add_vline(x=theta, line=dict(color="#555555", width=1))
    fig.update_layout(title=title, **_LAYOUT)
    fig.update_layout(height=480)
    thetas = curves["theta"].to_numpy(dtype=float)
    fig.update_xaxes(
        title="truncation threshold θ", type="log",
        **_word_ticks(np.log10(thetas.min()), np.log10(thetas.max())),
    )  # fmt: skip
    values = np.concatenate(drawn) if drawn else np.array([1.0])
    values = values[np.isfinite(values) & (values > 0)]
    ticks = _word_ticks(np.log10(values.min()), np.log10(values.max())) if values.size else {}
    fig.update_yaxes(title=f"expected error (RMSE){IN_UNIT}", type="log", **ticks)
    return fig
